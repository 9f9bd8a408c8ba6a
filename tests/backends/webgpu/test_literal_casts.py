"""Casts of f64 constants on the GPU: naga cannot convert an f64 literal to any type, so the
emitter folds such casts (wgsl.py `_cast_f64_literal`); the H100 fuzz campaign found a kernel
whose shader naga refused (`ti.cast(ti.cast(0.0, ti.f64), ti.f16)`)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti


def _casts(arch) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=8)
    x = ti.field(ti.f16, shape=2)

    @ti.kernel
    def casts(a: ti.f32):
        x[0] = ti.cast(a, ti.f16)
        out[0] = ti.cast(ti.min(x[0], x[0]) >= ti.cast(ti.cast(0.0, ti.f64), ti.f16), ti.f32)
        out[1] = ti.cast(ti.cast(ti.cast(0.1, ti.f64), ti.f16), ti.f32) + a
        out[2] = ti.cast(ti.cast(ti.cast(-2.75, ti.f64), ti.i32), ti.f32) + a
        out[3] = ti.cast(ti.cast(ti.cast(1e10, ti.f64), ti.u32), ti.f32) + a
        out[4] = ti.cast(ti.cast(ti.cast(0.1, ti.f64), ti.f32), ti.f32) + a
        out[5] = ti.cast(ti.cast(ti.cast(-1e300, ti.f64), ti.i64), ti.f32) + a
        out[6] = ti.cast(ti.cast(ti.cast(7.9, ti.f64), ti.u8), ti.f32) + a

    casts(0.5)
    result = out.to_numpy()
    ti.reset()
    return result


def test_casts_of_f64_constants_compile_and_agree_with_the_cpu(device) -> None:  # noqa: ANN001
    if not device.caps.has("shader-f64"):
        pytest.skip("the adapter has no shader-f64: no f64 to cast from")
    cpu, gpu = _casts(ti.cpu), _casts(ti.vulkan)
    assert cpu[0] == 1.0 and cpu[2] == -1.5  # the kernel computes what it says
    np.testing.assert_array_equal(gpu, cpu)


def _f16_zeros(arch) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=4)

    @ti.kernel
    def zeros(a: ti.f32, nan: ti.f32):
        z = ti.cast(0, ti.u8)  # a constant the IR keeps as a cast
        out[0] = ti.cast(ti.cast(z, ti.f16) * ti.cast(nan, ti.f16), ti.f32)
        out[1] = ti.cast(ti.cast(a, ti.f16) / ti.cast(z, ti.f16), ti.f32)
        out[2] = ti.cast((ti.cast(a, ti.f16) / ti.cast(-1.5, ti.f16)) % ti.cast(z, ti.f16), ti.f32)
        out[3] = ti.cast(ti.cast(3, ti.i32), ti.f16) * ti.cast(a, ti.f16)

    zeros(-0.0, np.nan)
    result = out.to_numpy()
    ti.reset()
    return result


def test_f16_zero_constants_are_not_folded_away(device) -> None:  # noqa: ANN001
    """`f16(0) * NaN` is NaN and `x / f16(0)` IEEE's, as on the CPU: lavapipe folded the
    product of a cast constant zero to 0 (the H100 float campaign's kernel returned 0 where the
    CPU returns NaN), and an f16 division by a literal zero went to the driver unguarded."""
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    cpu, gpu = _f16_zeros(ti.cpu), _f16_zeros(ti.vulkan)
    assert np.isnan(cpu[:3]).all() and np.isnan(gpu[:3]).all()  # (a NaN's sign is no one's)
    assert gpu[3].view(np.uint32) == cpu[3].view(np.uint32) == 0x80000000  # -0.0 * 3


def _specials(arch) -> tuple[np.ndarray, str]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=4)

    @ti.kernel
    def specials(a: ti.f32):
        z = ti.cast(0, ti.i8)
        for _ in range(12):  # z: a reduction, known only at run time
            z += ti.cast(a, ti.i8)
        out[0] = (ti.math.inf % ti.cast(z, ti.f32)) * ti.cast(z, ti.f32)
        out[1] = ti.math.inf % ti.cast(z, ti.f32)
        out[2] = ti.math.inf - ti.math.nan * a
        out[3] = -ti.math.inf * (a + 1.0)

    specials(0.0)
    result = out.to_numpy()
    text = specials.compile_report(0.0).wgsl if arch == ti.vulkan else ""
    ti.reset()
    return result, text


def test_infinity_and_nan_constants_are_hidden_from_drivers(device) -> None:  # noqa: ANN001
    """NVIDIA's driver (580) took an infinity or NaN constant in arithmetic as undefined (fast
    math): `inf % z` for a zero `z` known only at run time gave 0 and so did `(inf % z) * z`,
    where the CPU gives NaN (the H100 float campaign's kernel stored 352 for NaN cast to u16).
    Such constants reach the shader as their bits xor `ti_zero`, a zero no driver can know
    (wgsl.opaque_bits): behind `select(bits, 0u, ti_never)` NVIDIA's still dropped a NaN."""
    (cpu, _), (gpu, text) = _specials(ti.cpu), _specials(ti.vulkan)
    assert np.isnan(cpu[:3]).all() and cpu[3] == -np.inf
    assert np.isnan(gpu[:3]).all() and gpu[3] == -np.inf
    assert "(2139095040u ^ (ti_zero << 23u))" in text  # +inf's bits ...
    assert not re.search(r"bitcast<f32>\((2139095040|4286578688|2143289344)u\)", text)  # hidden


def _zero_times_infinity(arch) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=3)

    @ti.kernel
    def product(a: ti.i16):
        z = ti.cast(0, ti.u16)
        x = ti.floor(ti.cast(z, ti.f16))  # a zero a driver could compute itself
        out[0] = ti.cast(ti.cast(a > 3, ti.f16) * ((x - x) * ti.cast(ti.math.inf, ti.f16)), ti.f32)
        y = ti.floor(ti.cast(z, ti.f32))
        out[1] = (y - y) * ti.math.inf
        out[2] = ti.cast(ti.cast(ti.cast(0.0, ti.f16), ti.i8), ti.f32)

    product(32767)
    result = out.to_numpy()
    ti.reset()
    return result


