"""Correctly rounded `/` and `sqrt` on the GPU (backends/webgpu/rounding.py), value by value.

The helpers must give IEEE's bits (NumPy's) whatever the driver's first guess: lavapipe's
division and square root are already IEEE, so each helper also runs with its guess made worse
on purpose (a few ulp off either way, or a reciprocal's product, as drivers compute it), which
is what NVIDIA's driver gave (`255.0 / 255.0` was 0.99999994, `sqrt` 1 ulp off)."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu import rounding
from tistudio.backends.webgpu.device import default_device

from .raw_wgsl import apply

N = 1 << 16


def _device():  # noqa: ANN202
    device = default_device()
    if not device.caps.has("shader-f64"):
        pytest.skip("the adapter has no shader-f64: f32 / and sqrt are the driver's")
    return device


def _normal(rng: np.random.Generator, n: int, exponents: tuple[int, int]) -> np.ndarray:
    """`n` random normal f32 values with random signs, fractions and exponents in `exponents`."""
    e = rng.integers(*exponents, size=n, endpoint=True)
    fraction = np.floor(rng.random(n) * 2.0**23) / 2.0**23
    x = np.ldexp(1.0 + fraction, e)
    return np.where(rng.random(n) < 0.5, -x, x).astype(np.float32)


def _same_bits(got: np.ndarray, want: np.ndarray, flushes: bool) -> np.ndarray:
    """Where `got` is IEEE's `want`; a subnormal `want` may come out as a zero of its sign on an
    adapter that flushes subnormals (the contract allows it)."""
    same = got.view(np.uint32) == want.view(np.uint32)
    if flushes:
        tiny = (want != 0) & (np.abs(want) < np.finfo(np.float32).tiny)
        same |= tiny & (got == 0) & (np.signbit(got) == np.signbit(want))
    return same


def _flushes() -> bool:
    tiny = np.array([np.finfo(np.float32).tiny], np.float32)
    return apply(default_device(), [], "a0 * 0.5", [tiny])[0] == 0


def _report(a: np.ndarray, b: np.ndarray | None, got: np.ndarray, want: np.ndarray, bad) -> str:  # noqa: ANN001
    k = np.flatnonzero(bad)[:5]
    operands = [a[k]] if b is None else [a[k], b[k]]
    return f"{bad.sum()} of {len(bad)} differ, e.g. operands {operands}: {got[k]} != {want[k]}"


F32 = np.float32


def _operand_pairs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs over the whole normal range, pairs near each other, small integers (whose
    quotients are often exact or just off an integer, as `255.0 / 255.0`), and pairs whose
    quotient overflows or is subnormal."""
    rng = np.random.default_rng(seed)
    lo, hi = np.finfo(F32).minexp, np.finfo(F32).maxexp - 1
    wide = (_normal(rng, N, (lo, hi)), _normal(rng, N, (lo, hi)))
    near = (_normal(rng, N, (-2, 2)), _normal(rng, N, (-2, 2)))
    ints = tuple(rng.integers(1, 1000, size=N).astype(F32) for _ in range(2))
    edges = (_normal(rng, N, (hi - 3, hi)), _normal(rng, N, (lo, lo + 3)))
    # a midpoint between two f32 values times b, rounded: quotients as hard to round as any
    q, b = _normal(rng, N, (-20, 20)), _normal(rng, N, (-20, 20))
    midpoints = (q.astype(np.float64) + np.nextafter(q, F32(np.inf))) / 2
    hard = ((midpoints * b).astype(F32), b)
    parts = zip(wide, near, ints, edges, edges[::-1], hard)
    return tuple(np.concatenate(p) for p in parts)


# the f64 quotient as WGSL lets a driver compute it (2.5 ulp): IEEE's, or made worse
WORSE_QUOTIENTS = {
    "the driver's": "f64(a) / f64(b)",
    "2 f64 ulp above": "bitcast<f64>(bitcast<u64>(f64(a) / f64(b)) + 2lu)",
    "2 f64 ulp below": "bitcast<f64>(bitcast<u64>(f64(a) / f64(b)) - 2lu)",
}


@pytest.mark.parametrize("guess", list(WORSE_QUOTIENTS))
def test_f32_division_is_rounded_once(guess: str) -> None:
    device = _device()
    a, b = _operand_pairs(seed=1)
    got = apply(
        device, [rounding.division(WORSE_QUOTIENTS[guess])], "ti_div_rn_f32(a0, a1)", [a, b]
    )
    with np.errstate(all="ignore"):
        want = a / b
    bad = ~_same_bits(got, want, _flushes())
    assert not bad.any(), _report(a, b, got, want, bad)


# the f64 root made worse, beyond what WGSL allows: the result need only be within an f32 ulp
WORSE_ROOTS = {
    "the driver's": "sqrt(w)",
    "3 f64 ulp above": "bitcast<f64>(bitcast<u64>(sqrt(w)) + 3lu)",
    "3 f64 ulp below": "bitcast<f64>(bitcast<u64>(sqrt(w)) - 3lu)",
    "f32's": "f64(sqrt(x))",
    "an f32 ulp above": "f64(bitcast<f32>(bitcast<u32>(f32(sqrt(w))) + 1u))",
}


