"""`print(...)`, f-strings and `%`-formatting inside kernels (the frontend half of printing).

Text is assembled at compile time: everything known while the kernel compiles (string literals,
Python numbers, `sep`, `end`, brackets around vector elements) is folded into one template, and
only the values computed at run time stay as `{}` placeholders (see `ir/printing.py`). So
`print("v =", v, sep="")` with a runtime 3-vector becomes one `FrontendPrint` of
`"v =[{}, {}, {}]\\n"` and three scalar expressions. An f-string or a `"..." % x` with runtime
values is a `FormattedText` until it reaches `print`.
"""

from __future__ import annotations

import ast
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import ExprVector, StructValue
from tistudio.ir import frontend as fe
from tistudio.ir.printing import check_spec, escape, format_value, placeholder
from tistudio.ir.types import PrimitiveType

# one conversion of a `%` format string: `%%`, or flags, width, precision and a conversion
_PERCENT = re.compile(r"%(?:(%)|([-+ #0]*\d*(?:\.\d+)?)([diouxXeEfFgGcrsa]))")


@dataclass
class FormattedText:
    """Text with holes for runtime values: a template plus one scalar `Expr` per placeholder."""

    template: str = ""
    args: list[fe.Expr] = field(default_factory=list)

    def add(self, other: FormattedText) -> None:
        self.template += other.template
        self.args.extend(other.args)


class PrintingMixin:
    """Printing half of the transformer (see `transformer.Transformer`)."""

    def compile_print(self, args: list[Any], kwargs: dict[str, Any], loc: Any) -> None:
        """`print(*args, sep=" ", end="\\n")`: one `FrontendPrint`, as in Taichi."""
        unknown = set(kwargs) - {"sep", "end"}
        if unknown:
            raise TaichiSyntaxError(f"print() got an unexpected keyword '{unknown.pop()}'", loc)
        sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
        for name, value in (("sep", sep), ("end", end)):
            if value is not None and not isinstance(value, str):
                raise TaichiSyntaxError(
                    f"print(): {name} must be a string known at compile time", loc
                )
        text = FormattedText()
        for i, value in enumerate(args):
            if i:
                text.template += escape(" " if sep is None else sep)
            text.add(self.text_of(value, None, loc))
        text.template += escape("\n" if end is None else end)
        self.emit(fe.FrontendPrint(text.template, text.args, loc=loc))

    def text_of(self, value: Any, spec: str | None, loc: Any) -> FormattedText:
        """How `print` shows `value`: runtime scalars as placeholders, vectors and matrices as
        `[1, 2]` / `[[1, 2], [3, 4]]`, Python values as Taichi would print them."""
        if isinstance(value, FormattedText):
            return FormattedText(value.template, list(value.args))
        if is_runtime(value):
            problem = check_spec(spec or "", value.dtype)
            if problem is not None:
                raise TaichiTypeError(problem, loc)
            return FormattedText(placeholder(spec), [value])
        if isinstance(value, ExprVector):
            rows = list(value) if value.is_matrix else value.elements
            return self._bracketed(rows, spec, loc)
        if isinstance(value, (list, tuple)):
            return self._bracketed(list(value), spec, loc)
        if isinstance(value, StructValue):
            raise TaichiSyntaxError("print() of a struct is not supported; print its members", loc)
        return FormattedText(escape(self._python_text(value, spec, loc)))

    def _bracketed(self, items: list[Any], spec: str | None, loc: Any) -> FormattedText:
        text = FormattedText("[")
        for i, item in enumerate(items):
            if i:
                text.template += ", "
            text.add(self.text_of(item, spec, loc))
        text.template += "]"
        return text

    def _python_text(self, value: Any, spec: str | None, loc: Any) -> str:
        """A compile-time value: numbers as the kernel would print them (a Python float is an
        `f32` under the default `default_fp`), anything else as Python's `format`."""
        if isinstance(value, (bool, int, float)):
            dtype: PrimitiveType = (
                self.config.default_fp if isinstance(value, float) else self.config.default_ip
            )
            problem = check_spec(spec or "", dtype)
            if problem is not None:
                raise TaichiTypeError(problem, loc)
            if dtype.is_float and dtype.bits == 32:
                value = struct.unpack("<f", struct.pack("<f", value))[0]
            return format_value(value, dtype, spec or "")
        try:
            return format(value, spec or "")
        except (TypeError, ValueError) as e:
            raise TaichiSyntaxError(f"cannot format {value!r}: {e}", loc) from None

    # --- f-strings and % ----------------------------------------------------------------------

    def expr_JoinedStr(self, node: ast.JoinedStr) -> Any:
        """An f-string: Python's `str` when every value is known at compile time, else a
        `FormattedText` for `print`, in which numbers look as Taichi prints them."""
        loc = self.loc(node)
        parts: list[tuple[Any, int | None, str | None]] = []  # (value, conversion, spec)
        for part in node.values:
            if not isinstance(part, ast.FormattedValue):
                parts.append((str(part.value), None, None))  # a literal
                continue
            spec = self.visit_expr(part.format_spec) if part.format_spec is not None else None
            if not isinstance(spec, (str, type(None))):
                raise TaichiSyntaxError("a format spec must be known at compile time", loc)
            parts.append((self.visit_expr(part.value), part.conversion, spec))
        if not any(_has_runtime(value) for value, _, _ in parts):
            return "".join(
                value if conv is None else _python_format(value, conv, spec, loc)
                for value, conv, spec in parts
            )
        text = FormattedText()
        for value, conv, spec in parts:
            literal = conv is None
            text.add(FormattedText(escape(value)) if literal else self.text_of(value, spec, loc))
        return text

    def percent_format(self, fmt: str, values: Any, loc: Any) -> Any:
        """`"x = %d, v = %s" % (x, v)`: Python's `%` when nothing is a runtime value, else a
        `FormattedText` in which each conversion of a runtime scalar becomes its spec."""
        items = list(values) if isinstance(values, tuple) else [values]
        if not any(_has_runtime(v) for v in items):
            try:
                return fmt % values
            except (TypeError, ValueError) as e:
                raise TaichiSyntaxError(f"{type(e).__name__}: {e}", loc) from None
        text, pos = FormattedText(), 0
        for m in _PERCENT.finditer(fmt):
            text.template += escape(fmt[pos : m.start()])
            pos = m.end()
            if m.group(1):
                text.template += "%"
                continue
            if not items:
                raise TaichiSyntaxError("not enough arguments for format string", loc)
            conv = m.group(3)
            spec = None if conv in "rsa" else m.group(2) + conv
            text.add(self.text_of(items.pop(0), spec, loc))
        if items:
            raise TaichiSyntaxError("not all arguments converted during string formatting", loc)
        text.template += escape(fmt[pos:])
        return text


def _python_format(value: Any, conversion: int, spec: str | None, loc: Any) -> str:
    """What Python's f-string makes of a compile-time value (`!r`/`!s`/`!a`, then the spec)."""
    convert = {ord("r"): repr, ord("s"): str, ord("a"): ascii}.get(conversion)
    try:
        return format(convert(value) if convert else value, spec or "")
    except (TypeError, ValueError) as e:
        raise TaichiSyntaxError(f"cannot format {value!r}: {e}", loc) from None


def _has_runtime(value: Any) -> bool:
    if isinstance(value, ExprVector):
        return any(is_runtime(e) for e in value.elements)
    if isinstance(value, (list, tuple)):
        return any(_has_runtime(v) for v in value)
    return is_runtime(value) or isinstance(value, FormattedText)
