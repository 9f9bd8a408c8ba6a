"""`assert` in kernels: a run-time check in debug mode, nothing otherwise (as in Taichi).

The message may be a string, a string `%`-formatted with kernel values
(`assert i < n, "i = %d" % i`) or an f-string (`f"i = {i}"`). Either way it becomes a
`%`-style template plus the values that fill it in, which the kernel records when the check
fails and the host formats, so the user sees the values the kernel had.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.operators import is_runtime
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
        if not _PRINTF_SPEC.fullmatch(spec) or (spec and part.conversion != -1):
            raise TaichiSyntaxError(
                f"the format {spec!r} in an assert message is not supported; use one that "
                "printf also knows, like '.3f', '5d' or 'x'",
                loc,
            )
        if not spec or not spec[-1].isalpha():
            spec += _CONVERSIONS.get(part.conversion, "s")
        template += "%" + spec
        values.append(t.visit_expr(part.value))
    return template, values


def _escape(text: str) -> str:
    return text.replace("%", "%%")
