"""`return` in kernels and ti.funcs as Taichi 1.7.4 compiles it: only at the top level or inside
ti.static if/for, where compiling stops; a return type needs a return of a value; a struct
return needs a struct of that type; and an int stored into a narrower struct member or vector
element wraps as Taichi's cast does. Each expected value or error was taken from Taichi 1.7.4
running the same program."""

from __future__ import annotations

import pytest

import tistudio as ti

NON_STATIC = "Return inside non-static if/for is not supported"


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_a_return_inside_a_static_for_ends_the_kernel() -> None:
    @ti.kernel
    def squares() -> ti.i32:
        a = 0
        for i in ti.static(range(10)):
            a += i * i
            if ti.static(i == 8):
                return a

    @ti.kernel
    def then_more() -> ti.i32:
        a = 0
        for i in ti.static(range(10)):
            a += i
            if ti.static(i == 3):
                return a
        return 99

    assert squares() == 204
    assert then_more() == 6


def test_statements_after_a_return_are_not_compiled() -> None:
    @ti.kernel
    def k() -> ti.i32:
        return 1
        return undefined_name  # noqa: F821 - never compiled, as in Taichi

    assert k() == 1


def test_a_func_returns_from_inside_a_static_for() -> None:
    @ti.func
    def first(x):
        for i in ti.static(range(3)):
            if ti.static(i == 1):
                return i + x
        return 7

    @ti.kernel
    def k(x: ti.i32) -> ti.i32:
        return first(x)

    assert k(10) == 11


def test_a_func_returning_inside_a_run_time_if_is_refused() -> None:
    @ti.func
    def safe_sqrt(a):
        if a > 0:
            return ti.sqrt(a)
        else:
            return 0.0

    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        return safe_sqrt(a)

    with pytest.raises(ti.TaichiSyntaxError, match=NON_STATIC) as info:
        k(-2.0)
    assert "return ti.sqrt(a)" in str(info.value)


def test_a_func_called_inside_a_loop_may_return_at_its_top_level() -> None:
    @ti.func
    def double(x):
        return x * 2

    @ti.kernel
    def k() -> ti.i32:
        s = 0
        for i in range(4):
            if i > 0:
                s += double(i)
        return s

    assert k() == 12


@pytest.mark.parametrize("loop", ["for", "while", "if"])
def test_a_kernel_returning_inside_run_time_control_flow_is_refused(loop) -> None:
    if loop == "for":

        @ti.kernel
        def k(x: ti.i32) -> ti.i32:
            for i in range(10):
                return i
            return 0

    elif loop == "while":

        @ti.kernel
        def k(x: ti.i32) -> ti.i32:
            while x > 0:
                return 1
            return 0

    else:

        @ti.kernel
        def k(x: ti.i32) -> ti.i32:
            if x > 0:
                return 1
            return 2

    with pytest.raises(ti.TaichiCompilationError, match=NON_STATIC):
        k(1)


def test_a_kernel_with_a_return_type_and_no_return() -> None:
    @ti.kernel
    def k() -> ti.i32:
        pass

    with pytest.raises(
        ti.TaichiSyntaxError, match="Kernel has a return type but does not have a return"
    ):
        k()


def test_a_func_with_a_return_type_and_no_return() -> None:
    @ti.func
    def bar() -> ti.i32:
        pass

    @ti.func
    def bare() -> ti.i32:
        return

    @ti.kernel
    def k() -> ti.i32:
        return bar()

    @ti.kernel
    def k2() -> ti.i32:
        return bare()

    for kernel in (k, k2):
        with pytest.raises(
            ti.TaichiSyntaxError, match="Function has a return type but does not have a return"
        ):
            kernel()


def test_returning_what_a_void_func_gives() -> None:
    @ti.func
    def nothing():
        pass

    @ti.kernel
    def k() -> ti.i32:
        return nothing()

    with pytest.raises(
        ti.TaichiSyntaxError, match="Kernel has a return type but does not have a return"
    ):
        k()


def test_return_none_from_a_void_kernel() -> None:
    f = ti.field(ti.i32, shape=())

    @ti.kernel
    def k():
        f[None] = 3
        return None

    assert k() is None
    assert f[None] == 3


def test_a_value_returned_without_a_return_type() -> None:
    @ti.kernel
    def k():
        return 1

    with pytest.raises(ti.TaichiSyntaxError, match="must be annotated with a return type"):
        k()


sphere = ti.types.struct(center=ti.math.vec3, radius=float)
circle = ti.types.struct(center=ti.math.vec2, radius=float)
int_sphere = ti.types.struct(center=ti.math.vec3, radius=int)
other = ti.types.struct(center=ti.math.vec3, r=float)


def test_a_struct_return_must_have_the_declared_struct_type() -> None:
    @ti.kernel
    def smaller() -> sphere:
        return circle(center=ti.math.vec2([1, 2]), radius=2)

    @ti.kernel
    def int_member() -> sphere:
        return int_sphere(center=ti.math.vec3([1, 2, 3]), radius=2)

    @ti.kernel
    def float_member() -> int_sphere:
        return sphere(center=ti.math.vec3([1, 2, 3]), radius=2)

    @ti.kernel
    def renamed() -> sphere:
        return other(center=ti.math.vec3([1, 2, 3]), r=2)

    @ti.kernel
    def scalar() -> sphere:
        return 1

    for kernel in (smaller, int_member, float_member, renamed, scalar):
        with pytest.raises(ti.TaichiCompilationError, match="cannot be converted into required"):
            kernel()


def test_a_struct_variable_of_the_type_returns() -> None:
    @ti.kernel
    def k() -> sphere:
        s = sphere(center=ti.math.vec3([1, 2, 3]), radius=2)
        return s

    ret = k()
    assert ret.radius == 2.0
    assert list(ret.center) == [1.0, 2.0, 3.0]


s0 = ti.types.struct(a=ti.math.vec3, b=ti.i16)
s1 = ti.types.struct(a=ti.f32, b=s0)


def test_an_int_member_wraps_to_its_type() -> None:
    @ti.kernel
    def k() -> s1:
        return s1(a=1, b=s0(a=ti.math.vec3([100, 0.2, 3]), b=65537))

    ret = k()
    assert ret.b.b == 1
    assert ret.b.a[0] == 100


def test_narrow_vector_elements_wrap() -> None:
    @ti.kernel
    def k() -> ti.i32:
        v = ti.Vector([-1, 300], dt=ti.u8)
        w = ti.types.vector(2, ti.i16)(65537, 3)
        return v[0] + v[1] + w[0]

    assert k() == 44  # (255 + 44) wraps in u8 to 43, plus 1


def test_a_literal_beyond_default_ip_is_still_refused_in_a_narrow_member() -> None:
    @ti.kernel
    def k() -> ti.i32:
        s = s0(a=ti.math.vec3(1, 2, 3), b=2**40)
        return s.b

    with pytest.raises(ti.TaichiTypeError, match="does not fit in i32"):
        k()
