"""Fused multiply-adds on the GPU: never without `fast_math`, the driver's choice with it.

NVIDIA's Vulkan driver (580, H100) fused 15297 of 65536 random f32 `a * b + c` (and as many in
f16) into one FMA, where lavapipe does not. Without `fast_math` the shaders hide a product that
an addition or subtraction consumes behind a `select` on `ti_never` (`ieee.uncontracted`; an
f16 product is rounded through its bits, `wgsl.through_f32`), so `a * b + c` rounds the product
as the CPU does: checked here against NumPy's unfused bits (on lavapipe in CI, on NVIDIA in
`benchmarks/gpu/conformance.sh`), with the hidden products in the shader text. With `fast_math`
(Taichi's default, and `Caps.contract`) f32 products are left bare, as Taichi's CUDA back end
fuses them: each result is then the unfused or the fused value, never anything else.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

import tistudio as ti

N = 4096


def _mad(dtype_name: str, fast_math: bool = False) -> tuple[np.ndarray, np.ndarray, str]:
    ti.init(arch=ti.gpu, offline_cache=False, fallback_to_cpu=False, fast_math=fast_math)
    dtype = getattr(ti, dtype_name)
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(N).astype(dtype_name.replace("f", "float")) for _ in "abc")
    fa, fb, fc, out = (ti.field(dtype, shape=(N, 3)) for _ in range(4))
    for f, values in ((fa, a), (fb, b), (fc, c)):
        f.from_numpy(np.repeat(values[:, None], 3, axis=1))

    @ti.kernel
    def mad():
        for i in range(N):
            out[i, 0] = fa[i, 0] * fb[i, 0] + fc[i, 0]
            out[i, 1] = fc[i, 1] - fa[i, 1] * fb[i, 1]
            acc = fc[i, 2]
            acc += fa[i, 2] * fb[i, 2]
            out[i, 2] = acc

    mad()
    want = np.stack([a * b + c, c - a * b, c + a * b], axis=1)
    return out.to_numpy(), want, mad.compile_report().wgsl


_PRODUCT = r"\((f32\()?\w+\)? \* (f32\()?\w+\)?\)"
_BARE_F32_PRODUCT = rf": f32 = {_PRODUCT};"


@pytest.mark.parametrize("dtype_name", ["f32", "f16"])
def test_products_are_rounded_before_the_addition(dtype_name: str, device) -> None:
    if dtype_name == "f16" and not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    got, want, wgsl = _mad(dtype_name)
    np.testing.assert_array_equal(got, want)
    product = _PRODUCT
    hidden = (
        rf"select\({product}, 0\.0f, ti_never\)",  # f32: behind a select on `ti_never`
        rf"f16\(ti_r16\({product}\)\)",  # f16: in f32, rounded through its bits (ti_r16)
    )
    products = re.findall("|".join(hidden), wgsl)
    assert len(products) >= 3, wgsl  # every product that an addition or subtraction consumes
    assert not re.search(rf": f(32|16) = {product};", wgsl), wgsl  # and no bare one left


def test_fast_math_leaves_f32_products_to_the_driver(device) -> None:
    """With fast_math the products are bare and each result is `a * b + c` rounded twice (the
    product first) or once (fused); `c - a * b` keeps its product hidden (the subtraction's
    operand is, see ieee.binary), so it is the unfused value."""
    got, want, wgsl = _mad("f32", fast_math=True)
    assert len(re.findall(_BARE_F32_PRODUCT, wgsl)) >= 2, wgsl
    np.testing.assert_array_equal(got[:, 1], want[:, 1])
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in "abc")
    for column in (0, 2):
        differs = np.flatnonzero(got[:, column] != want[:, column])
        for i in differs:  # only where a driver fused: the exact a * b + c, rounded once
            exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            assert got[i, column] == np.float32(float(exact)), (i, column)


def test_fast_math_without_contraction_hides_the_products(device) -> None:
    """`Caps.contract=False` (bench.py's `BENCH_CONTRACT=0`) keeps fast_math's other choices
    but hides the products as without it."""
    from dataclasses import replace

    before = device.caps
    device.caps = replace(device.caps, contract=False)
    try:
        got, want, wgsl = _mad("f32", fast_math=True)
    finally:
        device.caps = before
    np.testing.assert_array_equal(got, want)
    assert not re.search(_BARE_F32_PRODUCT, wgsl), wgsl


def test_f16_keeps_nan_and_zero_signs_through_f32(device) -> None:
    """f16 `x - x`, `x * 0.0` and `0.0 / x` follow the f32 rules (NaN for infinities, signed
    zeros), computed in f32 and rounded back: they were left to the driver, which folds them."""
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    values = np.array([1.5, -2.0, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float16)
    cpu, gpu = _fold(ti.cpu, values), _fold(ti.gpu, values)
    assert np.isnan(cpu[4, 0]) and np.isnan(cpu[4, 1])  # inf - inf, inf * 0
    np.testing.assert_array_equal(gpu, cpu)  # NaN where the CPU has NaN
    numbers = ~np.isnan(cpu)  # and the same sign on every zero (a NaN's sign means nothing)
    np.testing.assert_array_equal(np.signbit(gpu[numbers]), np.signbit(cpu[numbers]))


def _fold(arch, values: np.ndarray) -> np.ndarray:
    ti.init(arch=arch, offline_cache=False, fallback_to_cpu=False)
    x = ti.field(ti.f16, shape=len(values))
    out = ti.field(ti.f16, shape=(len(values), 3))
    x.from_numpy(values)

    @ti.kernel
    def fold():
        for i in x:
            out[i, 0] = x[i] - x[i]
            out[i, 1] = x[i] * 0.0
            out[i, 2] = 0.0 / x[i]

    fold()
    return out.to_numpy()
