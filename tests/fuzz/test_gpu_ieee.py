"""Regressions that GPU fuzzing of float kernels found: without fast_math the WebGPU back end
must keep the CPU's IEEE and C semantics where NaN, infinities and signed zeros meet comparisons,
casts, `pow` and the math functions (see tistudio/backends/webgpu/ieee.py)."""

from __future__ import annotations

import math
import os
import re

import numpy as np

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice, default_device
from tistudio.lang import impl

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 2.5, 1e30]
PAIRS = [(x, y) for x in SPECIAL for y in SPECIAL]


def _same(a: np.ndarray, b: np.ndarray, rtol: float = 0.0) -> bool:
    return bool(np.allclose(a, b, rtol=rtol, atol=0.0, equal_nan=True))


def _compare_kernel(arch, dtype):  # noqa: ANN001, ANN202
    ti.init(arch=arch, offline_cache=False, fast_math=False)
    xs = np.array([x for x, _ in PAIRS], dtype.numpy_name)
    ys = np.array([y for _, y in PAIRS], dtype.numpy_name)
    out = np.zeros((len(PAIRS), 9), np.int32)

    @ti.kernel
    def compare(
        a: ti.types.ndarray(ndim=1),
        b: ti.types.ndarray(ndim=1),
        o: ti.types.ndarray(dtype=ti.i32, ndim=2),
    ):
        for k in range(a.shape[0]):
            x, y = a[k], b[k]
            o[k, 0] = ti.cast(x < y, ti.i32)
            o[k, 1] = ti.cast(x <= y, ti.i32)
            o[k, 2] = ti.cast(x > y, ti.i32)
            o[k, 3] = ti.cast(x >= y, ti.i32)
            o[k, 4] = ti.cast(x == y, ti.i32)
            o[k, 5] = ti.cast(x != y, ti.i32)
            o[k, 6] = ti.cast(ti.cast(x, ti.u1), ti.i32)
            o[k, 7] = ti.cast(not x, ti.i32)
            o[k, 8] = ti.cast(ti.math.sign(x), ti.i32)

    compare(xs, ys, out)
    return out


def test_nan_comparisons_and_casts_to_bool_agree_on_cpu_and_gpu() -> None:
    """Found by GPU fuzzing of float kernels: lavapipe's `!=` is ordered, so `x != y` with a
    NaN was false (C, and the CPU: true), and `ti.cast(nan, ti.u1)` was 0, not 1; `if` on such
    a comparison took the other branch."""
    for dtype in (ti.f32, ti.f64):
        cpu = _compare_kernel(ti.cpu, dtype)
        nan_vs_one = PAIRS.index((math.nan, 1.0))
        assert cpu[nan_vs_one].tolist() == [0, 0, 0, 0, 0, 1, 1, 0, 0]
        assert (_compare_kernel(ti.vulkan, dtype) == cpu).all()


def _math(arch, dtype) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False, fast_math=False)
    xs = np.array([x for x, _ in PAIRS], dtype.numpy_name)
    ys = np.array([y for _, y in PAIRS], dtype.numpy_name)
    out = np.zeros((len(PAIRS), 5), dtype.numpy_name)

    @ti.kernel
    def functions(
        a: ti.types.ndarray(ndim=1),
        b: ti.types.ndarray(ndim=1),
        o: ti.types.ndarray(ndim=2),
    ):
        for k in range(a.shape[0]):
            x, y = a[k], b[k]
            o[k, 0] = x**y
            o[k, 1] = ti.atan2(x, y)
            o[k, 2] = ti.log(x)
            o[k, 3] = ti.exp(x)
            o[k, 4] = ti.tanh(x)

    functions(xs, ys, out)
    return out


def _libm(dtype) -> np.ndarray:  # noqa: ANN001
    """What C's libm gives (NumPy calls it), for the columns of `_math`."""
    xs = np.array([x for x, _ in PAIRS], dtype.numpy_name)
    ys = np.array([y for _, y in PAIRS], dtype.numpy_name)
    with np.errstate(all="ignore"):
        columns = [np.power(xs, ys), np.arctan2(xs, ys), np.log(xs), np.exp(xs), np.tanh(xs)]
    return np.stack(columns, axis=1)


