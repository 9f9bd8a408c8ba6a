"""What `print(...)` inside a kernel writes: templates, Taichi's printf-style specs, records.

A `Print` statement carries a *template*, literal text with one `{}` or `{:spec}` placeholder per
value (`{{`/`}}` are literal braces), so `print("x =", x, v)` with a 2-vector `v` becomes
`"x = {} [{}, {}]\\n"` and three scalar values. Specs are Taichi's: printf conversions that must
suit the value's type (`{x:.3f}` for floats, `{n:5d}` for signed, `{n:x}` for unsigned
integers); floats default to `%f`, `f64` to `%.12f`, as Taichi's printf does.

Kernels do not format anything. Both back ends append *records* to a print buffer: a format id
(the index of the `Print` in the kernel, see `print_formats`) and each value's raw bits in one
32-bit word, or two (low word first) for 64-bit types. The host turns records back into text
with `format_line`, so the CPU, the GPU and the reference interpreter print the same.
"""

from __future__ import annotations

import itertools
import math
import re
import string
import struct
from collections.abc import Callable
from dataclasses import dataclass

from tistudio.ir.statements import Print
from tistudio.ir.stmt import Kernel, Stmt, kernel_root
from tistudio.ir.types import PrimitiveType

_SPEC = re.compile(
    r"%?(?P<flags>[-+ #0]*)(?P<width>\d+)?(?:\.(?P<prec>\d+))?"
    r"(?P<length>hh|ll|[hljztL])?(?P<conv>[a-zA-Z])?"
)
_CONVERSIONS = {"int": "di", "bool": "di", "uint": "uxXo", "float": "fFeEgGaA"}
_DEFAULT_CONVERSION = {"int": "d", "bool": "d", "uint": "u", "float": "f"}


@dataclass(frozen=True)
class PrintFormat:
    """One `Print` statement as the host decodes it: its template and its values' types."""

    template: str
    dtypes: tuple[PrimitiveType, ...]

    @property
    def words(self) -> int:
        """32-bit words of one record: the format id, then the values."""
        return 1 + sum(value_words(t) for t in self.dtypes)


def value_words(dtype: PrimitiveType) -> int:
    """Words a value of `dtype` takes in a record (64-bit types take two)."""
    return 2 if dtype.bits == 64 else 1


