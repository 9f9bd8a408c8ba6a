"""`@ti.real_func`: a Taichi function with a typed signature, and `ti.ref`.

In Taichi 1.7 a real function is compiled once as a function of its own and called, so every
parameter needs an annotation (checked when it is decorated) and a value-returning one a
return annotation; its arguments are converted to the annotated types, `ti.ref(dtype)`
parameters alias the caller's variable, and it may `return` from inside a loop. tistudio gives
it those semantics but compiles each call in place, as it does a `ti.func`, unless the
function is part of a call cycle: then it is a function of its own in the IR, and each call a
call (`frontend/real_calls.py`, `ir/calls.py`), on the CPU only.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.lang.kernel import Func


class RealFunc(Func):
    """`@ti.real_func`: a `Func` whose parameters are all annotated (but a method's `self`)."""

    __ti_real__ = True

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__(fn)
        for index, param in enumerate(inspect.signature(fn).parameters.values()):
            if param.annotation is inspect.Parameter.empty and not (index == 0 and self.takes_self):
                raise TaichiSyntaxError(
                    f"Taichi function `{fn.__name__}` parameter `{param.name}` must be type "
                    "annotated"
                )


def real_func(fn: Callable[..., Any]) -> RealFunc:
    return RealFunc(fn)


class RefType:
    """`ti.ref(dtype)`: a real function's parameter that is the caller's variable itself."""

    def __init__(self, dtype: Any) -> None:
        self.__ti_ref__ = dtype

    def __repr__(self) -> str:
        return f"ti.ref({self.__ti_ref__!r})"


def ref(dtype: Any) -> RefType:
    return RefType(dtype)
