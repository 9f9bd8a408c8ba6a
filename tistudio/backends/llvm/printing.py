"""`Print` on the CPU: append one record to the print buffer (see `backends/print_buffer.py`).

The record is reserved with one `atomicrmw add` on the buffer's cursor, so threads of a
parallel loop each get their own span and never interleave words; a record that does not fit
is counted as dropped and lowers the buffer's `end` mark instead. The values go in as raw bits
(`f16` widened to `f32`, narrow integers extended to 32 bits), and the host decodes them after
the launch, so no formatting code and no `printf` ends up in the kernel.
"""

from __future__ import annotations

from typing import Any

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32, I64, PTR
from tistudio.backends.print_buffer import CAPACITY, DROPPED, END, HEADER_WORDS
from tistudio.ir.printing import print_id
from tistudio.ir.statements import Print
from tistudio.ir.types import PrimitiveType

_ORDERING = "monotonic"


def emit_print(emitter: Any, stmt: Print) -> None:
    """`TaskEmitter.emit_Print`: reserve a record, then write it, or count it as dropped."""
    b: ir.IRBuilder = emitter.builder
    words = [ir.Constant(I32, print_id(emitter.print_ids, stmt))]
    for value in stmt.values:
        words.extend(_value_words(b, emitter.values[value], value.ret_type))
    size = ir.Constant(I32, len(words))
    base = emitter.ctx_load(emitter.layout.print_slot, PTR)
    start = b.atomic_rmw("add", base, size, _ORDERING)
    end = b.add(start, size)
    capacity = b.load(_word(b, base, CAPACITY), typ=I32)
    fits = b.and_(b.icmp_unsigned("<=", end, capacity), b.icmp_unsigned(">", end, start))
    write, drop, done = (b.append_basic_block(f"print_{x}") for x in ("write", "drop", "done"))
    b.cbranch(fits, write, drop)
    b.position_at_end(write)
    first = b.add(b.zext(start, I64), ir.Constant(I64, HEADER_WORDS))
    for k, word in enumerate(words):
        b.store(word, _word(b, base, b.add(first, ir.Constant(I64, k))))
    b.branch(done)
    b.position_at_end(drop)
    b.atomic_rmw("add", _word(b, base, DROPPED), ir.Constant(I32, 1), _ORDERING)
    b.atomic_rmw("umin", _word(b, base, END), start, _ORDERING)
    b.branch(done)
    b.position_at_end(done)


def _word(b: ir.IRBuilder, base: ir.Value, index: ir.Value | int) -> ir.Value:
    if isinstance(index, int):
        index = ir.Constant(I64, index)
    return b.gep(base, [index], inbounds=True, source_etype=I32)


def _value_words(b: ir.IRBuilder, value: ir.Value, dtype: PrimitiveType) -> list[ir.Value]:
    """The record words of one value: its bits, in one word or two (low word first)."""
    if dtype.is_float:
        if dtype.bits == 16:
            value = b.fpext(value, ir.FLOAT)
        value = b.bitcast(value, I64 if dtype.bits == 64 else I32)
    elif dtype.bits < 32:
        value = b.sext(value, I32) if dtype.kind == "int" else b.zext(value, I32)
    if dtype.bits == 64:
        return [b.trunc(value, I32), b.trunc(b.lshr(value, ir.Constant(I64, 32)), I32)]
    return [value]