def escape(text: str) -> str:
    """`text` as a template literal (braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def placeholder(spec: str | None) -> str:
    return "{:" + spec + "}" if spec else "{}"


def pieces(template: str) -> list[tuple[str, str | None]]:
    """(literal text, spec of the value after it or None at the end), in order."""
    out: list[tuple[str, str | None]] = []
    for literal, name, spec, _ in string.Formatter().parse(template):
        out.append((literal, None if name is None else (spec or "")))
    return out


def count_values(template: str) -> int:
    return sum(spec is not None for _, spec in pieces(template))


def check_spec(spec: str, dtype: PrimitiveType) -> str | None:
    """Why `spec` cannot format a `dtype` (Taichi's wording), or None when it can."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return f"'{spec}' is not a valid printf format specifier."
    conv = m.group("conv")
    if conv is None:
        return None
    if conv in "csnp":
        return f"conversion '{conv}' is not supported."
    if conv not in _CONVERSIONS[dtype.kind]:
        return f"'{spec}' doesn't match '{dtype}'."
    return None


def format_value(value: int | float, dtype: PrimitiveType, spec: str = "") -> str:
    """`value` as Taichi's printf shows it: the spec's flags, width, precision and conversion
    merged with the type's default (`%d`, `%u`, `%f`; `%.12f` for `f64`)."""
    return printf(dtype, spec)(value)


def printf(dtype: PrimitiveType, spec: str) -> Callable[[int | float], str]:
    """The function `format_value` applies for `dtype` and `spec` (made once per format when
    many records are decoded)."""
    m = _SPEC.fullmatch(spec)
    assert m is not None, spec  # checked by the frontend
    conv = m.group("conv") or _DEFAULT_CONVERSION[dtype.kind]
    prec = m.group("prec")
    if prec is None and dtype.is_float and dtype.bits == 64:
        prec = "12"
    flags, width = m.group("flags"), m.group("width") or ""
    pyfmt = f"%{flags}{width}{'.' + prec if prec is not None else ''}{conv}"
    if not dtype.is_float:
        if "#" in flags and conv == "o":  # C writes 017 where Python writes 0o17
            return lambda v: (pyfmt % int(v)).replace("0o", "0", 1)
        return lambda v: pyfmt % int(v)
    if conv in "aA":
        return lambda v: _pad(_hex_float(float(v), prec, conv == "A", flags), flags, width)

    def float_text(v: int | float) -> str:
        text = pyfmt % v
        if v != v and math.copysign(1.0, v) < 0:  # C prints the sign of a NaN
            text = re.sub(r"(nan|NAN)", r"-\1", text, count=1)
        return text

    return float_text


def _hex_float(x: float, prec: str | None, upper: bool, flags: str) -> str:
    """C's `%a`: `0x1.8p+0`; without a precision, exactly as many hex digits as needed."""
    sign = "-" if math.copysign(1.0, x) < 0 else ("+" if "+" in flags else " " * (" " in flags))
    x = abs(x)
    if math.isinf(x) or math.isnan(x):
        text = "inf" if math.isinf(x) else "nan"
        return sign + (text.upper() if upper else text)
    lead, rest = x.hex()[2:].split(".")
    digits, exponent = rest.split("p")
    if prec is None:
        digits = digits.rstrip("0")
    else:
        p = int(prec)
        value, drop = int(lead + digits, 16), 4 * (len(digits) - p)
        if drop > 0:
            value = (value + (1 << (drop - 1)) - 1 + ((value >> drop) & 1)) >> drop
        else:
            value <<= -drop
        hexed = f"{value:x}"
        lead, digits = (hexed[:-p], hexed[-p:]) if p else (hexed, "")
    exponent = exponent if exponent.startswith("-") else "+" + exponent.lstrip("+")
    text = f"0x{lead}{'.' + digits if digits or '#' in flags else ''}p{exponent}"
    return sign + (text.upper() if upper else text)


def _pad(text: str, flags: str, width: str) -> str:
    n = int(width or 0)
    if "-" in flags:
        return text.ljust(n)
    if "0" in flags and "0x" in text.lower():
        at = text.lower().index("0x") + 2
        return text[:at] + "0" * (n - len(text)) + text[at:]
    return text.rjust(n)


def format_line(fmt: PrintFormat, values: list[int | float]) -> str:
    """The text one `Print` writes, given its values (already Python numbers)."""
    out: list[str] = []
    it = iter(zip(values, fmt.dtypes))
    for literal, spec in pieces(fmt.template):
        out.append(literal)
        if spec is not None:
            value, dtype = next(it)
            out.append(format_value(value, dtype, spec))
    return "".join(out)


# --- records ------------------------------------------------------------------------------

_UNPACK = {32: {"float": "<f", "int": "<i"}, 64: {"float": "<d", "int": "<q"}}


def decode_value(words: list[int], dtype: PrimitiveType) -> int | float:
    """A value from its record words (`value_words(dtype)` of them, low word first)."""
    raw = words[0] | (words[1] << 32 if dtype.bits == 64 else 0)
    bits = 64 if dtype.bits == 64 else 32
    if dtype.kind == "uint" or dtype.kind == "bool":
        return raw
    return struct.unpack(_UNPACK[bits][dtype.kind], raw.to_bytes(bits // 8, "little"))[0]


def decode_records(words: list[int], formats: list[PrintFormat]) -> str:
    """The text of consecutive records (`words` holds exactly the records written)."""
    makers: dict[int, Callable[[list[int], int], tuple[str, int]]] = {}
    out: list[str] = []
    pos = 0
    while pos < len(words):
        fid = words[pos]
        if fid not in makers:
            makers[fid] = _line_maker(formats[fid])
        text, pos = makers[fid](words, pos + 1)
        out.append(text)
    return "".join(out)


def _line_maker(fmt: PrintFormat) -> Callable[[list[int], int], tuple[str, int]]:
    """Decode one record of `fmt` from `words` at `pos`: (its text, the next record's pos)."""
    steps = []
    dtypes, tail = iter(fmt.dtypes), ""
    for literal, spec in pieces(fmt.template):  # `{{` splits a literal: join the parts again
        tail += literal
        if spec is not None:
            dtype = next(dtypes)
            steps.append((tail, value_words(dtype), dtype, printf(dtype, spec)))
            tail = ""

    def make(words: list[int], pos: int) -> tuple[str, int]:
        out = []
        for literal, n, dtype, show in steps:
            out.append(literal)
            out.append(show(decode_value(words[pos : pos + n], dtype)))
            pos += n
        out.append(tail)
        return "".join(out), pos

    return make


def print_id(ids: dict[Stmt, int], stmt: Stmt) -> int:
    """`stmt`'s format id, from `ids` (an emitter's, filled from its kernel on first use)."""
    if not ids:
        ids.update(print_formats(kernel_root(stmt))[1])
    return ids[stmt]


def print_formats(kernel: Kernel) -> tuple[list[PrintFormat], dict[Stmt, int]]:
    """Every `Print` of `kernel` in visit order (its index is its format id), then those of
    its IR functions (`ir/calls.py`), and the ids."""
    formats: list[PrintFormat] = []
    ids: dict[Stmt, int] = {}
    for stmt in itertools.chain(kernel.walk(), *(f.walk() for f in kernel.functions)):
        if isinstance(stmt, Print):
            ids[stmt] = len(formats)
            dtypes = tuple(v.ret_type for v in stmt.values)
            formats.append(PrintFormat(stmt.template, dtypes))  # type: ignore[arg-type]
    return formats, ids