def test_pow_atan2_and_f64_math_of_nan_and_infinities_follow_c_on_the_gpu() -> None:
    """Found by GPU fuzzing of float kernels: WGSL's `pow` is undefined where C's is not, and
    the GPU gave NaN for `1 ** nan`, `1 ** inf` and 0 for `0 ** -1` (C: 1, 1, inf); `atan2`
    gave pi/2 for `atan2(nan, 0)` and 0 for `atan2(0, -0)` (C: NaN, pi); the f64 `log` and
    `tanh` (written in WGSL) tested NaN with `x != x`, which lavapipe folds to false, and
    gave 710 and 1 for NaN."""
    for dtype, rtol in ((ti.f32, 3e-5), (ti.f64, 1e-13)):
        libm = _libm(dtype)
        cpu, gpu = _math(ti.cpu, dtype), _math(ti.vulkan, dtype)
        assert _same(cpu, libm, rtol)
        for column in range(libm.shape[1]):
            assert _same(gpu[:, column], libm[:, column], rtol), column


def test_nan_tests_in_every_mode() -> None:
    """The floating-point contract never assumes values are not NaN: with Taichi's default
    fast_math too, NaN compares as in C (the guards were only emitted without fast_math, and
    a driver was free to answer 0 here). `fast_math` only leaves large f32 trig arguments to
    the driver's functions."""
    texts = []
    for fast_math in (True, False):
        ti.init(arch=ti.vulkan, offline_cache=False, fast_math=fast_math)

        @ti.kernel
        def differ(x: ti.f32, y: ti.f32) -> ti.i32:
            return ti.cast(x != y, ti.i32) + ti.cast(x < 1.0, ti.i32)

        @ti.kernel
        def wave(x: ti.f32) -> ti.f32:
            return ti.sin(x)

        assert differ(math.nan, 1.0) == 1
        assert differ(math.nan, math.nan) == 1
        wave(1.0)
        texts.append((differ.instances()[0].result.executable.wgsl, wave.instances()[0]))
    for wgsl, _ in texts:
        assert "nan_f32(args.a0) || nan_f32(args.a1)" in wgsl
        assert re.search(r"< c\d+ && !nan_f32\(args.a0\)\)", wgsl)  # a constant is not NaN
    (_, fast_wave), (_, ieee_wave) = texts
    assert "ti_sin_ieee_f32" not in fast_wave.result.executable.wgsl
    if default_device().caps.has("shader-f64"):
        assert "ti_sin_ieee_f32" in ieee_wave.result.executable.wgsl


def test_f64_sin_and_cos_of_huge_arguments_on_the_gpu() -> None:
    """Found while probing the values that float fuzzing feeds kernels: the GPU's f64 `sin`
    (written in WGSL) reduced its argument by pi/2 in three 33-bit parts, exact only below
    about 2^20, so `ti.sin(1e30)` was 2e263; above 2^20 the reduction is now Payne and
    Hanek's, with 2/pi to 1184 bits."""
    rng = np.random.default_rng(7)
    xs = 10.0 ** rng.uniform(0, 308, 500) * rng.choice([-1.0, 1.0], 500)
    worst = 6381956970095103 * 2.0**797  # the double closest to a multiple of pi/2
    xs = np.concatenate([xs, [2.0**20, -(2.0**20), 1e22, worst, -worst, np.finfo(float).max]])
    ti.init(arch=ti.vulkan, offline_cache=False, fast_math=False)
    out = np.zeros((len(xs), 2))

    @ti.kernel
    def sin_cos(a: ti.types.ndarray(dtype=ti.f64, ndim=1), o: ti.types.ndarray(ndim=2)):
        for k in range(a.shape[0]):
            o[k, 0] = ti.sin(a[k])
            o[k, 1] = ti.cos(a[k])

    sin_cos(xs, out)
    assert np.allclose(out[:, 0], np.sin(xs), rtol=1e-14, atol=1e-300)
    assert np.allclose(out[:, 1], np.cos(xs), rtol=1e-14, atol=1e-300)


