"""Generated kernels on the GPU (lavapipe), in debug mode and on the CPU's two tiers against the
CPU, CI budget, and the regressions that these comparisons found (float ones on the GPU in
test_gpu_ieee.py)."""

from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import given, settings

import tistudio as ti
from tests.fuzz.generator import Array, Program, programs
from tests.fuzz.harness import run_program
from tests.fuzz.test_fuzz import CI
from tests.fuzz.tiers import run_tiers
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


@settings(CI, max_examples=20)
@given(programs())
def test_random_kernels_give_the_same_bits_on_both_cpu_tiers(program: Program) -> None:
    """The quick and the optimised tier (tiers.py), with Taichi's default `fast_math=True` and
    without it: every bit, NaN payloads aside."""
    run_tiers(program, fast_math=True)
    run_tiers(program, fast_math=False)


ISSUE_25 = """def make(ti):
    a = ti.field(ti.f32, shape=(1000,))
    b = ti.field(ti.f32, shape=(1000,))
    c = ti.field(ti.f32, shape=(1000,))
    h = ti.field(ti.f16, shape=(1000,))

    @ti.kernel
    def kern():
        for i in range(1000):
            c[i] = a[i] * b[i] + c[i]
            b[i] = b[i] / (b[i] - b[i])
            h[i] = h[i] - ti.cast(a[i], ti.f16) * ti.cast(3, ti.f16)

    return kern, [a, b, c, h]
"""


def test_issue_25_kernels_give_numpys_bits_on_both_tiers_with_fast_math() -> None:
    """Found by hand (#25), missed by the fuzzer then: with the default `fast_math=True`, the
    optimised tier fused `a * b + c` into an FMA (the quick tier did not), `x / (x - x)` on a
    field left the field unchanged (`nnan`/`ninf` let LLVM fold it), and f16 `h - a * 3` skipped
    the rounding to f16 between `*` and `-` (on a CPU with F16C and AVX-512-FP16)."""
    shape = (1000,)
    arrays = [Array(name, "f32", shape) for name in "abc"] + [Array("h", "f16", shape)]
    program = Program(ISSUE_25, arrays, [], None, True, data_seed=25)
    run_program(program, fast_math=True)
    run_tiers(program, fast_math=True)


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


def _f16_casts(arch) -> list[tuple[int, ...]]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False, fast_math=False)
    values = np.array([math.inf, -math.inf, math.nan, 65504.0, -300.5, 3.7], np.float16)
    out = np.zeros((len(values), 5), np.int64)

    @ti.kernel
    def casts(a: ti.types.ndarray(dtype=ti.f16, ndim=1), o: ti.types.ndarray(dtype=ti.i64, ndim=2)):
        for k in range(a.shape[0]):
            o[k, 0] = ti.cast(ti.cast(a[k], ti.i8), ti.i64)
            o[k, 1] = ti.cast(ti.cast(a[k], ti.u8), ti.i64)
            o[k, 2] = ti.cast(ti.cast(a[k], ti.i32), ti.i64)
            o[k, 3] = ti.cast(ti.cast(a[k], ti.u32), ti.i64)
            o[k, 4] = ti.cast(a[k], ti.i64)

    casts(values, out)
    return [tuple(row) for row in out.tolist()]


def test_f16_casts_to_integers_saturate_alike_on_cpu_and_gpu() -> None:
    """Found by GPU fuzzing once the generator drew f16: the GPU converted -inf in f16 as if it
    were f16's lowest finite value (`i32(-inf)` was -65504, `i8(-inf)` 32), where the CPU
    saturates to the integer's minimum (as for f32, `_casts` above)."""
    cpu = _f16_casts(ti.cpu)
    assert cpu[0] == (-1, 255, 2**31 - 1, 2**32 - 1, 2**63 - 1)
    assert cpu[1] == (0, 0, -(2**31), 0, -(2**63))
    assert cpu[2] == (0,) * 5
    assert _f16_casts(ti.vulkan) == cpu


def _quotient_of_a_difference(arch) -> list[float]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False, fast_math=False)
    out = np.zeros(3, np.float32)

    @ti.kernel
    def quotient(
        a: ti.types.ndarray(dtype=ti.f32, ndim=1), o: ti.types.ndarray(dtype=ti.f32, ndim=1)
    ):
        for k in range(a.shape[0]):
            o[k] = ti.cast(a[k], ti.i32) / (ti.cast(a[k], ti.i32) - ti.cast(a[k], ti.i32))

    quotient(np.array([9.3, -2.0, 0.0], np.float32), out)
    return ["nan" if math.isnan(v) else v for v in out.tolist()]


def test_an_integer_divided_by_its_difference_with_itself_is_ieee_on_the_gpu() -> None:
    """Found by GPU fuzzing of `x / (x - x)` (equal operands): with `x` an i32 loaded three
    times, lavapipe folds `x - x` to 0 and then `f32(x) / 0.0` to 0, where the CPU (and the GPU
    when `x` is a local) give the infinity: `ti.cast(x / (x - x), ti.i32) % 7` chose another
    element; `0 / (0 - 0)` gave 0, not NaN."""
    cpu = _quotient_of_a_difference(ti.cpu)
    assert cpu == [math.inf, -math.inf, "nan"]
    assert _quotient_of_a_difference(ti.vulkan) == cpu
