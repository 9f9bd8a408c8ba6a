"""ti.static for loops: break/continue decided at compile time, ti.grouped(ti.ndrange(...))
unrolled, and ndrange's argument errors, each checked against what Taichi 1.7.4 does."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import tistudio as ti
from tests.frontend.util import frontend_ir
from tistudio.ir import print_ir, verify
from tistudio.passes import lower_ast
from tistudio.passes.context import PassContext


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_static_break_cuts_the_unrolled_iterations() -> None:
    x = ti.field(ti.i32, 6)

    @ti.kernel
    def k():
        for i in ti.static(range(6)):
            x[i] = 1
            if ti.static(i == 3):
                break
            x[i] = 2  # not reached in the iteration that breaks

    k()
    np.testing.assert_array_equal(x.to_numpy(), [2, 2, 2, 1, 0, 0])


def test_static_continue_skips_the_rest_of_one_iteration() -> None:
    x = ti.field(ti.i32, 5)

    @ti.kernel
    def k():
        for i in ti.static(range(5)):
            if ti.static(i % 2 == 1):
                continue
            x[i] = 7

    k()
    np.testing.assert_array_equal(x.to_numpy(), [7, 0, 7, 0, 7])


def test_break_leaves_only_the_innermost_static_loop() -> None:
    x = ti.field(ti.i32, 9)

    @ti.kernel
    def k():
        for _i in range(1):  # a run-time loop around: its own break is a run-time break
            for a in ti.static(range(3)):
                for b in ti.static(range(3)):
                    if ti.static(b > a):
                        break
                    x[a * 3 + b] += 1

    k()
    np.testing.assert_array_equal(x.to_numpy(), [1, 0, 0, 1, 1, 0, 1, 1, 1])


def test_break_in_a_static_if_else_branch() -> None:
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def k():
        for i in ti.static(range(4)):
            if ti.static(i == 1):
                x[i] = 5
            else:
                if ti.static(i == 2):
                    break
            x[i] += 1

    k()
    np.testing.assert_array_equal(x.to_numpy(), [1, 6, 0, 0])


def test_static_loop_exit_under_a_runtime_if_is_refused() -> None:
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def breaks(n: ti.i32):
        for i in ti.static(range(4)):
            if i == n:
                break
            x[i] = 1

    @ti.kernel
    def continues(n: ti.i32):
        for i in ti.static(range(4)):
            if i == n:
                continue
            x[i] = 1

    with pytest.raises(ti.TaichiSyntaxError, match="`break` statement is inside a non-static"):
        breaks(2)
    with pytest.raises(ti.TaichiSyntaxError, match="`continue` statement is inside a non-stat"):
        continues(2)


def test_runtime_break_in_a_runtime_loop_inside_a_static_loop() -> None:
    x = ti.field(ti.i32, 3)

    @ti.kernel
    def k(n: ti.i32):
        for j in ti.static(range(3)):
            ti.loop_config(serialize=True)
            for i in range(10):
                if i == n + j:
                    break
                x[j] += 1

    k(2)
    np.testing.assert_array_equal(x.to_numpy(), [2, 3, 4])


def test_static_grouped_ndrange_gives_constant_index_vectors() -> None:
    x = ti.field(ti.i32, shape=(4, 3))
    m = ti.Matrix.field(2, 3, ti.i32, shape=2)

    @ti.kernel
    def k():
        for index in ti.static(ti.grouped(ti.ndrange((1, 3), 3))):
            x[index] = index[0] * 10 + index[1]
        for i in range(2):
            for e in ti.static(ti.grouped(ti.ndrange(2, 3))):
                m[i][e] = ti.static(e[0] * 3 + e[1]) + i * 100

    k()
    want = np.zeros((4, 3), np.int32)
    want[1:3] = [[10, 11, 12], [20, 21, 22]]
    np.testing.assert_array_equal(x.to_numpy(), want)
    np.testing.assert_array_equal(m.to_numpy()[1], np.arange(6).reshape(2, 3) + 100)


def test_ndrange_errors_use_taichis_words() -> None:
    @ti.kernel
    def three():
        for _i in ti.ndrange((1, 2, 3)):
            pass

    @ti.kernel
    def floats():
        for _i in ti.ndrange((0, 2.5)):
            pass

    @ti.kernel
    def static_floats():
        for _i in ti.static(ti.ndrange(0.5, 2)):
            pass

    @ti.kernel
    def too_few_variables():
        for _i in ti.ndrange(2, 2):
            pass

    with pytest.raises(ti.TaichiSyntaxError, match=r"tuple/list like \(begin, end\)"):
        three()
    integer = r"should be an integer scalar or a tuple/list of \(int, int\)"
    with pytest.raises(ti.TaichiTypeError, match=integer):
        floats()
    with pytest.raises(ti.TaichiTypeError, match=integer):
        static_floats()
    with pytest.raises(ti.TaichiSyntaxError, match="number of the loop variables not equal"):
        too_few_variables()


def test_ndrange_accepts_numpy_and_runtime_integer_bounds() -> None:
    @ti.kernel
    def k(n: ti.i64) -> ti.i32:
        s = 0
        for i, j in ti.ndrange((np.int64(1), np.int32(3)), n):
            s += i * 10 + j
        return s

    assert k(2) == (10 + 11 + 20 + 21)


def test_static_of_a_runtime_value_says_what_taichi_says() -> None:
    @ti.kernel
    def k(v: ti.f32):
        if ti.static(v > 0.5):
            pass

    with pytest.raises(ti.TaichiCompilationError, match="must be compile-time constants"):
        k(1.0)


def test_unrolled_static_break_leaves_no_break_in_the_ir() -> None:
    x = ti.field(ti.i32, 4)

    def k():
        for i in ti.static(range(4)):
            if ti.static(i == 2):
                break
            x[i] = 1

    kernel = frontend_ir(k)
    assert lower_ast.run(kernel, PassContext())
    verify(kernel, typed=False)
    text = print_ir(kernel)
    assert "break" not in text, text
    body = textwrap.dedent("\n".join(text.splitlines()[1:-1]))
    assert body.count("global store") == 2, text
