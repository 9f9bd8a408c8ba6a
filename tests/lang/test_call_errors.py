"""Calls whose arguments do not fit the parameters, of a kernel and of a `ti.func`: Taichi 1.7.4
binds them positionally, then by name, then with defaults, and raises a TaichiSyntaxError with
the first mistake ("Too many arguments", "Multiple values for argument 'a'", "Unexpected
argument 'c'", "Parameter `a : i32` missing"). Each case was run on Taichi 1.7.4."""

from __future__ import annotations

import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def _kernel() -> ti.Kernel:
    @ti.kernel
    def foo(a: ti.i32, b: ti.i32) -> ti.i32:
        return a * 10 + b

    return foo


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda k: k(b=2), r"Parameter `a : i32` missing\."),
        (lambda k: k(1), r"Parameter `b : i32` missing\."),
        (lambda k: k(1, 2, c=2), r"Unexpected argument 'c'\."),
        (lambda k: k(1, 2, 3), r"Too many arguments\. Expected \(a : i32, b : i32\), got"),
        (lambda k: k(1, a=2), r"Multiple values for argument 'a'\."),
    ],
)
def test_a_kernel_call_that_does_not_bind(call, message) -> None:
    foo = _kernel()
    with pytest.raises(ti.TaichiSyntaxError, match=message) as info:
        call(foo)
    assert "kernel 'foo'" in str(info.value)
    assert isinstance(info.value, TypeError)  # what Python raises for such a call, too


def test_a_kernel_binds_keywords_in_any_order() -> None:
    foo = _kernel()
    assert foo(b=2, a=1) == 12
    assert foo(3, b=4) == 34


@ti.func
def _foo(a, b, c=3):
    return a + b + c


@ti.kernel
def _missing() -> ti.i32:
    return _foo(1, c=3)


@ti.kernel
def _unknown() -> ti.i32:
    return _foo(1, 2, 3, d=3)


@ti.kernel
def _too_many() -> ti.i32:
    return _foo(1, 2, 3, 4)


@ti.kernel
def _twice() -> ti.i32:
    return _foo(1, a=3, b=3)


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (_missing, r"Parameter `b` missing\."),
        (_unknown, r"Unexpected argument 'd'\."),
        (_too_many, r"Too many arguments\. Expected \(a, b, c\), got \(1, 2, 3, 4\)"),
        (_twice, r"Multiple values for argument 'a'\."),
    ],
)
def test_a_func_call_that_does_not_bind(kernel, message) -> None:
    with pytest.raises(ti.TaichiSyntaxError, match=message) as info:
        kernel()
    assert "ti.func '_foo'" in str(info.value)


def test_a_func_error_points_at_the_call() -> None:
    @ti.func
    def foo(a, b):
        return a + b

    @ti.kernel
    def run() -> ti.i32:
        return foo(1)  # the bad call

    with pytest.raises(ti.TaichiSyntaxError) as info:
        run()
    assert "return foo(1)  # the bad call" in str(info.value)


def test_a_func_names_its_annotated_parameter() -> None:
    @ti.func
    def foo(a: ti.f32, b: ti.template()):
        return a

    @ti.kernel
    def run() -> ti.f32:
        return foo(1.0)

    with pytest.raises(ti.TaichiSyntaxError, match=r"Parameter `b : ti.template\(\)` missing"):
        run()


def test_a_func_binds_keywords_and_defaults() -> None:
    @ti.func
    def foo(a, b, c=3):
        return a * 100 + b * 10 + c

    @ti.kernel
    def run() -> ti.i32:
        return foo(1, c=5, b=2) + foo(b=1, a=0)

    assert run() == 125 + 13


vec3 = ti.types.vector(3, ti.f32)
mat22 = ti.types.matrix(2, 2, ti.f32)


@ti.func
def _takes_vec3(a: vec3) -> ti.f32:
    return a[0]


@ti.func
def _takes_mat22(a: mat22) -> ti.f32:
    return a[0, 0]


@ti.kernel
def _short_vector() -> ti.f32:
    return _takes_vec3(ti.Matrix([3, 4]))


@ti.kernel
def _wide_matrix() -> ti.f32:
    return _takes_mat22(ti.Matrix([[3, 4, 5], [1, 2, 3]]))


@ti.kernel
def _scalar_for_vector() -> ti.f32:
    return _takes_vec3(1.0)


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (_short_vector, r"is expected to be a Matrix with n 3, but got 2"),
        (_wide_matrix, r"is expected to be a Matrix with m 2, but got 3"),
        (_scalar_for_vector, r"is expected to be a Matrix, but got <class 'float'>"),
    ],
)
def test_a_func_vector_parameter_checks_the_shape(kernel, message) -> None:
    with pytest.raises(ti.TaichiSyntaxError, match=message) as info:
        kernel()
    assert "ti.func parameter 'a'" in str(info.value)


def test_a_func_vector_parameter_is_a_copy() -> None:
    @ti.func
    def clobber(a: vec3) -> ti.f32:
        a[0] = 100
        return a[0]

    @ti.kernel
    def run() -> ti.f32:
        x = ti.Vector([3.0, 4.0, 5.0])
        y = clobber(x)
        return x[0] + y

    assert run() == 103.0
