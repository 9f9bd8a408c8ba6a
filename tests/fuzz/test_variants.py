"""Generated kernels on the GPU (lavapipe) and in debug mode against the CPU, CI budget, and the
regressions that this comparison found (float ones in test_gpu_ieee.py)."""

from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import given, settings

import tistudio as ti
from tests.fuzz.generator import Program, programs
from tests.fuzz.test_fuzz import CI
from tests.fuzz.variants import run_variants

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@settings(CI, max_examples=12)
@given(programs(floats=False))
def test_random_integer_kernels_agree_on_the_gpu(program: Program) -> None:
    run_variants(program, gpu=True, debug=False)


@settings(CI, max_examples=100)
@given(programs(floats=True))
def test_random_float_kernels_agree_on_the_gpu(program: Program) -> None:
    """NaN and infinities included (harness.random_values), to WGSL's accuracy
    (variants.gpu_tolerance)."""
    run_variants(program, gpu=True, debug=False)


@settings(CI, max_examples=15)
@given(programs())
def test_random_kernels_agree_in_debug_mode(program: Program) -> None:
    run_variants(program, gpu=False, debug=True)


def _casts(arch, values: list[float]) -> list[tuple[int, ...]]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = np.zeros((len(values), 7), np.int64)

    @ti.kernel
    def casts(a: ti.types.ndarray(dtype=ti.f64, ndim=1), o: ti.types.ndarray(dtype=ti.i64, ndim=2)):
        for k in range(a.shape[0]):
            x = ti.cast(a[k], ti.f32)
            o[k, 0] = ti.cast(ti.cast(x, ti.i8), ti.i64)
            o[k, 1] = ti.cast(ti.cast(x, ti.u8), ti.i64)
            o[k, 2] = ti.cast(ti.cast(x, ti.i32), ti.i64)
            o[k, 3] = ti.cast(ti.cast(x, ti.u32), ti.i64)
            o[k, 4] = ti.cast(x, ti.i64)
            o[k, 5] = ti.cast(ti.cast(a[k], ti.u32), ti.i64)
            o[k, 6] = ti.cast(a[k], ti.i64)

    casts(np.array(values, np.float64), out)
    return [tuple(row) for row in out.tolist()]


def test_out_of_range_float_to_int_casts_saturate_alike_on_cpu_and_gpu() -> None:
    """Found by GPU fuzzing: WGSL's conversions stop at the largest float below the integer's
    maximum (i32(1e30f) == 2147483520) and its NaN results vary; the CPU saturates to the
    maximum, gives 0 for NaN and wraps u32 through i64."""
    values = [1e30, -1e30, 3e9, -3e9, 1e10, -1e10, math.nan, -3.7, 300.5, 2.0**64, 2.0**63]
    values += [-2147483648.5, 4294967295.7, 9.2e18, 2.0**31, -(2.0**31)]
    cpu = _casts(ti.cpu, values)
    assert cpu[0] == (-1, 255, 2**31 - 1, 2**32 - 1, 2**63 - 1, 2**32 - 1, 2**63 - 1)
    assert cpu[6] == (0,) * 7
    assert _casts(ti.vulkan, values) == cpu


def _divide_by_zero(arch) -> list[float]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False, fast_math=False)

    @ti.kernel
    def quotients(a: ti.f32, i: ti.i32) -> ti.types.vector(4, ti.f64):
        zero = 0
        return ti.Vector([a / 0.0, ti.cast(a, ti.f64) / -0.0, i / zero, ti.cast(i / zero, ti.i32)])

    return [float(v) for a, i in ((3.0, 5), (-3.0, -5), (0.0, 0)) for v in quotients(a, i)]


def test_division_by_a_constant_zero_is_ieee_on_cpu_and_gpu() -> None:
    """Found by GPU fuzzing: lavapipe folded `x / 0.0` with a constant zero to 0 (the CPU and a
    zero known only at run time give the infinity), so `ti.cast(i / 0, ti.i32)` was 0, not
    2147483647."""
    cpu = _divide_by_zero(ti.cpu)
    assert cpu[:4] == [math.inf, -math.inf, math.inf, 2**31 - 1]
    gpu = _divide_by_zero(ti.vulkan)
    assert [("nan" if math.isnan(v) else v) for v in gpu] == [
        ("nan" if math.isnan(v) else v) for v in cpu
    ]