def test_raw_mod_of_floats_is_exact_fmod_on_the_gpu() -> None:
    """Found while probing the values that float fuzzing feeds kernels: WGSL's `%` on floats
    is `x - y * trunc(x / y)` with a rounded quotient, so `ti.raw_mod(1.0, 0.1)` was 0 on the
    GPU (C's fmod, and the CPU: 0.09999999), `ti.raw_mod(1e30, 3.0)` 0, and `x % inf` NaN
    (C: x). The result must be bit for bit C's, signs of zeros included."""
    rng = np.random.default_rng(11)
    for dtype, top in ((ti.f32, 38), (ti.f64, 308)):
        n = 400
        ab = 10.0 ** rng.uniform(-top - 6, top, (2, n)) * rng.choice([-1.0, 1.0], (2, n))
        xs = np.concatenate([[x for x, _ in PAIRS], ab[0]]).astype(dtype.numpy_name)
        ys = np.concatenate([[y for _, y in PAIRS], ab[1]]).astype(dtype.numpy_name)
        ti.init(arch=ti.vulkan, offline_cache=False, fast_math=False)
        out = np.zeros_like(xs)

        @ti.kernel
        def fmod(
            a: ti.types.ndarray(ndim=1), b: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=1)
        ):
            for k in range(a.shape[0]):
                o[k] = ti.raw_mod(a[k], b[k])

        fmod(xs, ys, out)
        with np.errstate(invalid="ignore"):
            libm = np.fmod(xs, ys)
        if _flushes_subnormals(dtype):  # WGSL allows it, NVIDIA does for f32: see the contract
            normal = ~(_subnormal(xs) | _subnormal(ys) | _subnormal(libm))
            xs, ys, out, libm = xs[normal], ys[normal], out[normal], libm[normal]
        assert np.array_equal(out, libm, equal_nan=True)
        numbers = ~np.isnan(libm)  # a NaN's sign means nothing
        assert np.array_equal(np.signbit(out[numbers]), np.signbit(libm[numbers]))


def _subnormal(x: np.ndarray) -> np.ndarray:
    return (x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)


def _flushes_subnormals(dtype) -> bool:  # noqa: ANN001
    """Whether the GPU flushes `dtype`'s subnormal values to zero (NVIDIA does for f32)."""
    ti.init(arch=ti.vulkan, offline_cache=False)
    tiny = np.array([np.finfo(dtype.numpy_name).tiny / 4], dtype.numpy_name)
    out = np.zeros_like(tiny)

    @ti.kernel
    def halve(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=1)):
        for k in range(1):
            o[k] = a[k] * 0.5

    halve(tiny, out)
    return bool(out[0] == 0)


def test_f64_round_and_casts_to_u32_of_large_values_on_the_gpu() -> None:
    """Found through test_out_of_range_float_to_int_casts_saturate_alike_on_cpu_and_gpu,
    which failed on lavapipe: its f64 `trunc` returns its argument unchanged from 2^31 on,
    so `ti.round(-2147483648.5)` was -2147483648.5 (CPU: -2147483649) and
    `ti.cast(-2147483648.5, ti.u32)` 2147483647 (CPU, through i64: 2147483648); f64 code
    now truncates by floor or ceil."""
    xs = np.array([-2147483648.5, -2147483649.5, 2147483648.5, -3e9 - 0.5, 5e9 + 0.5, -1e15 - 0.5])
    ti.init(arch=ti.vulkan, offline_cache=False)
    rounded, wrapped = np.zeros_like(xs), np.zeros(len(xs), np.int64)

    @ti.kernel
    def round_and_cast(
        a: ti.types.ndarray(dtype=ti.f64, ndim=1),
        r: ti.types.ndarray(dtype=ti.f64, ndim=1),
        u: ti.types.ndarray(dtype=ti.i64, ndim=1),
    ):
        for k in range(a.shape[0]):
            r[k] = ti.round(a[k])
            u[k] = ti.cast(ti.cast(a[k], ti.u32), ti.i64)

    round_and_cast(xs, rounded, wrapped)
    assert rounded.tolist() == (np.sign(xs) * np.floor(np.abs(xs) + 0.5)).tolist()
    assert wrapped.tolist() == (np.trunc(xs).astype(np.int64) % 2**32).tolist()


_WIDE = [
    0.0,
    -0.0,
    0.7,
    -0.7,
    3e9,
    -3e9,
    1e10,
    -1e10,
    2.0**32,
    2.0**32 - 256,
    123456789012.75,
    -98765432109.5,
    2.0**53 + 2,
    9.2e18,
    -9.2e18,
    2.0**63,
    -(2.0**63),
    2.0**64,
    1.8e19,
    -1e30,
    1e30,
    math.inf,
    -math.inf,
    math.nan,
]


