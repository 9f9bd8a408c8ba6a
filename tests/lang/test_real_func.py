"""`@ti.real_func` and `ti.ref`: typed signatures, returns from inside loops, serial loops.

Each expected value was computed by Taichi 1.7.4 running the same program."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang.data_oriented import data_oriented
from tistudio.lang.real_func import real_func, ref


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_arguments_and_the_result_take_the_annotated_types() -> None:
    @real_func
    def add(a: ti.f32, b: ti.f32) -> ti.f32:
        return a + b

    @real_func
    def half(x: ti.f32) -> ti.i32:
        return x / 2

    @ti.kernel
    def run() -> ti.i32:
        return add(1, 2) * 10 + half(5.5)

    with pytest.warns(UserWarning, match="lose precision"):
        assert run() == 32


def test_every_parameter_needs_an_annotation() -> None:
    with pytest.raises(ti.TaichiSyntaxError, match="parameter `a` must be type annotated"):

        @real_func
        def add(a, b: ti.i32) -> ti.i32:
            return a + b


def test_a_returned_value_needs_a_return_annotation() -> None:
    @real_func
    def add(a: ti.i32, b: ti.i32):
        return a + b

    @ti.kernel
    def run():
        add(30, 2)

    with pytest.raises(ti.TaichiCompilationError, match="return value must be annotated"):
        run()


def test_returns_from_inside_loops() -> None:
    @real_func
    def prefix(a: ti.i32) -> ti.i32:
        s = 0
        for i in range(100):
            if i == a + 1:
                return s
            s = s + i
        return s

    @real_func
    def nested() -> ti.f32:
        i = 1
        while i:
            for j in range(3):
                if j == 2:
                    return 2.5
            i += 1
        return 1.0

    @ti.kernel
    def run(a: ti.i32) -> ti.f32:
        return prefix(a) + nested()

    assert run(10) == 55 + 2.5
    assert run(200) == 4950 + 2.5


def test_a_ti_func_still_may_not_return_inside_a_loop() -> None:
    @ti.func
    def first() -> ti.i32:
        for i in range(10):
            return i
        return -1

    @ti.kernel
    def run() -> ti.i32:
        return first()

    with pytest.raises(ti.TaichiSyntaxError, match="inside a loop"):
        run()


def test_a_real_functions_loops_are_serial_so_break_works_at_the_kernels_top() -> None:
    @real_func
    def count() -> int:
        a = 0
        for i in range(10):
            if i == 5:
                break
            a += 1
        return a

    @ti.kernel
    def run() -> int:
        return count()

    assert run() == 5


def test_ref_parameters_alias_the_callers_variable() -> None:
    @real_func
    def set_seven(a: ref(ti.f32)):
        a = 7  # noqa: F841 - assigns the caller's variable

    @real_func
    def double(a: ref(ti.f32)):
        a += a

    @ti.kernel
    def run() -> ti.f32:
        a = 5.0
        set_seven(a)
        b = 5.0
        double(b)
        return a * 100 + b

    assert run() == 710


def test_template_parameters_and_calls_under_a_runtime_if() -> None:
    x = ti.field(ti.i32, shape=())
    y = ti.field(ti.i32, shape=())

    @real_func
    def inc(f: ti.template()):
        f[None] += 1

    @ti.kernel
    def run(a: ti.u1):
        if a:
            inc(x)
        inc(y)

    run(True)
    run(False)
    assert (x[None], y[None]) == (1, 2)


def test_matrix_arguments_and_struct_results() -> None:
    pair = ti.types.struct(a=ti.i16, b=ti.f64)

    @real_func
    def total(m: ti.math.mat2, v: ti.math.vec2) -> float:
        return m[0, 0] + m[0, 1] + m[1, 0] + m[1, 1] + v[0] + v[1]

    @real_func
    def make() -> pair:
        return pair(a=123, b=2.5)

    @ti.kernel
    def run() -> ti.f64:
        p = make()
        return total(ti.math.mat2(1, 2, 3, 4), ti.math.vec2(5, 6)) + p.a * p.b

    assert run() == pytest.approx(21 + 307.5)


def test_real_func_methods_of_a_data_oriented_class() -> None:
    @data_oriented
    class Grid:
        def __init__(self) -> None:
            self.val = ti.field(ti.f32, shape=(4, 4))

        @real_func
        def inc(self, i: ti.i32, j: ti.i32):
            self.val[i, j] += i * j

        @real_func
        def mul(self, i: ti.i32, j: ti.i32) -> ti.i32:
            return i * j

        @ti.kernel
        def fill(self):
            for i, j in self.val:
                self.inc(i, j)
                self.val[i, j] += self.mul(i, j)

    g = Grid()
    g.fill()
    i, j = np.indices((4, 4))
    np.testing.assert_array_equal(g.val.to_numpy(), 2 * i * j)


def test_a_real_function_may_call_itself() -> None:
    @real_func
    def tri(n: ti.i32) -> ti.i32:
        if n == 0:
            return 0
        return tri(n - 1) + n

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return tri(n)

    assert run(100) == 5050  # tests/lang/test_recursive_real_func.py has the rest
