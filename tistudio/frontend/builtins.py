"""Taichi's built-in functions inside kernels (`ti.sin`, `ti.atomic_add`, `ti.static`, ...).

User-facing functions in `tistudio.lang` carry a `__ti_builtin__` name; when a kernel calls one,
the transformer looks the name up in `BUILTINS` and calls the implementation here with the
already-evaluated arguments. Each implementation returns a Python value or a typed `Expr`.
"""

from __future__ import annotations

import ast
import builtins as py
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.matrix import BoundMatrixMethod, all_, any_
from tistudio.frontend.operator_functions import OPERATOR_BUILTINS, PYTHON_OPERATORS
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.random import randn as _randn
from tistudio.frontend.random import random as _random
from tistudio.frontend.simt import SIMT_BUILTINS
from tistudio.frontend.sparse_ops import SPARSE_BUILTINS
from tistudio.frontend.structs import struct_literal
from tistudio.frontend.values import (
    ExprVector,
    GroupedValue,
    LoopConfig,
    NdRangeValue,
    PickedElement,
)
from tistudio.ir import frontend as fe
from tistudio.ir.ops import AtomicOpType, BinaryOpType, UnaryOpType
from tistudio.ir.types import PrimitiveType

Builtin = Callable[..., Any]


def _static(t: Any, loc: Any, value: Any, *more: Any) -> Any:
    for v in (value, *more):
        if is_runtime(v):
            raise TaichiSyntaxError(
                "ti.static() needs a compile-time value, but this is computed at run time "
                "(Input to ti.static must be compile-time constants or global pointers); "
                "use a run-time if/for, or pass the value as a ti.template() argument",
                loc,
            )
    return value if not more else (value, *more)


def _ndrange(t: Any, loc: Any, *args: Any) -> NdRangeValue:
    bounds = []
    for a in args:
        if isinstance(a, (tuple, list)):
            if len(a) != 2:
                raise TaichiSyntaxError(
                    "ti.ndrange bounds are n or (begin, end): Every argument of ndrange should "
                    "be a scalar or a tuple/list like (begin, end)",
                    loc,
                )
            bounds.append((a[0], a[1]))
        else:
            bounds.append((0, a))
    for bound in (b for pair in bounds for b in pair):
        if not _is_integer(bound):
            raise TaichiTypeError(
                f"ti.ndrange bounds must be integers, got {_describe(bound)}: Every argument of "
                "ndrange should be an integer scalar or a tuple/list of (int, int)",
                loc,
            )
    return NdRangeValue(bounds)


def _is_integer(value: Any) -> bool:
    """A Python or NumPy integer, or an integer value computed at run time."""
    if is_runtime(value):
        return value.dtype.is_integral
    return isinstance(value, (int, np.integer))


def _describe(value: Any) -> str:
    return str(value.dtype) if is_runtime(value) else repr(value)


def _grouped(t: Any, loc: Any, target: Any) -> GroupedValue:
    return GroupedValue(target)


def _loop_config(
    t: Any,
    loc: Any,
    serialize: bool = False,
    block_dim: int | None = None,
    parallelize: int | None = None,
    **_: Any,
) -> None:
    t.loop_config = LoopConfig(bool(serialize), block_dim, parallelize)


def _range(t: Any, loc: Any, *args: Any) -> Any:
    if not py.any(is_runtime(a) for a in args):
        return py.range(*args)
    if len(args) == 1:
        return NdRangeValue([(0, args[0])])
    if len(args) == 2:
        return NdRangeValue([(args[0], args[1])])
    raise TaichiSyntaxError("range() with a step is not supported in kernel loops", loc)


def _cast(t: Any, loc: Any, value: Any, dtype: Any) -> Any:
    target = t.resolve_dtype(dtype, loc)
    if isinstance(value, ExprVector):
        return t.elementwise(lambda e: t.ops.cast(e, target, loc), value, loc=loc)
    return t.ops.cast(value, target, loc)


def _bit_cast(t: Any, loc: Any, value: Any, dtype: Any) -> Any:
    target = t.resolve_dtype(dtype, loc)
    if isinstance(value, ExprVector):
        return t.elementwise(lambda e: t.ops.cast(e, target, loc, bits=True), value, loc=loc)
    return t.ops.cast(value, target, loc, bits=True)


def _python_or(fn: Callable[..., Any], make: Callable[..., Any]) -> Builtin:
    """A builtin that runs `fn` in Python on compile-time values, else builds an expression."""

    def impl(t: Any, loc: Any, *args: Any) -> Any:
        if any(isinstance(a, ExprVector) for a in args):  # element-wise on vectors
            return t.elementwise(lambda *row: impl(t, loc, *row), *args, loc=loc)
        if not py.any(is_runtime(a) for a in args):
            return fn(*args)
        return make(t, loc, *args)

    return impl