@ti.kernel
def _to_wide_ints(x: ti.types.ndarray(), u: ti.types.ndarray(), i: ti.types.ndarray()):
    for k in range(x.shape[0]):
        u[k] = ti.cast(x[k], ti.u64)
        i[k] = ti.cast(x[k], ti.i64)


def test_casts_to_64_bit_integers_of_large_values_on_the_gpu() -> None:
    """The H100 float campaign (2026-11-27): f32 1e10 cast to u64 gave 2^32 - 1 on NVIDIA's
    driver (the kernel's result 0 instead of 32). The shader converts from the two 32-bit
    halves; every value here, saturating ones and NaN included, as on the CPU."""
    results = []
    for arch in (ti.cpu, ti.vulkan):
        ti.init(arch=arch, offline_cache=False)
        for dtype in (np.float32, np.float64):
            xs = np.array(_WIDE, dtype)
            u, i = np.zeros(len(xs), np.uint64), np.zeros(len(xs), np.int64)
            _to_wide_ints(xs, u, i)
            results.append((u, i))
    for (u_cpu, i_cpu), (u_gpu, i_gpu) in zip(results[:2], results[2:]):
        assert u_cpu[_WIDE.index(1e10)] == 10**10 and i_cpu[_WIDE.index(-1e10)] == -(10**10)
        np.testing.assert_array_equal(u_gpu, u_cpu)
        np.testing.assert_array_equal(i_gpu, i_cpu)


@ti.kernel
def _bool_times(x: ti.types.ndarray(), o: ti.types.ndarray()):
    for k in range(x.shape[0]):
        o[k, 0] = ti.cast(x[k] > x[k], ti.f16) * ti.cast(x[k], ti.f16)  # 0.0 * x


def test_a_float_made_of_a_comparison_times_infinity_is_nan_on_the_gpu() -> None:
    """The H100 float campaign (2026-11-27), on lavapipe too: `ti.cast(c, ti.f16) * x` for a
    false `c` and an infinite `x` gave -0.0 (the cast was `select(0.0h, 1.0h, c)`, a zero
    the driver multiplied away), where the CPU gives NaN."""
    cpu, gpu = _on_cpu_and_gpu(_bool_times, ti.f32)
    assert np.isnan(cpu[SPECIAL.index(math.inf), 0])
    _assert_same_values_and_zero_signs(cpu[:, 0], gpu[:, 0])


def _on_cpu_and_gpu(kernel, dtype, values=SPECIAL) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """`kernel(values as dtype, out)` without fast_math on the CPU, then on the GPU: the two
    `out`s (one row per value, four columns)."""
    outs = []
    for arch in (ti.cpu, ti.vulkan):
        ti.init(arch=arch, offline_cache=False, fast_math=False)
        xs = np.array(values, dtype.numpy_name)
        out = np.zeros((len(xs), 4), dtype.numpy_name)
        kernel(xs, out)
        outs.append(out)
    return outs[0], outs[1]


def _assert_same_values_and_zero_signs(cpu: np.ndarray, gpu: np.ndarray) -> None:
    assert np.array_equal(gpu, cpu, equal_nan=True)
    numbers = ~np.isnan(cpu)
    assert np.array_equal(np.signbit(gpu[numbers]), np.signbit(cpu[numbers]))


@ti.kernel
def _times_zero(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 0] = x * 0.0
        o[k, 1] = -0.0 * x
        o[k, 2] = x - x
        o[k, 3] = x - ti.floor(x / 0.0) * 0.0  # Python's x % 0.0, as the fuzzer found it


def test_times_zero_and_x_minus_x_keep_nan_on_the_gpu() -> None:
    """Found by GPU fuzzing of float kernels: lavapipe folds `x * 0.0` and `x - x` to 0, so
    for an infinite or NaN x they gave 0 where the CPU gives NaN (`s7 % 0.0` returned 0.0
    instead of NaN); the signs of the zeros must match too."""
    for dtype in (ti.f32, ti.f64):
        cpu, gpu = _on_cpu_and_gpu(_times_zero, dtype)
        assert np.isnan(cpu[1]).all()  # inf
        _assert_same_values_and_zero_signs(cpu, gpu)