@pytest.mark.parametrize("guess", list(WORSE_ROOTS))
def test_f32_square_root_is_rounded_once(guess: str) -> None:
    device = _device()
    rng = np.random.default_rng(2)
    lo, hi = np.finfo(F32).minexp, np.finfo(F32).maxexp - 1
    roots = _normal(rng, N, (lo // 2, hi // 2))
    squares = np.square(roots)  # exact roots, and next to them: near midpoints
    near = squares.view(np.uint32) + rng.integers(-2, 3, size=N).astype(np.uint32)
    # squares of the midpoints between two f32 values: roots as hard to round as they come
    midpoints = (roots.astype(np.float64) + np.nextafter(roots, F32(np.inf))) / 2
    hard = np.square(midpoints).astype(F32)
    x = np.abs(np.concatenate([_normal(rng, N, (lo, hi)), squares, near.view(F32), hard]))
    if guess == "the driver's":  # (the worse guesses would make infinities NaN)
        x = np.concatenate([x, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0], F32)])
    got = apply(device, [rounding.square_root(WORSE_ROOTS[guess])], "ti_sqrt_rn_f32(a0)", [x])
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    bad = ~(_same_bits(got, want, flushes=False) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), _report(x, None, got, want, bad)


def test_f64_division_and_square_root_are_ieee_on_the_adapter() -> None:
    """What rounding.py takes for granted: the driver's f64 `/` and `sqrt` are IEEE's (WGSL
    allows 2.5 ulp, so a driver that takes it breaks the f64 contract and must be listed)."""
    device = _device()
    rng = np.random.default_rng(4)
    n = 4 * N
    a = np.ldexp(rng.random(n) + 1.0, rng.integers(-300, 300, n)) * rng.choice([-1.0, 1.0], n)
    b = np.ldexp(rng.random(n) + 1.0, rng.integers(-300, 300, n))
    ints = rng.integers(1, 1000, size=(2, N)).astype(np.float64)
    a, b = np.concatenate([a, ints[0]]), np.concatenate([b, ints[1]])
    quotient = apply(device, [], "a0 / a1", [a, b])
    bad = quotient.view(np.uint64) != (a / b).view(np.uint64)
    assert not bad.any(), _report(a, b, quotient, a / b, bad)
    root = apply(device, [], "sqrt(a0)", [b])
    bad = root.view(np.uint64) != np.sqrt(b).view(np.uint64)
    assert not bad.any(), _report(b, None, root, np.sqrt(b), bad)


@ti.kernel
def _divide(a: ti.types.ndarray(dtype=ti.f32, ndim=1), o: ti.types.ndarray(dtype=ti.f32, ndim=2)):
    for i in range(a.shape[0]):
        o[i, 0] = a[i] / 255.0  # a literal divisor
        o[i, 1] = a[i] / a[(i + 1) % a.shape[0]]
        o[i, 2] = ti.sqrt(a[i])
        o[i, 3] = 1.0 / a[i]


def _cpu_and_gpu(a: np.ndarray, fast_math: bool) -> tuple[np.ndarray, np.ndarray]:
    results = []
    for arch in (ti.cpu, ti.vulkan):
        ti.init(arch=arch, offline_cache=False, fast_math=fast_math)
        o = np.zeros((len(a), 4), np.float32)
        _divide(a, o)
        results.append(o)
    return results[0], results[1]


def _operands() -> np.ndarray:
    rng = np.random.default_rng(3)
    return np.concatenate(
        [
            np.arange(1, 1001, dtype=np.float32),  # 255.0 / 255.0 and the like
            (rng.standard_normal(4000) * 1e3).astype(np.float32),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, 2e-38], np.float32),
        ]
    )


def test_kernels_divide_and_take_roots_as_the_cpu_does() -> None:
    """Through the compiler, without fast_math: `/` by a literal and by a value, `sqrt` and
    `1 / x` (a kernel's f32 results on the GPU are the CPU's bits, zeros, infinities and NaN
    included)."""
    a = _operands()
    cpu, gpu = _cpu_and_gpu(a, fast_math=False)
    bad = ~_same_bits(gpu.ravel(), cpu.ravel(), _flushes())
    bad &= ~(np.isnan(gpu.ravel()) & np.isnan(cpu.ravel()))
    assert not bad.any(), _report(np.repeat(a, 4), None, gpu.ravel(), cpu.ravel(), bad)


def test_fast_math_divides_by_values_as_the_driver_does_and_by_literals_exactly() -> None:
    """With fast_math (Taichi's default) a division by a value, `sqrt` and `1 / x` are the
    driver's (WGSL: within 2.5 ulp; the f64 route cost n-body 6x on an H200), a division by a
    literal stays IEEE's (`255.0 / 255.0` is 1), and zeros, infinities and NaN are the CPU's."""
    report = _divide.compile_report
    for fast_math, divisions in ((True, 1), (False, 3)):  # rounded through f64
        ti.init(arch=ti.vulkan, offline_cache=False, fast_math=fast_math)
        a, o = np.ones(4, np.float32), np.zeros((4, 4), np.float32)
        wgsl = report(a, o).wgsl
        calls = wgsl.count("ti_div_rn_f32(") - wgsl.count("fn ti_div_rn_f32(")
        roots = wgsl.count("ti_sqrt_rn_f32(") - wgsl.count("fn ti_sqrt_rn_f32(")
        assert (calls, bool(roots)) == (divisions, not fast_math), wgsl
    a = _operands()
    cpu, gpu = _cpu_and_gpu(a, fast_math=True)
    bad = ~_same_bits(gpu[:, 0], cpu[:, 0], _flushes()) & ~(
        np.isnan(gpu[:, 0]) & np.isnan(cpu[:, 0])
    )
    assert not bad.any(), _report(a, None, gpu[:, 0], cpu[:, 0], bad)
    for column in (1, 2, 3):
        want, got = cpu[:, column], gpu[:, column]
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
        finite = np.isfinite(want) & (np.abs(want) >= np.finfo(np.float32).tiny)
        ulps = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
        assert ulps.max() <= 2.5, (column, ulps.max())
