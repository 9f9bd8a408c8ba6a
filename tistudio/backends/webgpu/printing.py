"""`Print` on the GPU: append one record to the print buffer, a storage buffer that the
executable reads back after the dispatch (same layout as the CPU's, `backends/print_buffer.py`).

An invocation reserves its whole record with one `atomicAdd` on the cursor, then writes the
words with `atomicStore` (the buffer has a single `array<atomic<u32>>` view, so printing costs
one binding). A record that does not fit is counted as dropped and lowers the `end` mark, so
the host decodes whole records only; nothing waits, so a loop of many prints cannot hang.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from tistudio.backends.print_buffer import (
    CAPACITY,
    CURSOR,
    DEFAULT_CAPACITY,
    DROPPED,
    END,
    HEADER_WORDS,
    decode_buffer,
)
from tistudio.ir.printing import PrintFormat, print_id, value_words
from tistudio.ir.statements import Print
from tistudio.ir.types import PrimitiveType

RESOURCE = "print"


def emit_print(emitter: Any, stmt: Print) -> None:
    """`TaskEmitter.emit_Print`: reserve a record, then write it, or count it as dropped."""
    words = [f"{print_id(emitter.print_ids, stmt)}u"]
    for value in stmt.values:
        dtype = value.ret_type
        emitter.reg(stmt, dtype)  # refuses types the adapter cannot hold, naming the line
        words.extend(_words(emitter.value(value), dtype))
    buf = emitter.resources.use(RESOURCE, "au32", True)
    start, size = emitter.fresh("print_at"), f"{len(words)}u"
    emitter.line(f"let {start}: u32 = atomicAdd(&{buf}[0], {size});")
    capacity = f"atomicLoad(&{buf}[{CAPACITY}])"
    emitter.line(f"if ({start} + {size} <= {capacity} && {start} + {size} > {start}) {{")
    for k, word in enumerate(words):
        emitter.line(f"    atomicStore(&{buf}[{HEADER_WORDS + k}u + {start}], {word});")
    emitter.line("} else {")
    emitter.line(f"    atomicAdd(&{buf}[{DROPPED}], 1u);")
    emitter.line(f"    atomicMin(&{buf}[{END}], {start});")
    emitter.line("}")


def _words(value: str, dtype: PrimitiveType) -> list[str]:
    """WGSL expressions of the record words of one value (see `ir/printing.py`)."""
    if dtype.kind == "bool":
        return [f"select(0u, 1u, {value})"]
    if value_words(dtype) == 1:
        return [value if dtype.kind == "uint" else f"bitcast<u32>({value})"]
    bits = value if dtype.kind == "uint" else f"bitcast<u64>({value})"
    return [f"u32({bits} & 0xfffffffflu)", f"u32({bits} >> 32u)"]


class GpuPrintBuffer:
    """The device's print buffer, shared by the kernels of one back end. After a launch of a
    kernel that prints, `drain` reads the header back (which waits for the dispatches), then
    the records, writes their text through `sys.stdout` and empties the buffer."""

    def __init__(self, device: Any, capacity: int = DEFAULT_CAPACITY) -> None:
        self.device = device
        self.buffer = device.create_buffer(4 * (HEADER_WORDS + capacity))
        self.header = np.array([0, 0, capacity, capacity], dtype=np.uint32)
        device.write(self.buffer, self.header)

    def drain(self, formats: Sequence[PrintFormat]) -> None:
        head = np.frombuffer(self.device.read(self.buffer, 4 * HEADER_WORDS), np.uint32)
        used = min(int(head[CURSOR]), int(head[END]))
        if used == 0 and not head[DROPPED]:
            return
        raw = self.device.read(self.buffer, 4 * (HEADER_WORDS + used))
        text = decode_buffer(np.frombuffer(raw, np.uint32), formats)
        self.device.write(self.buffer, self.header)
        sys.stdout.write(text)