@ti.kernel
def _zero_divided(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 0] = 0.0 / x
        o[k, 1] = -0.0 / x
        o[k, 2] = ti.abs(0.0 * -2.25) // x  # folded to `0.0 // x`, as the fuzzer found it
        o[k, 3] = x / x


def test_zero_divided_keeps_nan_on_the_gpu() -> None:
    """Found by a GPU fuzzing campaign (`python -m tests.fuzz.campaign --examples 1500 --gpu`):
    lavapipe folds `0.0 / x` to 0, so `0.0 / 0.0` and `0.0 / nan` gave 0 where the CPU gives
    NaN (`-0.0 / x` was computed); the signs of the zeros must match too."""
    for dtype in (ti.f32, ti.f64):
        cpu, gpu = _on_cpu_and_gpu(_zero_divided, dtype)
        assert np.isnan(cpu[SPECIAL.index(0.0), 0])
        _assert_same_values_and_zero_signs(cpu, gpu)


@ti.kernel
def _divided_by_zero(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 0] = x / 0.0
        o[k, 1] = x / -0.0
        o[k, 2] = x // 0.0
        o[k, 3] = ti.cos(x) // ti.cast(False, ti.f32)  # the shape a GPU campaign once flagged


def test_division_by_zero_gives_the_cpus_infinities_and_nans_on_the_gpu() -> None:
    """A GPU fuzzing campaign (2026-11-24) once reported `cos(-1.5) // cast(False, f32)` as inf
    on the CPU and NaN on the GPU; its kernel was not kept and 4500 GPU kernels since (3000 of
    them float-only) did not find it again. This pins division by a constant zero for every
    special value: signed infinities, NaN for 0 / 0 and NaN inputs, as on the CPU."""
    for dtype in (ti.f32, ti.f64):
        cpu, gpu = _on_cpu_and_gpu(_divided_by_zero, dtype)
        assert cpu[SPECIAL.index(1.0), 0] == math.inf and cpu[SPECIAL.index(1.0), 1] == -math.inf
        assert np.isnan(cpu[SPECIAL.index(0.0), 0]) and np.isnan(cpu[SPECIAL.index(0.0), 2])
        _assert_same_values_and_zero_signs(cpu, gpu)


@ti.kernel
def _divided_by_nan(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 0] = x / ((x * (x - x)) - (x * (x - x)))  # the H200 campaign's return value
        o[k, 1] = x / (x - x)
        o[k, 2] = 1.0 / (x * 0.0)
        o[k, 3] = x / x


@ti.kernel
def _divided_by_nan_serial(x: ti.f64) -> ti.f64:
    v4 = x
    v4 //= 0.0  # +-inf
    return v4 / ((v4 * (v4 - v4)) - (v4 * (v4 - v4)))  # inf * NaN: NaN, so NaN


def test_division_by_a_nan_is_nan_on_the_gpu() -> None:
    """The H200 float campaign (2026-11-27): `v4 / ((v4 * (v4 - v4)) - (v4 * (v4 - v4)))` with
    v4 = inf gave inf on the GPU, NaN on the CPU: `v4 * (v4 - v4)` was 0, the driver taking
    the NaN of `v4 - v4` (`select(0.0, NaN, nonfinite(v4))`) for 0 where the NaN constant was
    `select(NaN bits, 0, ti_never)` (see wgsl.opaque_bits). The shader must not test a divisor
    for zero with a float comparison either (a NaN may pass it)."""
    for dtype in (ti.f32, ti.f64):
        cpu, gpu = _on_cpu_and_gpu(_divided_by_nan, dtype)
        assert np.isnan(cpu[SPECIAL.index(math.inf), 0])
        _assert_same_values_and_zero_signs(cpu, gpu)
    for arch in (ti.cpu, ti.vulkan):  # serial, as the campaign's: NVIDIA gave inf here
        ti.init(arch=arch, offline_cache=False, fast_math=False)
        assert math.isnan(_divided_by_nan_serial(2.0)), arch
        assert math.isnan(_divided_by_nan_serial(-2.0)), arch
    ti.init(arch=ti.vulkan, offline_cache=False, fast_math=False)
    xs, out = np.ones(4, np.float32), np.zeros((4, 4), np.float32)
    wgsl = _divided_by_nan.compile_report(xs, out).wgsl
    assert not re.search(r"== 0\.0f\)", wgsl), "a divisor tested for zero as a float"


