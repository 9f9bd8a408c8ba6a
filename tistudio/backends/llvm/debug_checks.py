"""Debug checks on the CPU: `Assert` statements, the launcher's early stop, the host's check.

A failing `Assert` claims the kernel's failure record (after the global temporaries, see
`ir/assertions.py`) with a compare-and-swap of its number, so the first failure wins; the
winner stores its message values, and the task returns at once, before the access it guards.
The native launcher stops before the next task when the record is set, and the executable
reads and clears the record after every launch, raising `TaichiAssertionError` for a failure.
Kernels without checks (every kernel outside debug mode) get none of this.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.context import GTMP_SLOT
from tistudio.backends.llvm.lltypes import I32, I64, PTR
from tistudio.ir import statements as s
from tistudio.ir.assertions import (
    ARG_BYTES,
    RECORD_HEADER,
    AssertInfo,
    assert_number,
    kernel_asserts,
    raise_if_failed,
    record_bytes,
    record_offset,
)
from tistudio.ir.stmt import Kernel, kernel_root
from tistudio.ir.types import PrimitiveType

if TYPE_CHECKING:
    from tistudio.backends.llvm.codegen import TaskEmitter
    from tistudio.backends.llvm.spec import KernelSpec

ORDERING = "monotonic"


def emit_assert(em: TaskEmitter, stmt: s.Assert) -> None:
    """`if !cond { claim the record; store the values; return }` in task emitter `em`."""
    b = em.builder
    kernel = em.kernel or kernel_root(stmt)  # an IR function's checks record in its kernel's
    failed = b.append_basic_block("assert_failed")
    passed = b.append_basic_block("assert_ok")
    b.cbranch(em.values[stmt.cond], passed, failed)
    b.position_at_end(failed)
    gtmp = em.ctx_load(GTMP_SLOT, PTR)
    record = em.byte_offset(gtmp, record_offset(kernel.gtmp_size), "record")
    number = ir.Constant(I32, assert_number(stmt, em.assert_numbers) + 1)
    first = b.extract_value(b.cmpxchg(record, ir.Constant(I32, 0), number, ORDERING, ORDERING), 1)
    write = b.append_basic_block("assert_record")
    leave = b.append_basic_block("assert_return")
    b.cbranch(first, write, leave)
    b.position_at_end(write)
    for k, arg in enumerate(stmt.args):
        slot = em.byte_offset(record, RECORD_HEADER + ARG_BYTES * k, "")
        b.store(_as_i64(b, em.values[arg], arg.ret_type), slot)
    b.branch(leave)
    b.position_at_end(leave)
    em.abandon()
    b.position_at_end(passed)


def _as_i64(b: ir.IRBuilder, value: ir.Value, dtype: PrimitiveType) -> ir.Value:
    """The bits of `value` in an i64: integers extended by their signedness, floats as bits."""
    if dtype.is_float:
        value = b.bitcast(value, ir.IntType(dtype.bits))
        return value if dtype.bits == 64 else b.zext(value, I64)
    if dtype.bits == 64:
        return value
    return b.sext(value, I64) if dtype.kind == "int" else b.zext(value, I64)


def stop_if_failed(b: ir.IRBuilder, ctx: ir.Value, kernel: Kernel) -> None:
    """In the launcher, between tasks: return if a check of this launch has failed."""
    if not any(True for _ in kernel_asserts(kernel)):
        return
    gtmp = b.load(b.gep(ctx, [ir.Constant(I64, GTMP_SLOT)], source_etype=I64), typ=PTR)
    offset = ir.Constant(I64, record_offset(kernel.gtmp_size))
    record = b.gep(gtmp, [offset], source_etype=ir.IntType(8))
    failed = b.icmp_unsigned("!=", b.load(record, typ=I32), ir.Constant(I32, 0))
    stop = b.append_basic_block("check_failed")
    go_on = b.append_basic_block("next_task")
    b.cbranch(failed, stop, go_on)
    b.position_at_end(stop)
    b.ret_void()
    b.position_at_end(go_on)


def gtmp_bytes(gtmp_size: int, checks: tuple[AssertInfo, ...]) -> int:
    """Bytes of the global-temporary buffer: the temporaries, then the failure record."""
    return record_offset(gtmp_size) + record_bytes(checks) if checks else gtmp_size


def checked(run: Callable[[], None], gtmp: ctypes.Array, spec: KernelSpec) -> Callable[[], None]:
    """`run` (one launch), then raise for a failed check, leaving the record clear."""
    checks = spec.checks
    if not checks:
        return run
    start = record_offset(spec.gtmp_size)
    record = memoryview(gtmp).cast("B")[start : start + record_bytes(checks)]
    name = spec.name

    def run_and_check() -> None:
        run()
        if record[0] or record[1] or record[2] or record[3]:
            data = bytes(record)
            record[:] = bytes(len(record))  # the next launch starts clean
            raise_if_failed(data, checks, name)

    return run_and_check
