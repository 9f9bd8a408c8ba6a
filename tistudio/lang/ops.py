"""User-facing functions (`ti.sin`, `ti.atomic_add`, `ti.static`, ...).

Inside a kernel the frontend recognises each by its `__ti_builtin__` name and compiles it (see
`tistudio.frontend.builtins`). Called from plain Python, the math functions compute on Python
numbers, and the kernel-only ones say so.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tistudio.frontend.builtins import BUILTINS
from tistudio.lang.kernel import func
from tistudio.lang.matrix import Matrix
from tistudio.lang.types import template  # noqa: F401 - ti.math funcs annotate with it


def _builtin(name: str, python: Callable[..., Any] | None = None) -> Callable[..., Any]:
    def fn(*args: Any, **kwargs: Any) -> Any:
        if python is None:
            raise RuntimeError(f"ti.{name}() can only be used inside a kernel or ti.func")
        if name not in _WHOLE_VALUES and any(isinstance(a, Matrix) for a in args):
            return _elementwise(python, args)
        return python(*args, **kwargs)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__ti_builtin__ = name  # type: ignore[attr-defined]
    fn.__doc__ = f"Taichi's `{name}`."
    return fn


# Python-scope functions that take a vector as one value; the others map over its elements
_WHOLE_VALUES = {"static", "static_print", "static_assert", "ndrange", "grouped"}


def _elementwise(python: Callable[..., Any], args: tuple[Any, ...]) -> Matrix:
    """`ti.cos(v)`, `ti.max(4, v)`, `ti.select(c, a, b)` on Python-scope vectors: the function
    on each element, numbers broadcast (as Taichi does outside kernels too)."""
    shapes = {a._data.shape for a in args if isinstance(a, Matrix)}
    if len(shapes) != 1:
        raise ValueError(f"vector/matrix shapes differ: {sorted(shapes)}")
    (shape,) = shapes
    columns = [
        a._data.reshape(-1).tolist() if isinstance(a, Matrix) else [a] * int(np.prod(shape))
        for a in args
    ]
    return Matrix(np.array([python(*row) for row in zip(*columns)]).reshape(shape))


def _python_builtin(name: str) -> Callable[..., Any]:
    impl = BUILTINS[name]
    return lambda *args: impl(None, None, *args)


def _static(value: Any, *more: Any) -> Any:
    return value if not more else (value, *more)


static = _builtin("static", _static)
static_print = _builtin("static_print", print)
static_assert = _builtin("static_assert")
loop_config = _builtin("loop_config", lambda **_: None)
cache_read_only = _builtin("cache_read_only")  # a hint for Taichi's GPU caches (ignored)
sin = _builtin("sin", math.sin)
cos = _builtin("cos", math.cos)
tan = _builtin("tan", math.tan)
asin = _builtin("asin", math.asin)
acos = _builtin("acos", math.acos)
atan2 = _builtin("atan2", math.atan2)
tanh = _builtin("tanh", math.tanh)
exp = _builtin("exp", math.exp)
log = _builtin("log", math.log)
sqrt = _builtin("sqrt", math.sqrt)
rsqrt = _builtin("rsqrt", lambda x: 1.0 / math.sqrt(x))
floor = _builtin("floor", _python_builtin("floor"))
ceil = _builtin("ceil", _python_builtin("ceil"))
round = _builtin("round", _python_builtin("round"))  # noqa: A001 - Taichi's name
popcnt = _builtin("popcnt", _python_builtin("popcnt"))
clz = _builtin("clz", _python_builtin("clz"))
frexp = _builtin("frexp", _python_builtin("frexp"))
abs = _builtin("abs", lambda x: x if x >= 0 else -x)  # noqa: A001
pow = _builtin("pow", lambda a, b: a**b)  # noqa: A001
max = _builtin("max", _python_builtin("max"))  # noqa: A001
min = _builtin("min", _python_builtin("min"))  # noqa: A001
cast = _builtin("cast")
bit_cast = _builtin("bit_cast")
select = _builtin("select", lambda c, a, b: a if c else b)
raw_div = _builtin("raw_div", _python_builtin("raw_div"))
raw_mod = _builtin("raw_mod", _python_builtin("raw_mod"))
bit_shr = _builtin("bit_shr")
atomic_add = _builtin("atomic_add")
atomic_sub = _builtin("atomic_sub")
atomic_min = _builtin("atomic_min")
atomic_max = _builtin("atomic_max")
atomic_and = _builtin("atomic_and")
atomic_or = _builtin("atomic_or")
atomic_xor = _builtin("atomic_xor")
atomic_mul = _builtin("atomic_mul")
random = _builtin("random")  # uniform in [0, 1), or over an integer type (frontend/random.py)
randn = _builtin("randn")  # standard normal


def _ndrange(*args: Any) -> Any:
    import itertools

    ranges = [range(a[0], a[1]) if isinstance(a, (tuple, list)) else range(a) for a in args]
    return itertools.product(*ranges)


ndrange = _builtin("ndrange", _ndrange)
grouped = _builtin("grouped")

# Taichi's operators as functions (`ti.lang.ops.add(a, b)` is `a + b`, in either scope)
add = _builtin("add", operator.add)
sub = _builtin("sub", operator.sub)
mul = _builtin("mul", operator.mul)
truediv = _builtin("truediv", operator.truediv)
floordiv = _builtin("floordiv", operator.floordiv)
mod = _builtin("mod", operator.mod)
bit_and = _builtin("bit_and", operator.and_)
bit_or = _builtin("bit_or", operator.or_)
bit_xor = _builtin("bit_xor", operator.xor)
bit_shl = _builtin("bit_shl", operator.lshift)
bit_sar = _builtin("bit_sar", operator.rshift)
bit_not = _builtin("bit_not", operator.invert)
neg = _builtin("neg", operator.neg)
cmp_lt = _builtin("cmp_lt", operator.lt)
cmp_le = _builtin("cmp_le", operator.le)
cmp_gt = _builtin("cmp_gt", operator.gt)
cmp_ge = _builtin("cmp_ge", operator.ge)
cmp_eq = _builtin("cmp_eq", operator.eq)
cmp_ne = _builtin("cmp_ne", operator.ne)


@func
def zero(x):  # noqa: ANN001, ANN201 - a ti.func
    """`ti.zero(x)`: zeros of `x`'s type and shape (a scalar or a matrix), as Taichi's `x * 0`."""
    return x * 0


@func
def one(x):  # noqa: ANN001, ANN201 - a ti.func
    """`ti.one(x)`: ones of `x`'s type and shape, as Taichi's `zero(x) + 1`."""
    return x * 0 + 1