@ti.kernel
def _cancellations(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 0] = x + (-x)
        o[k, 1] = (x + 1.0) - x  # Kahan summation's correction term has this shape
        o[k, 2] = (-x) + x
        o[k, 3] = (x - 0.5) + (0.5 - x)


def test_cancellations_are_computed_not_folded_on_the_gpu() -> None:
    """Found while checking what else lavapipe folds after `x * 0.0`: it cancels `x + (-x)`
    to 0 and `(x + 1.0) - x` to 1.0, so infinities gave 0 instead of NaN and `(1e30 + 1.0)
    - 1e30` gave 1.0 instead of 0.0; negation now flips the sign bit, which it cannot see
    through."""
    cpu, gpu = _on_cpu_and_gpu(_cancellations, ti.f32)
    assert cpu[SPECIAL.index(1e30), 1] == 0.0
    assert np.array_equal(gpu, cpu, equal_nan=True)


@ti.kernel
def _constants(a: ti.types.ndarray(ndim=1), o: ti.types.ndarray(ndim=2)):
    o[0, 0] = (a[0] + 1e30) - 1e30  # a serial task as well as the parallel one below
    for k in range(a.shape[0]):
        x = a[k]
        o[k, 1] = (x * 1e30) * 1e-30
        o[k, 2] = (x + 1e30) + (-1e30)
        o[k, 3] = (x * 3.0) * 0.1


def test_constants_are_not_reassociated_on_the_gpu() -> None:
    """Found while checking what else lavapipe folds after `x * 0.0`: it reassociates
    constants, so `(x + 1e30) - 1e30` gave x (CPU: 0), `(x * 1e30) * 1e-30` gave x for
    x = 1e10 (CPU: inf) and `(x * 3.0) * 0.1` was x * 0.3, rounded differently; finite
    constants are now values the driver cannot know (ieee.opaque)."""
    values = [1.0, 1e10, 3.0, 0.7, math.inf, math.nan]
    cpu, gpu = _on_cpu_and_gpu(_constants, ti.f32, values)
    assert cpu[0, 0] == 0.0 and cpu[1, 1] == math.inf
    assert np.array_equal(gpu, cpu, equal_nan=True)


def _sin_f32(xs: np.ndarray, device: GpuDevice | None = None) -> np.ndarray:
    ti.init(arch=ti.vulkan, offline_cache=False, fast_math=False)
    if device is not None:
        impl.get_program().use_gpu(device)
    out = np.zeros(len(xs), np.float32)

    @ti.kernel
    def sin(a: ti.types.ndarray(dtype=ti.f32, ndim=1), o: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for k in range(a.shape[0]):
            o[k] = ti.sin(a[k])

    sin(xs, out)
    return out


def test_f32_sin_of_huge_arguments_on_the_gpu() -> None:
    """Found while probing the values that float fuzzing feeds kernels: lavapipe's f32 `sin`
    (WGSL promises accuracy on [-pi, pi] only) was off by up to 2 from 2^20 on, where the
    CPU's libm is exact: without fast_math such arguments go through the f64 functions where
    the adapter has f64, and an adapter without it still compiles the kernel."""
    xs = (10.0 ** np.linspace(0, 38, 300)).astype(np.float32)
    assert np.allclose(_sin_f32(xs), np.sin(xs.astype(np.float64)), rtol=0, atol=2e-7)
    no_f64 = GpuDevice.open(disable=frozenset({"shader-f64"}))
    # without f64 the driver's sin serves: WGSL promises 2^-11 on [-pi, pi] only (lavapipe is
    # exact below 2^20, NVIDIA is not), and a value in [-1, 1] elsewhere
    small = xs[xs < 1e5]
    got, want = _sin_f32(small, no_f64), np.sin(small.astype(np.float64))
    inside = small <= np.pi
    assert np.allclose(got[inside], want[inside], rtol=0, atol=2.0**-11)
    assert (np.abs(got) <= 1).all()
