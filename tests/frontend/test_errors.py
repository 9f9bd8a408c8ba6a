"""Compile errors name the construct and point at the user's line with a caret."""

from __future__ import annotations

import inspect

import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def _line_of(fn, needle: str) -> int:  # noqa: ANN001
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if needle in ln)


def test_unsupported_syntax_names_the_construct_and_line() -> None:
    @ti.kernel
    def k():
        try:  # unsupported
            pass
        except Exception:
            pass

    with pytest.raises(ti.TaichiSyntaxError) as info:
        k()
    message = str(info.value)
    assert "'Try' statements are not supported" in message
    assert f"line {_line_of(k.fn, '# unsupported')}" in message
    assert "try:  # unsupported" in message and "^" in message


def test_bit_operation_on_float_is_a_type_error() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.i32:
        return a & 1

    with pytest.raises(ti.TaichiTypeError, match=r"unsupported operand type\(s\) for '&'"):
        k(1.0)


def test_sin_of_an_integer_is_a_type_error_like_taichi() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.f32:
        return ti.sin(a)

    with pytest.raises(ti.TaichiTypeError, match="'sin' takes real inputs only"):
        k(1)


def test_undefined_name() -> None:
    @ti.kernel
    def k():
        a = undefined_thing + 1  # noqa: F821, F841

    with pytest.raises(ti.TaichiNameError, match="name 'undefined_thing' is not defined"):
        k()


def test_variable_scoped_to_its_block() -> None:
    @ti.kernel
    def k(c: ti.i32) -> ti.i32:
        if c > 0:
            inner = 1
        return inner  # noqa: F821

    with pytest.raises(ti.TaichiNameError, match="name 'inner' is not defined") as info:
        k(1)
    assert f"line {_line_of(k.fn, 'return inner')}" in str(info.value)


def test_field_indexed_with_wrong_number_of_indices() -> None:
    x = ti.field(ti.f32, shape=(4, 4))

    @ti.kernel
    def k():
        x[1] = 0

    with pytest.raises(ti.TaichiSyntaxError, match=r"2 dimension\(s\) but was accessed with 1"):
        k()


def test_kernel_calling_a_kernel() -> None:
    @ti.kernel
    def inner():
        pass

    @ti.kernel
    def outer():
        inner()

    with pytest.raises(ti.TaichiSyntaxError, match="a kernel cannot call another kernel"):
        outer()


def test_recursive_func() -> None:
    @ti.func
    def f(n):
        return f(n - 1)

    @ti.kernel
    def k() -> ti.i32:
        return f(3)

    with pytest.raises(ti.TaichiSyntaxError, match="recursion is not supported"):
        k()


def test_break_in_parallel_loop() -> None:
    @ti.kernel
    def k():
        for _ in range(4):
            break

    with pytest.raises(ti.TaichiSyntaxError, match="'break' is not allowed in a parallel"):
        k()


def test_missing_annotation() -> None:
    def k(a):  # noqa: ANN001
        pass

    with pytest.raises(ti.TaichiSyntaxError, match="parameter 'a' needs a type annotation"):
        ti.kernel(k)


def test_static_of_runtime_value() -> None:
    @ti.kernel
    def k(a: ti.i32):
        if ti.static(a > 0):
            pass

    with pytest.raises(ti.TaichiSyntaxError, match="ti.static\\(\\) needs a compile-time value"):
        k(1)


def test_calling_a_python_function_with_runtime_values() -> None:
    def helper(v):  # noqa: ANN001, ANN202
        return v

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return helper(a)

    with pytest.raises(ti.TaichiSyntaxError, match="decorate it with @ti.func"):
        k(1)
