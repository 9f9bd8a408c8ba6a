"""`@ti.data_oriented` classes: kernels and funcs written as methods.

A kernel or func defined in a class body takes the instance as its first parameter, `self`,
without an annotation: it is a template argument, so `self.x` in the body is the instance's
field and a plain attribute (`self.n`) a compile-time constant, read when the kernel compiles.
A kernel's cache keys `self` by identity, as Taichi 1.7 does (a weak reference there): two
instances never share compiled code, and a later change to a plain attribute does not recompile.

Kernels and funcs are descriptors: read through an instance, they bind it (`BoundKernel`,
`BoundFunc`). A class kernel read through an instance of a class not marked with
`@ti.data_oriented` cannot be called, as in Taichi.
"""

from __future__ import annotations

from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError


def data_oriented(cls: type) -> type:
    """Mark `cls` so that its kernels and funcs bind their instance (subclasses inherit it)."""
    cls._data_oriented = True  # type: ignore[attr-defined]
    return cls


def is_data_oriented(obj: Any) -> bool:
    return getattr(type(obj), "_data_oriented", False) is True


def defined_in_class(fn: Any) -> bool:
    """Whether `fn`'s `def` sits directly in a class body (`A.f`, `g.<locals>.A.f`), not in a
    function (`g.<locals>.f`) nor at module level (`f`): what Taichi learns from the stack."""
    parts = getattr(fn, "__qualname__", "").split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


class BoundKernel:
    """A class kernel read through an instance: calls pass the instance as `self`."""

    def __init__(self, kernel: Any, owner: Any) -> None:
        self.kernel = kernel
        self.owner = owner
        self.__name__ = kernel.__name__
        self.__doc__ = kernel.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.kernel(self.owner, *args, **kwargs)

    def grad(self, *args: Any, **kwargs: Any) -> Any:
        """The adjoint kernel of this method, for the same instance."""
        return self.kernel.grad(self.owner, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<bound ti.kernel {self.kernel.__name__} of {self.owner!r}>"


class UndecoratedKernel:
    """A class kernel read through an instance of a class without `@ti.data_oriented`."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TaichiSyntaxError(f"Please decorate class {self.cls.__name__} with @ti.data_oriented")


class BoundFunc:
    """A func method read through an instance: the frontend inlines it with the instance as
    its first argument (`__ti_bound__`); Python scope cannot call it, like any func."""

    def __init__(self, func: Any, owner: Any) -> None:
        self.func = func
        self.__ti_func__ = func.__ti_func__
        self.__ti_bound__ = (owner,)
        self.__name__ = func.__name__

    def _ti_parsed(self) -> Any:
        return self.func._ti_parsed()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)  # raises: a func runs only inside a kernel


def bind_kernel(kernel: Any, obj: Any, cls: type | None) -> Any:
    """What `obj.<kernel>` gives (`Kernel.__get__`): the kernel itself, read through the class
    or when it takes no `self`; else the kernel bound to `obj`."""
    if obj is None or not kernel.takes_self:
        return kernel
    if not is_data_oriented(obj):
        return UndecoratedKernel(type(obj))
    return BoundKernel(kernel, obj)


def bind_func(func: Any, obj: Any) -> Any:
    """What `obj.<func>` gives (`Func.__get__`)."""
    if obj is None or not func.takes_self:
        return func
    return BoundFunc(func, obj)