def test_zeros_a_driver_could_compute_do_not_cancel_infinities(device) -> None:  # noqa: ANN001
    """`(x - x) * inf` is NaN for `x = floor(0)`: lavapipe computed `floor(0.0h)` itself and
    made the product 0 (the H200 campaign's kernel returned 0 where the CPU returns NaN); zero
    constants are opaque now, as other constants were. Also the f16 `enable` for a shader whose
    only f16 is a literal (naga refused `i32(f32(0.0h))` without it)."""
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    cpu, gpu = _zero_times_infinity(ti.cpu), _zero_times_infinity(ti.vulkan)
    assert np.isnan(cpu[:2]).all() and np.isnan(gpu[:2]).all()
    assert cpu[2] == gpu[2] == 0.0


def _infinity_times_integer_difference(arch) -> tuple[np.ndarray, str]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=2)

    @ti.kernel
    def product(n: ti.u16, y: ti.f32):
        a = ti.cast(n, ti.f32)  # an integer: finite, which a driver knows
        out[0] = (y * -ti.math.inf) * (a - a)
        out[1] = (y * -ti.math.inf) * (a * 0.0)

    product(278, 7.0)
    text = product.compile_report(278, 7.0).wgsl if arch == ti.vulkan else ""
    result = out.to_numpy()
    ti.reset()
    return result, text


def test_a_spelled_out_zero_is_no_constant(device) -> None:  # noqa: ANN001
    """`(y * -inf) * (a - a)` is NaN for an integer `a` converted to f32: NVIDIA's driver (580,
    H100) proved the NaN arm of `select(0.0f, NaN, nonfinite(a))` dead (`a` is finite), then
    folded the product with the constant zero to 0 (the H100 campaign's kernel returned 0
    where the CPU returns 1: findings-2026-11-27/fixed_zero_folds_product.py). The zero is made
    from `ti_zero`'s bits now; lavapipe does not fold here, so the text is checked too."""
    (cpu, _), (gpu, text) = (
        _infinity_times_integer_difference(ti.cpu),
        (_infinity_times_integer_difference(ti.vulkan)),
    )
    assert np.isnan(cpu).all() and np.isnan(gpu).all()
    assert "select(bitcast<f32>(ti_zero), bitcast<f32>(" in text  # a - a
    assert "select(0.0f, bitcast<f32>(" not in text and "select(-0.0f," not in text


def _modulo_of_a_condition(arch) -> float:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def modulo() -> ti.f16:
        three = ti.abs(ti.cast(3.0, ti.f16))
        zero = ti.cast((ti.cast(100, ti.i64) << 127) != (ti.cast(100, ti.i64) << 127), ti.f16)
        return (three / (three - three)) % zero  # inf % 0

    result = float(modulo())
    ti.reset()
    return result


def test_a_float_made_of_a_constant_condition_is_a_constant(device) -> None:  # noqa: ANN001
    """`inf % f16(False)` is NaN: the H100 campaign's kernel gave inf (and 0) because the
    driver saw `select(0.0h, 1.0h, false)` and made `0 * floor(inf / 0)` 0."""
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    assert np.isnan(_modulo_of_a_condition(ti.cpu))
    assert np.isnan(_modulo_of_a_condition(ti.vulkan))


def _negated_constants(arch) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=6)

    @ti.kernel
    def negated(a: ti.f32):
        out[0] = ti.cast(-ti.cast(-0.001, ti.f16), ti.f32) + a
        out[1] = -ti.cast(-2.5, ti.f32) + a
        out[2] = ti.cast(-ti.cast(-7, ti.i32), ti.f32) + a
        out[3] = ti.cast(-ti.cast(-7, ti.i8), ti.f32) + a
        out[4] = ti.cast(-ti.cast(-0.0, ti.f16), ti.f32) + a
        out[5] = ti.cast(-ti.cast(-ti.math.inf, ti.f16), ti.f32) + a

    negated(0.0)
    result = out.to_numpy()
    ti.reset()
    return result


def test_negated_negative_constants_compile(device) -> None:  # noqa: ANN001
    """`-(-c)`: the emitter once wrote `(--0.001h)`, which naga reads as a decrement and
    refuses (the H200 float campaign's kernels, 12 of 5004)."""
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    cpu, gpu = _negated_constants(ti.cpu), _negated_constants(ti.vulkan)
    assert cpu[1] == 2.5 and cpu[2] == 7.0 and cpu[5] == np.inf  # computes what it says
    np.testing.assert_array_equal(gpu.view(np.uint32), cpu.view(np.uint32))
