"""`return` in kernels and ti.funcs, with Taichi's rules.

Taichi compiles a body statement by statement and stops at the first `return` it reaches while
compiling: a return may stand at the top level or inside a `ti.static` if/for (both decided at
compile time), and whatever follows it is left out (`FuncFrame.returned`, which `visit_body`
reads). A return under a run-time if, for or while is refused, except in a `ti.real_func`,
which is a function of its own (`loop_returns.py`). A kernel or ti.func annotated with a return
type must reach a return that gives a value, and a kernel returning a struct must return a
struct of that type: the same members, vectors of the same shapes, integers for integer members
and floats for float members (Taichi's `StructType.__instancecheck__`).
"""

from __future__ import annotations

import ast
import numbers
import typing
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import ExprVector, StructValue
from tistudio.ir import frontend as fe

NON_STATIC = "Return inside non-static if/for is not supported"
KERNEL_NO_RETURN = "Kernel has a return type but does not have a return statement"
FUNC_NO_RETURN = "Function has a return type but does not have a return statement"


def compile_return(t: Any, node: ast.Return) -> None:
    """A `return` statement of the kernel or function being compiled (`t` is the transformer)."""
    frame = t.frame
    if not frame.real and t.runtime_nesting > frame.base_nesting:
        where = "a kernel" if frame.kind == "kernel" else "a ti.func"
        hint = (
            ""
            if frame.kind == "kernel"
            else " (a return inside a loop is allowed in a ti.real_func)"
        )
        raise TaichiSyntaxError(
            f"{NON_STATIC}: {where} may only return at its top level or inside ti.static "
            f"if/for, not inside a run-time if/for/while{hint}",
            t.loc(node),
        )
    if frame.kind == "func":
        t.func_return(node)
    else:
        _kernel_return(t, node)


def check_returned(frame: Any, what: str, loc: Any) -> None:
    """A kernel or ti.func with a return annotation whose compiled body reached no return of
    a value (none at all, a bare `return`, or `return` of a function that gives nothing)."""
    if frame.returned == "value" or frame.real:
        return
    if what == "kernel":
        message = f"{KERNEL_NO_RETURN}: it is annotated to return a value but has no return"
    else:
        message = f"{FUNC_NO_RETURN}: it is annotated to return a value but returns none"
    raise TaichiSyntaxError(message, loc)


def _kernel_return(t: Any, node: ast.Return) -> None:
    loc = t.loc(node)
    value = t.visit_expr(node.value) if node.value is not None else None
    if value is None:  # `return`, `return None`, or the result of a function that gives none
        t.frame.returned = "void"
        if not t.kernel_ret_types:
            t.emit(fe.FrontendReturn([], loc=loc))
        return
    if not t.kernel_ret_types:
        raise TaichiSyntaxError(
            "this kernel returns a value but has no return type: A kernel with a return value "
            "must be annotated with a return type, e.g. def func() -> ti.f32",
            loc,
        )
    parts = value if isinstance(value, tuple) else (value,)
    for part, ann in zip(parts, _ret_annotations(t.frame.ret_annotation)):
        struct_type = getattr(ann, "_ti_struct_type", None)
        if struct_type is not None and not _fits_struct(t, struct_type, part):
            raise TaichiTypeError(
                f"this kernel must return a {struct_type!r}, but returns another value: Return "
                f"(type={_describe(part)}) cannot be converted into required type {struct_type!r}",
                loc,
            )
    values: list[Any] = []  # vectors and matrices return their elements, flat
    for v in parts:
        if isinstance(v, StructValue):
            values.extend(t.flatten_struct(v))
        else:
            values.extend(v.elements if isinstance(v, ExprVector) else [v])
    if len(values) != len(t.kernel_ret_types):
        expected = len(t.kernel_ret_types)
        raise TaichiSyntaxError(
            f"this kernel is annotated to return {expected} value(s) but returns {len(values)}",
            loc,
        )
    exprs = [t.ops.cast(v, ty, loc) for v, ty in zip(values, t.kernel_ret_types)]
    t.emit(fe.FrontendReturn(exprs, loc=loc))
    t.frame.returned = "value"


def _ret_annotations(annotation: Any) -> list[Any]:
    """Each declared return value's annotation: `-> (ti.f32, s0)`, `-> tuple[...]`, one."""
    if annotation is None:
        return []
    if typing.get_origin(annotation) is tuple:
        return list(typing.get_args(annotation))
    return list(annotation) if isinstance(annotation, (tuple, list)) else [annotation]


def _fits_struct(t: Any, struct_type: Any, value: Any) -> bool:
    """Whether `value` is a struct of `struct_type`, by Taichi's rules (see the docstring)."""
    if not isinstance(value, StructValue):
        return False
    if list(struct_type.members) != list(value.members):
        return False
    for name, member_type in struct_type.members.items():
        if not _fits_member(t, member_type, value.members[name]):
            return False
    return True


def _fits_member(t: Any, member_type: Any, value: Any) -> bool:
    nested = getattr(member_type, "_ti_struct_type", None)
    if nested is not None:
        return _fits_struct(t, nested, value)
    matrix = getattr(member_type, "_ti_matrix_type", None)
    if matrix is not None:
        return isinstance(value, ExprVector) and tuple(value.shape) == tuple(matrix[0])
    if isinstance(value, (ExprVector, StructValue)):
        return False
    dtype = t.resolve_dtype(member_type, None)
    if is_runtime(value):
        return value.dtype.is_float == dtype.is_float
    if dtype.is_float:
        return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
    return isinstance(value, numbers.Integral)


def _describe(value: Any) -> str:
    if isinstance(value, StructValue):
        return f"struct({', '.join(value.members)})"
    if isinstance(value, ExprVector):
        return f"vector{tuple(value.shape)}"
    return str(getattr(value, "dtype", type(value).__name__))
