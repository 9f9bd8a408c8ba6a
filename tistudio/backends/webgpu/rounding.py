"""Correctly rounded f32 division and square root in WGSL, whatever the driver's f32 accuracy.

WGSL lets `x / y` be 2.5 ulp off and `sqrt` be what `1.0 / inverseSqrt` gives, and NVIDIA's
Vulkan driver (580, H100) uses that freedom: `f32(a) / 255.0` was 0.99999994 for `a = 255`, so
`u8(a / 255.0)` gave 0 where the CPU gives 1, and f32 `sqrt` was 1 ulp off. The floating-point
contract (docs/compiler-contract.md) rounds every `/` and `sqrt` once, as IEEE 754 does. Where
the adapter has `shader-f64`, the helpers here compute in f64 and round to f32:

* **division**: the f64 quotient of two f32 values is within 2.5 f64 ulp (2^-50.6, relative)
  of the exact one even where a driver takes WGSL's freedom, while an exact quotient of two
  24-bit significands lies at least 2^-49 (relative) from the midpoint of two f32 values; so
  rounding the f64 quotient to f32 gives the f32 that IEEE's division gives;
* **square root**: the f64 root rounded to f32 is within one f32 ulp of the exact root; then
  the exact test `x - l h > 0` (in f64, where the product of two f32 values is exact and the
  difference of nearly equal values is too) says whether the upper `h` or the lower `l` of the
  two f32 values around the root is nearer, because the midpoint's square is `l h + ulp(l)^2 / 4`
  and `x - l h` is a multiple of `ulp(l)^2`.

No step needs a fused multiply-add (lavapipe's `fma` is a multiply and an add: it cannot be the
tool), and a driver that contracts the exact products above into one changes nothing. f16 goes
through these (f32 holds its exact quotient and root to more than twice its precision); f64's
own `/` and `sqrt` are the driver's (IEEE's on lavapipe and, measured, on NVIDIA's driver 580).
Without `shader-f64` the f32 operations are the driver's: within WGSL's accuracy only.
`tests/backends/webgpu/test_rounding.py` checks the helpers against NumPy on the adapter, with
the f64 results made worse on purpose too.
"""

from __future__ import annotations


def division(guess: str = "f64(a) / f64(b)") -> str:
    """WGSL `ti_div_rn_f32(a, b)`: IEEE's f32 `a / b`. `guess`: the f64 quotient (tests make it
    a few f64 ulp worse on purpose, as WGSL allows)."""
    return f"""fn ti_div_rn_f32(a: f32, b: f32) -> f32 {{
    // IEEE's quotient: an f64 quotient within 2^-49 of it rounds to it (rounding.py)
    return f32({guess});
}}"""


def square_root(guess: str = "sqrt(w)") -> str:
    """WGSL `ti_sqrt_rn_f32(x)`: IEEE's f32 `sqrt(x)`. `guess`: the f64 root of `w`, `x` as f64
    (tests make it worse on purpose)."""
    return f"""fn ti_sqrt_rn_f32(x: f32) -> f32 {{
    // IEEE's root: the f64 root rounded, then the nearer of the f32 values l <= sqrt(x) < h,
    // tested exactly in f64 (rounding.py); zeros, NaN and infinities as sqrt gives them
    let w = f64(x);
    let s = f32({guess});
    let bits = bitcast<u32>(s);
    if (bits == 0u || bits >= 0x7f800000u) {{ return s; }}  // +0, +inf, NaN, negatives
    let lo = select(bitcast<f32>(bits - 1u), s, w - f64(s) * f64(s) >= 0.0lf);
    let hi = bitcast<f32>(bitcast<u32>(lo) + 1u);
    return select(lo, hi, w - f64(lo) * f64(hi) > 0.0lf);
}}"""


# helper functions by name; the emitter adds those an expression calls
ROUNDING_HELPERS = {"ti_div_rn_f32": division(), "ti_sqrt_rn_f32": square_root()}