def _unary(op: UnaryOpType, fn: Callable[..., Any]) -> Builtin:
    return _python_or(fn, lambda t, loc, a: t.ops.unary(op, a, loc))


def _binary(op: BinaryOpType, fn: Callable[..., Any]) -> Builtin:
    return _python_or(fn, lambda t, loc, a, b: t.ops.binary(op, a, b, loc))


def _nary(op: BinaryOpType, fn: Callable[..., Any]) -> Builtin:
    def make(t: Any, loc: Any, *args: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            args = tuple(args[0])
        if len(args) < 2:
            raise TaichiSyntaxError(f"{op.value}() needs at least two values", loc)
        value = args[0]
        for a in args[1:]:
            value = t.ops.binary(op, value, a, loc)
        return value

    return _python_or(fn, make)


def _atomic(op: AtomicOpType) -> Builtin:
    name = "atomic_" + op.value.removeprefix("bit_")  # ti.atomic_and for bit_and

    def impl(t: Any, loc: Any, dest: Any, val: Any) -> Any:
        if isinstance(dest, ExprVector):
            return t.elementwise(lambda d, v: impl(t, loc, d, v), dest, val, loc=loc)
        if isinstance(dest, PickedElement):
            return t.atomic_picked(op, dest, val, loc)
        if not isinstance(dest, fe.LVALUE_EXPRS):
            raise TaichiSyntaxError(
                f"ti.{name}() needs a field element, an ndarray element or a variable as its "
                "first argument: cannot use a non-writable target as the first operand of "
                f"'{name}'",
                loc,
            )
        return fe.AtomicOpExpr(op, dest, t.ops.const(val, loc), dtype=dest.dtype, loc=loc)

    return impl


def _select(t: Any, loc: Any, cond: Any, a: Any, b: Any) -> Any:
    if any(isinstance(v, ExprVector) for v in (cond, a, b)):
        return t.elementwise(lambda c, x, y: _select(t, loc, c, x, y), cond, a, b, loc=loc)
    if not is_runtime(cond):
        return a if cond else b
    return t.ops.select(t.ops.truth(cond, loc), a, b, loc)


def _py_int(t: Any, loc: Any, value: Any = 0, *rest: Any) -> Any:
    if isinstance(value, ExprVector):  # int(v): every element, truncated
        return t.elementwise(lambda e: _py_int(t, loc, e), value, loc=loc)
    if not is_runtime(value):
        return py.int(value, *rest)
    return t.ops.cast(value, t.config.default_ip, loc)


def _py_float(t: Any, loc: Any, value: Any = 0.0) -> Any:
    if isinstance(value, ExprVector):
        return t.elementwise(lambda e: _py_float(t, loc, e), value, loc=loc)
    if not is_runtime(value):
        return py.float(value)
    return t.ops.cast(value, t.config.default_fp, loc)


def _abs(t: Any, loc: Any, value: Any) -> Any:
    if isinstance(value, ExprVector):
        return t.elementwise(lambda e: _abs(t, loc, e), value, loc=loc)
    return py.abs(value) if not is_runtime(value) else t.ops.unary(UnaryOpType.abs, value, loc)


def _truth_of_all(reduce: Callable[..., Any], python: Callable[[Any], bool]) -> Builtin:
    """Python's `all`/`any` in a kernel, as Taichi's: of a vector or matrix, its elements'
    truth reduced (`v.all()`); of a run-time scalar, its truth; of Python values, Python's."""

    def call(t: Any, loc: Any, value: Any) -> Any:
        if isinstance(value, ExprVector):
            return reduce(t, value, loc)
        if is_runtime(value):
            return t.ops.truth(value, loc)
        return python(value)

    return call


def _static_print(t: Any, loc: Any, *args: Any, **kwargs: Any) -> None:
    print(*args, **kwargs)


def _static_assert(t: Any, loc: Any, cond: Any, msg: str = "") -> None:
    if is_runtime(cond):
        raise TaichiSyntaxError("ti.static_assert needs a compile-time condition", loc)
    if not cond:
        raise TaichiSyntaxError(f"static assertion failed{': ' + msg if msg else ''}", loc)


def _pow(t: Any, loc: Any, a: Any, b: Any) -> Any:
    if isinstance(a, ExprVector) or isinstance(b, ExprVector):
        return t.elementwise(lambda x, y: _pow(t, loc, x, y), a, b, loc=loc)
    if not is_runtime(a) and not is_runtime(b):
        return a**b
    return t.ops.binary(BinaryOpType.pow, a, b, loc)


def _rounding(op: UnaryOpType, fn: Callable[[float], Any]) -> Builtin:
    """`ti.floor(x)` / `ti.floor(x, dtype)`: round, then (optionally) cast to `dtype`."""
    plain = _unary(op, fn)

    def impl(t: Any, loc: Any, x: Any, dt: Any = None) -> Any:
        rounded = plain(t, loc, x)
        return rounded if dt is None else _cast(t, loc, rounded, dt)

    return impl


def _rsqrt(x: float) -> float:
    return 1.0 / math.sqrt(x)


def _popcnt(x: int) -> int:
    """Taichi's popcnt of a Python int: the ones of `bin(x)` (of |x| for a negative x)."""
    return bin(x).count("1")


def _clz(x: int) -> int:
    """Taichi's clz of a Python int: leading zeros in 32 bits (32 for x <= 0, 0 past 2**31)."""
    return 32 - py.min(py.max(x, 0).bit_length(), 32)


def _frexp(t: Any, loc: Any, x: Any) -> Any:
    """`ti.frexp(x)` of a Python number: (mantissa, exponent), as NumPy's in Taichi. Of run-time
    values Taichi 1.7.4 compiles it on its SPIR-V back ends only (its CPU back end aborts on the
    frexp unary op); we refuse it on both back ends for now."""
    if is_runtime(x) or isinstance(x, ExprVector):
        raise TaichiSyntaxError("ti.frexp() of a value computed at run time is not supported", loc)
    return math.frexp(x)


def _python_raw_div(a: Any, b: Any) -> Any:
    """Taichi's raw_div of Python numbers: `a // b` for two ints, else `a / b`."""
    return a // b if isinstance(a, int) and isinstance(b, int) else a / b


def _python_raw_mod(a: Any, b: Any) -> Any:
    """Taichi's raw_mod of Python numbers: the C remainder, an int for two ints."""
    return a - b * int(float(a) / b)


def _bit_shr(t: Any, loc: Any, a: Any, b: Any) -> Any:
    """Logical shift at the operand's width; on two Python ints Taichi computes `a >> b`."""
    if not is_runtime(a) and not is_runtime(b):
        return a >> b
    return t.ops.binary(BinaryOpType.bit_shr, t.ops.const(a, loc), b, loc)


def _hex_to_rgb(t: Any, loc: Any, color: Any) -> tuple[Any, Any, Any]:
    """`ti.hex_to_rgb(0xRRGGBB)`: Taichi runs its Python function on the kernel's values, so
    the same operators here (`(c >> 16) & 0xFF`, then `/ 255`): Python floats for a
    compile-time colour, run-time floats for a computed one."""
    channels = [
        t.binary_value(ast.BitAnd, t.binary_value(ast.RShift, color, shift, loc), 0xFF, loc)
        for shift in (16, 8, 0)
    ]
    red, green, blue = (t.binary_value(ast.Div, c, 255, loc) for c in channels)
    return red, green, blue


def _flatten_rows(t: Any, rows: Any, loc: Any) -> tuple[list[Any], tuple[int, ...]]:
    """A vector's elements from a list of values, or a matrix's from a list of rows."""
    if isinstance(rows, ExprVector):
        return list(rows.elements), rows.shape
    if not isinstance(rows, (list, tuple)) or not rows:
        raise TaichiSyntaxError("ti.Vector/ti.Matrix need a non-empty list", loc)
    if all(isinstance(r, (list, tuple, ExprVector)) for r in rows):
        flat_rows = [list(r.elements) if isinstance(r, ExprVector) else list(r) for r in rows]
        if len({len(r) for r in flat_rows}) != 1:
            raise TaichiSyntaxError("every row of a ti.Matrix needs the same length", loc)
        return [e for r in flat_rows for e in r], (len(flat_rows), len(flat_rows[0]))
    return list(rows), (len(rows),)


def _matrix(t: Any, loc: Any, rows: Any, dt: Any = None, **_: Any) -> ExprVector:
    elements, shape = _flatten_rows(t, rows, loc)
    if dt is not None:
        target = t.resolve_dtype(dt, loc)
        elements = [t.typed(e, target, loc) for e in elements]
    return ExprVector(elements, shape)


def _vector(t: Any, loc: Any, values: Any, dt: Any = None, **_: Any) -> ExprVector:
    value = _matrix(t, loc, values, dt)
    if value.is_matrix:
        raise TaichiSyntaxError("ti.Vector needs a flat list of values", loc)
    return value


def _filled(value: float) -> Builtin:
    def impl(t: Any, loc: Any, dt: Any, n: int, m: int | None = None) -> ExprVector:
        target = t.resolve_dtype(dt, loc)
        shape = (n,) if m is None else (n, m)
        count = n * (m or 1)
        return ExprVector([t.typed(value, target, loc)] * count, shape)

    return impl


def _identity(t: Any, loc: Any, dt: Any, n: int) -> ExprVector:
    target = t.resolve_dtype(dt, loc)
    return ExprVector(
        [t.typed(float(i == j), target, loc) for i in range(n) for j in range(n)], (n, n)
    )


def _unit(t: Any, loc: Any, n: int, i: int, dt: Any = float) -> ExprVector:
    target = t.resolve_dtype(dt, loc)
    return ExprVector([t.typed(float(k == i), target, loc) for k in range(n)])


BUILTINS: dict[str, Builtin] = {
    "Matrix": _matrix,
    "Vector": _vector,
    "Matrix.zero": _filled(0.0),
    "Vector.zero": _filled(0.0),
    "Matrix.one": _filled(1.0),
    "Matrix.identity": _identity,
    "Matrix.unit": _unit,
    "Matrix.rows": lambda t, loc, rows: _matrix(t, loc, list(rows)),
    "Matrix.cols": lambda t, loc, cols: t.call_matrix_method(
        BoundMatrixMethod("transpose", _matrix(t, loc, list(cols))), [], {}, loc
    ),
    "static": _static,
    "ndrange": _ndrange,
    "grouped": _grouped,
    "loop_config": _loop_config,
    "cache_read_only": lambda t, loc, *fields: None,  # a caching hint; the CPU has no cache
    "range": _range,
    "cast": _cast,
    "bit_cast": _bit_cast,
    "select": _select,
    "int": _py_int,
    "float": _py_float,
    "abs": _abs,
    "all": _truth_of_all(all_, py.all),
    "any": _truth_of_all(any_, py.any),
    "static_print": _static_print,
    "static_assert": _static_assert,
    "pow": _pow,
    "sin": _unary(UnaryOpType.sin, math.sin),
    "cos": _unary(UnaryOpType.cos, math.cos),
    "tan": _unary(UnaryOpType.tan, math.tan),
    "asin": _unary(UnaryOpType.asin, math.asin),
    "acos": _unary(UnaryOpType.acos, math.acos),
    "tanh": _unary(UnaryOpType.tanh, math.tanh),
    "exp": _unary(UnaryOpType.exp, math.exp),
    "log": _unary(UnaryOpType.log, math.log),
    "sqrt": _unary(UnaryOpType.sqrt, math.sqrt),
    "rsqrt": _unary(UnaryOpType.rsqrt, _rsqrt),
    # Python values: NumPy's floor, ceil and round (half to even), floats, as in Taichi
    "floor": _rounding(UnaryOpType.floor, np.floor),
    "ceil": _rounding(UnaryOpType.ceil, np.ceil),
    "round": _rounding(UnaryOpType.round, np.round),
    "popcnt": _unary(UnaryOpType.popcnt, _popcnt),
    "clz": _unary(UnaryOpType.clz, _clz),
    "frexp": _frexp,
    "atan2": _binary(BinaryOpType.atan2, math.atan2),
    "max": _nary(BinaryOpType.max, py.max),
    "min": _nary(BinaryOpType.min, py.min),
    "raw_div": _binary(BinaryOpType.div, _python_raw_div),
    "raw_mod": _binary(BinaryOpType.mod, _python_raw_mod),
    "bit_shr": _bit_shr,
    "atomic_add": _atomic(AtomicOpType.add),
    "atomic_sub": _atomic(AtomicOpType.sub),
    "atomic_min": _atomic(AtomicOpType.min),
    "atomic_max": _atomic(AtomicOpType.max),
    "atomic_and": _atomic(AtomicOpType.bit_and),
    "atomic_or": _atomic(AtomicOpType.bit_or),
    "atomic_xor": _atomic(AtomicOpType.bit_xor),
    "atomic_mul": _atomic(AtomicOpType.mul),
    "hex_to_rgb": _hex_to_rgb,
    "random": _random,
    "randn": _randn,
    "Struct": struct_literal,  # ti.Struct(a=1, b=v) in a kernel
    **OPERATOR_BUILTINS,  # operator.add(a, b), ti.lang.ops.add(a, b): as a + b
    **SPARSE_BUILTINS,  # ti.activate, ti.append, ... (sparse_ops.py)
    **SIMT_BUILTINS,  # ti.simt.block.SharedArray, sync, thread_idx (simt.py)
}

PYTHON_BUILTINS: dict[Any, str] = {
    py.range: "range",
    py.int: "int",
    py.float: "float",
    py.abs: "abs",
    py.all: "all",
    py.any: "any",
    py.max: "max",
    py.min: "min",
    pow: "pow",
    **PYTHON_OPERATORS,
}


def builtin_name(func: Any) -> str | None:
    """The `BUILTINS` key for `func`, if it is one of ours or a Python builtin we intercept."""
    name = getattr(func, "__ti_builtin__", None)
    if name is not None:
        return name
    try:
        return PYTHON_BUILTINS.get(func)
    except TypeError:  # unhashable callables
        return None


def is_dtype(value: Any) -> bool:
    return isinstance(value, PrimitiveType)
