"""The reference IR interpreter: operator semantics at the edges, and whole kernels vs the CPU."""

from __future__ import annotations

import math

import numpy as np

import tistudio as ti
from tistudio.ir import interpreter_ops as ops
from tistudio.ir.interpreter import interpret
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.types import f32, f64, i8, i32, u8, u32, u64
from tistudio.lang import impl


def test_division_never_traps() -> None:
    assert ops.binary(B.div, i32, 7, 0) == 0
    assert ops.binary(B.mod, i32, 7, 0) == 0
    assert ops.binary(B.div, i32, -(2**31), -1) == 0
    assert ops.binary(B.div, i32, -7, 2) == -3  # C truncates
    assert ops.binary(B.floordiv, i32, -7, 2) == -4  # Python rounds down
    assert ops.binary(B.floordiv, i8, -128, -1) == 0


def test_integers_wrap_and_shifts_take_the_amount_modulo_the_width() -> None:
    assert ops.binary(B.add, u8, 200, 100) == 44
    assert ops.binary(B.mul, i8, 100, 3) == 44
    assert ops.binary(B.bit_shl, i32, 1, 33) == 2
    assert ops.binary(B.bit_sar, i8, -128, 1) == -64
    assert ops.binary(B.pow, i32, 3, -1) == 0
    assert ops.binary(B.pow, i32, -1, -3) == -1


def test_float_to_int_casts_saturate() -> None:
    assert ops.cast_value(1e30, f32, i32) == 2**31 - 1
    assert ops.cast_value(-1.0, f32, u8) == 255  # through i32, then wrapped
    assert ops.cast_value(-5.0, f64, u64) == 0
    assert ops.cast_value(math.nan, f32, i32) == 0
    assert ops.cast_value(5e9, f64, u32) == 5_000_000_000 % 2**32


def test_float_semantics() -> None:
    assert ops.unary(U.round, f32, f32, 2.5) == 3.0  # half away from zero
    assert ops.unary(U.round, f32, f32, -2.5) == -3.0
    assert ops.binary(B.max, f32, math.nan, 1.0) == 1.0  # maxnum
    assert ops.binary(B.cmp_ne, f32, math.nan, math.nan) is True
    assert ops.binary(B.cmp_eq, f32, math.nan, math.nan) is False
    assert ops.binary(B.add, f32, 0.1, 0.2) == float(np.float32(0.1) + np.float32(0.2))


def _final_ir(kernel, *args):  # noqa: ANN001, ANN202
    return kernel.compile_report(*args).result.final_ir


def test_kernel_with_fields_ndarrays_reductions_and_returns_matches_the_cpu() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.i32, shape=(4, 3))
    v = ti.Vector.field(2, dtype=ti.f32, shape=5)

    @ti.kernel
    def k(a: ti.i32, arr: ti.types.ndarray(dtype=ti.f64, ndim=1)) -> ti.i64:
        total = ti.cast(0, ti.i64)
        for i, j in x:
            x[i, j] = i * a - j
            total += x[i, j]
        for i in range(arr.shape[0]):
            arr[i] = ti.sqrt(arr[i]) + a // 3
            v[i % 5] += ti.Vector([1.0, ti.cast(i, ti.f32)])
        n = 0
        while n * n < a:
            n += 1
        return total * 100 + n

    arr = np.arange(6, dtype=np.float64)
    ir = _final_ir(k, 7, arr)
    program = impl.get_program()
    trees = [t.buffer.copy() for t in program.trees]
    expected_arr = arr.copy()
    returned = interpret(ir, [7, expected_arr], trees)
    assert returned == [k(7, arr)]
    assert np.array_equal(expected_arr, arr)
    for tree, buffer in zip(program.trees, trees):
        assert np.array_equal(tree.buffer, buffer)
