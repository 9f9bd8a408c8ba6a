"""GPU: up to eight rows of a 2-D loop per invocation around one inner loop (jam_rows).

`for i, j in c: acc = 0; for k in range(n): acc += a[i, k] * b[k, j]; c[i, j] = acc` gives
each GPU invocation one `(i, j)`, so every invocation loads its own `b[k, j]` for every `k`,
though all the rows of column `j` load the same ones. Hand-written WGSL in which each
invocation computes 8 rows of one column, loading each `b[k, j]` once for all of them, ran a
4096² matmul on an H200 at 6065 GFLOP/s, against 1539 with one row
(`benchmarks/gpu/matmul_probe.py`; Taichi's CUDA back end: 4680). This is the CPU's
unroll-and-jam (`jam.py`) with its copies one row apart.

A 2-D struct-for or ndrange over a dense field of power-of-two width reaches the back end as
one flat index split into a row `i = index >> L` and a column `j = index & (2^L - 1)`. This
pass marks such a task `jam(R, stride 2^L)`: R = 8 rows per invocation (4 or 2 if those do
not divide the number of rows). The WGSL emitter (`backends/webgpu/jam_rows.py`) then writes
the code before the inner loop once per row, one inner loop holding a copy of its body per
row, then the code after it per row, and what is the same for every row (the column, the
loads of `b[k, j]`) once. Each copy is one iteration of the original parallel loop, whose
iterations have no order, so results are unchanged. It applies only where that is all it
changes: a range_for from 0 with constant bounds, whose body is code without side effects
other than local variables, then one serial loop of at least `MIN_TRIPS` constant trips that
loads global memory and writes only local variables, then stores and atomics whose results
nobody reads, and no store into a field or array that the inner loop reads.
"""

from __future__ import annotations

from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.passes.context import PassContext
from tistudio.passes.jam import MIN_TRIPS, target

ROWS = (8, 4, 2)  # rows per invocation, the most that divides the number of rows
_ROW = (B.bit_sar, B.bit_shr)  # index >> L: the row


def run(kernel: Kernel, ctx: PassContext) -> bool:
    uses = kernel.use_counts()
    changed = False
    for task in kernel.body:
        if not isinstance(task, s.Offloaded) or task.schedule.jam > 1 or not _fits(task, uses):
            continue
        width = row_width(task)
        if width is None:
            continue
        rows = (task.end - task.begin) // width
        factor = next((r for r in ROWS if rows % r == 0), None)
        if factor is not None:
            task.schedule.jam, task.schedule.jam_stride = factor, width
            changed = True
    return changed


def row_width(task: s.Offloaded) -> int | None:
    """2^L if every use of the task's index is `index >> L` or `index & c` (0 <= c < 2^L),
    at least one of them the row, and the range holds whole rows; else None."""
    stmts = list(walk(task.body))
    indices = {x for x in stmts if isinstance(x, s.LoopIndex) and x.loop is task}
    shifts, masks = set(), set()
    for stmt in stmts:
        if not any(x in indices for x in stmt.operands()):
            continue
        if not (isinstance(stmt, s.BinaryOp) and stmt.lhs in indices and s.is_const(stmt.rhs)):
            return None
        if stmt.op in _ROW:
            shifts.add(int(stmt.rhs.value))
        elif stmt.op is B.bit_and:
            masks.add(int(stmt.rhs.value))
        else:
            return None
    if len(shifts) != 1 or not 0 < min(shifts) < 30:
        return None
    width = 1 << shifts.pop()
    if any(not 0 <= c < width for c in masks) or (task.end - task.begin) % width:
        return None
    return width


def _fits(task: s.Offloaded, uses: dict[Stmt, int]) -> bool:  # noqa: C901 (one early return each)
    """The task's shape and safety rules (see the docstring)."""
    if task.task_type is not TaskType.range_for or not (task.const_begin and task.const_end):
        return False
    if task.begin != 0 or task.schedule.lanes > 1 or task.schedule.unrolled:
        return False
    if len(task.tls_prologue) or len(task.tls_epilogue):
        return False
    stmts = task.body.stmts
    loops = [k for k, stmt in enumerate(stmts) if stmt.block_fields]
    if len(loops) != 1 or not isinstance(stmts[loops[0]], s.RangeFor):
        return False
    inner, before, after = stmts[loops[0]], stmts[: loops[0]], stmts[loops[0] + 1 :]
    assert isinstance(inner, s.RangeFor)
    if inner.reversed or not (s.is_const(inner.begin) and s.is_const(inner.end)):
        return False
    if int(inner.end.value) - int(inner.begin.value) < MIN_TRIPS:
        return False
    body = inner.body.stmts
    if not all(x.interleavable for x in before + body):  # values, loads, local variables
        return False
    if not any(isinstance(x, s.GlobalLoad) for x in body):
        return False
    for stmt in after:
        if isinstance(stmt, s.AtomicOp) and uses.get(stmt):
            return False  # the value it read would tell the copies' order apart
        if not (stmt.interleavable or isinstance(stmt, (s.GlobalStore, s.AtomicOp))):
            return False
    written = {
        target(x.ptr if isinstance(x, s.GlobalStore) else x.dest)
        for x in after
        if isinstance(x, (s.GlobalStore, s.AtomicOp))
    }
    read = {target(x.ptr) for x in body if isinstance(x, s.GlobalLoad)}
    return not (None in written or None in read or written & read)
