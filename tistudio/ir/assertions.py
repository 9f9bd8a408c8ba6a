"""The kernel -> host channel of debug checks: which `Assert` failed, with which values.

In debug mode a kernel's `Assert` statements are numbered in walk order of the final IR; that
order is the table (`assert_table`) both back ends and the host agree on. A failing check
writes one *record* into its kernel's global-temporary buffer, after the temporaries
(`record_offset`): a u32 holding the failed check's number plus one (0: nothing failed, so the
first failure wins by compare-and-swap), then 8 bytes per message argument (the value's bits,
low word first). After the launch the host reads the record (`raise_if_failed`), clears it, so
the next launch starts clean, and raises `TaichiAssertionError` naming the kernel, the user's
line and the message filled in with the recorded values.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tistudio.ir.statements import Assert, normalize_value
from tistudio.ir.stmt import Kernel, SourceLoc, kernel_root, walk
from tistudio.ir.types import PrimitiveType, parse_type

RECORD_HEADER = 8  # bytes before the first argument: the u32 check number + 1, and padding
ARG_BYTES = 8


class TaichiRuntimeError(RuntimeError):
    """A failure while running a compiled kernel or touching runtime objects."""


class TaichiAssertionError(TaichiRuntimeError, AssertionError):
    """A check failed inside a kernel: a user `assert`, an index out of bounds, or an integer
    division by zero (`ti.init(debug=True)`), as Taichi's exception of that name; or, in any
    mode, a loop over more elements than its 32-bit index counts (`passes/ndrange.py`)."""


@dataclass(frozen=True)
class AssertInfo:
    """What the host needs to report one check: its message template, the types of the
    values that fill it in, and where it is in the user's source."""

    message: str
    arg_types: tuple[PrimitiveType, ...]
    loc: SourceLoc | None = None


def kernel_asserts(kernel: Kernel) -> Iterator[Assert]:
    """The `Assert` statements of `kernel`, then of its IR functions, in the order that
    numbers them."""
    bodies = [kernel.body, *(f.body for f in kernel.functions)]
    return (stmt for body in bodies for stmt in walk(body) if isinstance(stmt, Assert))


def assert_number(stmt: Assert, numbers: dict[Assert, int]) -> int:
    """The number of check `stmt`, its index in `kernel_asserts`. `numbers` is the emitter's
    table of them, filled from the whole kernel at its first check, so a task's checks cost
    one walk of the kernel, not one each."""
    if not numbers:
        numbers.update((a, k) for k, a in enumerate(kernel_asserts(kernel_root(stmt))))
    return numbers[stmt]


def assert_table(kernel: Kernel) -> tuple[AssertInfo, ...]:
    """One `AssertInfo` per check of `kernel`, indexed by check number."""
    return tuple(
        AssertInfo(a.message, tuple(arg.ret_type for arg in a.args), a.loc)  # type: ignore[misc]
        for a in kernel_asserts(kernel)
    )


def checks_to_json(table: tuple[AssertInfo, ...]) -> list:
    """The table as JSON (AOT modules and the disk cache store it with the kernel)."""
    out = []
    for info in table:
        loc = info.loc
        where = None if loc is None else [loc.filename, loc.line, loc.col, loc.source_line]
        out.append([info.message, [str(t) for t in info.arg_types], where])
    return out


def checks_from_json(data: list) -> tuple[AssertInfo, ...]:
    return tuple(
        AssertInfo(message, tuple(parse_type(t) for t in types), where and SourceLoc(*where))
        for message, types, where in data
    )


def record_offset(gtmp_size: int) -> int:
    """Byte offset of the failure record in the global temporaries: after them, 8-aligned."""
    return -(-gtmp_size // 8) * 8


def record_bytes(table: tuple[AssertInfo, ...]) -> int:
    """Size of the failure record for these checks (0 when there are none)."""
    if not table:
        return 0
    return RECORD_HEADER + ARG_BYTES * max(len(info.arg_types) for info in table)


def raise_if_failed(record: memoryview | bytes, table: tuple[AssertInfo, ...], kernel: str):
    """Raise `TaichiAssertionError` if `record` (the bytes of a failure record) holds one."""
    (number,) = struct.unpack_from("<I", record, 0)
    if number == 0:
        return
    if number > len(table):
        raise TaichiRuntimeError(f"kernel {kernel!r} reported unknown check {number - 1}")
    info = table[number - 1]
    values = []
    for k, dtype in enumerate(info.arg_types):
        start = RECORD_HEADER + ARG_BYTES * k
        values.append(_decode(bytes(record[start : start + ARG_BYTES]), dtype))
    raise TaichiAssertionError(format_failure(info, values, kernel))


def _decode(raw: bytes, dtype: PrimitiveType) -> int | float | bool:
    """The value whose bits a check wrote (ints sign- or zero-extended, floats as themselves)."""
    if dtype.is_float:
        return _Recorded(np.frombuffer(raw, dtype.numpy_name, count=1)[0])
    bits = int.from_bytes(raw if dtype.bits == 64 else raw[:4], "little")
    return normalize_value(bits, dtype)


class _Recorded(float):
    """A recorded float. `%s` shows it as Taichi's messages do, the shortest text that reads
    back as the same value of its own type with no trailing `.0` (an f32 0.1 is `0.1`, not
    0.10000000149; 1.0 is `1`); `%.2f` and the like format the number."""

    def __new__(cls, value: np.floating) -> _Recorded:
        recorded = super().__new__(cls, float(value))
        text = str(value)
        recorded.text = text[:-2] if text.endswith(".0") else text
        return recorded

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def format_failure(info: AssertInfo, values: list, kernel: str) -> str:
    """`(kernel=k, line 12) Accessing field 'x' ...`, then the user's file, line and source."""
    try:
        message = info.message % tuple(values)
    except (TypeError, ValueError):
        message = f"{info.message} {tuple(values)}"
    name = re.sub(r"_c\d+_\d+(?=(_reverse_grad|_forward_grad)?$)", "", kernel)
    loc = info.loc
    if loc is None:
        return f"(kernel={name}) {message}"
    lines = [
        f"(kernel={name}, line {loc.line}) {message}",
        f'File "{loc.filename}", line {loc.line}',
    ]
    if loc.source_line:
        lines.append("    " + loc.source_line.strip())
    return "\n".join(lines)
