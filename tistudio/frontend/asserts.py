"""`assert` in kernels: a run-time check in debug mode, nothing otherwise (as in Taichi).

The message may be a string, a string `%`-formatted with kernel values
(`assert i < n, "i = %d" % i`), an f-string (`f"i = {i}"`) or `"i = {}".format(i)`. Either
way it becomes a `%`-style template plus the values that fill it in, which the kernel records
when the check fails and the host formats, so the user sees the values the kernel had. (Taichi
ignores a field's format spec here, `{x:.2f}` shows `x` as `{x}`; we apply it.)
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.printing import format_items
from tistudio.frontend.values import ExprVector, StructValue
from tistudio.ir import frontend as fe
from tistudio.ir.types import u1

# format specs that mean the same after `%` as after `:` (`.3f`, `5d`, `x`, `08.2e`, ...)
_PRINTF_SPEC = re.compile(r"[-+ 0#]*\d*(?:\.\d+)?[diouxXeEfFgGs]?")
_CONVERSIONS = {-1: "s", ord("s"): "s", ord("r"): "r", ord("a"): "a"}


def compile_assert(t: Any, node: ast.Assert) -> None:
    """Emit a `FrontendAssert` for `node` into transformer `t` when debug mode is on. Off, a
    condition that calls something is still compiled for the calls' side effects (a func that
    writes a field), as Taichi compiles it; only the check is left out."""
    if not t.config.debug:
        if any(isinstance(sub, ast.Call) for sub in ast.walk(node.test)):
            t.visit_expr(node.test)
        return
    loc = t.loc(node)
    cond = t.ops.truth(t.visit_expr(node.test), loc)
    if not is_runtime(cond):
        if cond:
            return  # true when compiled: nothing to check
        cond = fe.ConstExpr(0, dtype=u1, loc=loc)
    message, values = _message(t, node, loc)
    args = [t.ops.const(v, loc) for v in values]
    t.emit(fe.FrontendAssert(cond, message, args, loc=loc))


def _message(t: Any, node: ast.Assert, loc: Any) -> tuple[str, list[Any]]:
    """The `%` template and the values of an assert's message."""
    msg = node.msg
    if msg is None:
        return _escape(f"Assertion failed: {ast.unparse(node.test)}"), []
    if isinstance(msg, ast.JoinedStr):
        return _f_string(t, msg, loc)
    if isinstance(msg, ast.BinOp) and isinstance(msg.op, ast.Mod):
        template = t.visit_expr(msg.left)
        if isinstance(template, str):
            parts = msg.right.elts if isinstance(msg.right, ast.Tuple) else [msg.right]
            return template, [t.visit_expr(p) for p in parts]
    if isinstance(msg, ast.Call) and isinstance(msg.func, ast.Attribute):
        template = t.visit_expr(msg.func.value)
        if isinstance(template, str) and msg.func.attr == "format":
            return _str_format(t, template, msg, loc)
    value = t.visit_expr(msg)
    if isinstance(value, str):
        return _escape(value), []
    raise TaichiSyntaxError(
        "the message of an assert in a kernel must be a string, a string formatted with % "
        '("i = %d" % i) or an f-string',
        loc,
    )


def _f_string(t: Any, msg: ast.JoinedStr, loc: Any) -> tuple[str, list[Any]]:
    template, values = "", []
    for part in msg.values:
        if isinstance(part, ast.Constant):
            template += _escape(str(part.value))
            continue
        assert isinstance(part, ast.FormattedValue)
        spec = ""
        if part.format_spec is not None:
            spec = "".join(str(getattr(v, "value", "")) for v in part.format_spec.values)
        template += _conversion(spec, part.conversion, loc)
        values.append(_scalar(t.visit_expr(part.value), loc))
    return template, values


def _str_format(t: Any, fmt: str, msg: ast.Call, loc: Any) -> tuple[str, list[Any]]:
    """`"i={} x={:.2f}".format(i, x)`: each field as an f-string's, the fields numbered and
    matched to the arguments as Taichi's `str.format` in a kernel does (`format_items`)."""
    if any(isinstance(a, ast.Starred) for a in msg.args) or any(
        k.arg is None for k in msg.keywords
    ):
        raise TaichiSyntaxError("an assert message cannot format *args or **kwargs", loc)
    args = [t.visit_expr(a) for a in msg.args]
    kwargs = {k.arg: t.visit_expr(k.value) for k in msg.keywords if k.arg is not None}
    template, values = "", []
    for item in format_items(fmt, len(args), kwargs, loc):
        if isinstance(item, str):
            template += _escape(item)
            continue
        key = item.key
        template += _conversion(item.spec or "", item.conversion or -1, loc)
        values.append(_scalar(args[key] if isinstance(key, int) else kwargs[key], loc))
    return template, values


def _conversion(spec: str, conversion: int, loc: Any) -> str:
    """The `%` conversion of one `{value!conversion:spec}` field."""
    if not _PRINTF_SPEC.fullmatch(spec) or (spec and conversion != -1):
        raise TaichiSyntaxError(
            f"the format {spec!r} in an assert message is not supported; use one that "
            "printf also knows, like '.3f', '5d' or 'x'",
            loc,
        )
    if not spec or not spec[-1].isalpha():
        spec += _CONVERSIONS.get(conversion, "s")
    return "%" + spec


def _scalar(value: Any, loc: Any) -> Any:
    """A value an assert message can show: a scalar (a vector is Taichi's error too)."""
    if isinstance(value, (ExprVector, StructValue, list, tuple)):
        raise TaichiSyntaxError(
            "an assert message can show scalars only; format the elements (v[0], v[1], ...)",
            loc,
        )
    return value


def _escape(text: str) -> str:
    return text.replace("%", "%%")
