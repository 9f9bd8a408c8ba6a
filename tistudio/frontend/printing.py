"""`print(...)`, f-strings, `str.format` and `%` inside kernels (the frontend half of printing).

Text is assembled at compile time: everything known while the kernel compiles (string literals,
Python numbers, `sep`, `end`, brackets around vector elements) is folded into one template, and
only the values computed at run time stay as `{}` placeholders (see `ir/printing.py`). So
`print("v =", v, sep="")` with a runtime 3-vector becomes one `FrontendPrint` of
`"v =[{}, {}, {}]\\n"` and three scalar expressions. An f-string, a `"...".format(x)` or a
`"..." % x` with runtime values is a `FormattedText` until it reaches `print`. The fields of
f-strings and `str.format` follow Taichi's rules (see `format_fields` and `format_items`).
"""

from __future__ import annotations

import ast
import re
import string
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
        """An f-string: see `format_fields` for what each `{value:spec}` becomes."""
        loc = self.loc(node)
        items: list[str | Field] = []
        for part in node.values:
            if not isinstance(part, ast.FormattedValue):
                items.append(str(part.value))  # a literal
                continue
            spec = self.visit_expr(part.format_spec) if part.format_spec is not None else None
            if not isinstance(spec, (str, type(None))):
                raise TaichiSyntaxError("a format spec must be known at compile time", loc)
            items.append(Field(self.visit_expr(part.value), part.conversion, spec or None))
        return self.format_fields(items, loc)

    def str_format(self, fmt: str, args: list[Any], kwargs: dict[str, Any], loc: Any) -> Any:
        """`"{} {1:.2f} {name}".format(...)`, with Taichi's rules for which value a field takes
        (see `format_items`)."""
        items = format_items(fmt, len(args), kwargs, loc)
        for item in items:
            if isinstance(item, Field):
                key = item.key
                item.value = args[key] if isinstance(key, int) else kwargs[key]
        return self.format_fields(items, loc)

    def format_fields(self, items: list[str | Field], loc: Any) -> Any:
        """Literal text and fields, as Taichi formats them: a field of a runtime value, of a
        vector or matrix (element by element), or of a number with a spec is printed by the
        kernel (`{x:.2f}` is C's `%.2f` and must suit the value's type); any other field is
        Python's `format` (`{True}` is `True`, `{1.23}` is `1.23`). Python's `str` when nothing
        is left for the kernel, else a `FormattedText` for `print`."""
        if not any(isinstance(item, Field) and item.by_kernel() for item in items):
            return "".join(
                item if isinstance(item, str) else _python_format(item, loc) for item in items
            )
        text = FormattedText()
        for item in items:
            if isinstance(item, str):
                text.template += escape(item)
            elif item.by_kernel():
                text.add(self.text_of(item.value, item.spec, loc))
            else:
                text.template += escape(_python_format(item, loc))
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


@dataclass
class Field:
    """One replacement field of an f-string or of `str.format`: its value, Python's conversion
    (`ord("r")` for `!r`, or None), its spec (None when empty) and, for `str.format`, the index
    or keyword that names its argument."""

    value: Any
    conversion: int | None
    spec: str | None
    key: int | str | None = None

    def by_kernel(self) -> bool:
        """Whether the kernel prints this field (see `format_fields`)."""
        if _has_runtime(self.value) or isinstance(self.value, ExprVector):
            return True
        number = isinstance(self.value, (int, float)) and self.conversion in (None, -1)
        return number and self.spec is not None


def is_str_format(func: Any) -> bool:
    """Whether `func` is the `format` method of a string (`"{}".format` in a kernel)."""
    return isinstance(getattr(func, "__self__", None), str) and func.__name__ == "format"


def format_items(fmt: str, n_args: int, kwargs: dict[str, Any], loc: Any) -> list[str | Field]:
    """The literals and fields of `str.format`'s `fmt`, each field keyed by the index or name of
    its argument, as Taichi numbers them: `{}` counts its own fields from 0 whatever explicit
    indices stand beside it (`"{1} {}"` is arguments 1 and 0), and every positional argument up
    to the highest index and every keyword must be used."""
    items: list[str | Field] = []
    auto, highest = 0, -1
    for literal, name, spec, conversion in _parse(fmt, loc):
        items.append(literal)
        if name is None:
            continue
        if spec and "{" in spec:
            raise TaichiSyntaxError(f"'{fmt}': a nested format spec is not supported", loc)
        key: int | str = name
        if name == "":
            key, auto = auto, auto + 1
        elif name.isdigit():
            key = int(name)
        if isinstance(key, int):
            highest = max(highest, key)
        items.append(Field(None, conversion and ord(conversion), spec or None, key))
    _check_arguments(fmt, items, highest + 1, n_args, kwargs, loc)
    return items


def _check_arguments(
    fmt: str, items: list[str | Field], wanted: int, n_args: int, kwargs: dict, loc: Any
) -> None:
    """Taichi's checks of `str.format`'s arguments against the fields, with its messages."""
    if wanted != n_args:
        raise TaichiSyntaxError(
            f"'{fmt}'.format(): Expected {wanted} positional argument(s), "
            f"but received {n_args} instead.",
            loc,
        )
    named = [item.key for item in items if isinstance(item, Field) and isinstance(item.key, str)]
    for key in named:
        if key not in kwargs:
            raise TaichiSyntaxError(f"'{fmt}'.format(): Keyword '{key}' not found.", loc)
    for key in kwargs:
        if key not in named:
            raise TaichiSyntaxError(f"'{fmt}'.format(): Keyword '{key}' not used.", loc)


def _parse(fmt: str, loc: Any) -> list[tuple[str, str | None, str | None, str | None]]:
    try:
        return list(string.Formatter().parse(fmt))
    except ValueError as e:
        raise TaichiSyntaxError(f"'{fmt}' is not a valid format string: {e}", loc) from None


def _python_format(item: Field, loc: Any) -> str:
    """What Python makes of a compile-time field (`!r`/`!s`/`!a`, then the spec)."""
    convert = {ord("r"): repr, ord("s"): str, ord("a"): ascii}.get(item.conversion or -1)
    value = item.value
    try:
        return format(convert(value) if convert else value, item.spec or "")
    except (TypeError, ValueError) as e:
        raise TaichiSyntaxError(f"cannot format {value!r}: {e}", loc) from None


def _has_runtime(value: Any) -> bool:
    if isinstance(value, ExprVector):
        return any(is_runtime(e) for e in value.elements)
    if isinstance(value, (list, tuple)):
        return any(_has_runtime(v) for v in value)
    return is_runtime(value) or isinstance(value, FormattedText)
