"""Field methods that work in both scopes: `x.fill(v)` in Python scope and inside a kernel.

In Python scope `fill` writes the field's memory through NumPy (`lang/field.py`). Inside a
kernel the same call must become code: Taichi compiles it as a `ti.func` that loops over the
field's indices (`for I in ti.grouped(x): x[I] = v`). `kernel_scope` pairs a Python method
with such a func; read through a field, it gives an object that Python calls as the method
and that the frontend inlines as the func, with the field as its first argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tistudio.lang.kernel import Func, func
from tistudio.lang.ops import grouped
from tistudio.lang.types import template


@func
def fill_in_kernel(field: template(), value: template()):  # noqa: ANN201 - a ti.func
    """`field.fill(value)` in a kernel: every element set to `value` (a scalar fills each
    component of a vector or matrix field, as `x[I] = 3` does)."""
    for I in grouped(field):  # noqa: E741 - Taichi's spelling of a grouped index
        field[I] = value


class BoundScopedMethod:
    """A `kernel_scope` method read through its field: callable from Python, inlined in a
    kernel (`__ti_func__`, with the field bound as the first argument)."""

    def __init__(self, method: Callable[..., Any], in_kernel: Func, owner: Any) -> None:
        self._method = method.__get__(owner)
        self._in_kernel = in_kernel
        self.__ti_func__ = in_kernel.__ti_func__
        self.__ti_bound__ = (owner,)
        self.__name__ = method.__name__
        self.__doc__ = method.__doc__

    def _ti_parsed(self) -> Any:
        return self._in_kernel._ti_parsed()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._method(*args, **kwargs)


class ScopedMethod:
    """The descriptor `kernel_scope` puts on the class."""

    def __init__(self, method: Callable[..., Any], in_kernel: Func) -> None:
        self._method = method
        self._in_kernel = in_kernel
        self.__doc__ = method.__doc__

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self._method
        return BoundScopedMethod(self._method, self._in_kernel, obj)


def kernel_scope(in_kernel: Func) -> Callable[[Callable[..., Any]], ScopedMethod]:
    """Decorator: the method runs as itself in Python scope and as `in_kernel` in a kernel."""

    def wrap(method: Callable[..., Any]) -> ScopedMethod:
        return ScopedMethod(method, in_kernel)

    return wrap
