"""CPU: four outer iterations at once around one long inner loop (unroll-and-jam, jam).

`for i in y: s = 0; for j in range(n): s += a[i, j] * x[j]; y[i] = s` streams one row of `a`
at a time on each thread. The vectorised inner loop is as good as it gets, but one stream per
core leaves memory bandwidth unused: the same kernel written with four rows per iteration ran
at NumPy's BLAS speed (mat-vec 4096², 2 threads: 1.9-2.7 ms against 2.5-3.6 for the plain
loop). This pass marks such a task `jam(4)`, and the CPU code generator then emits it as

    for i in [lo, lo + 4 * ((hi - lo) // 4)) step 4:   # the part before the inner loop,
        before(i); before(i + 1); ...; before(i + 3)   # four times
        for j in range(n): body(i, j); ...; body(i + 3, j)
        after(i); ...; after(i + 3)
    for i in [that, hi): the task's body as written      # the remainder

Every copy has its own values and local variables. Iterations of a parallel loop are unordered
(any interleaving is a valid schedule), so this keeps each iteration's own order and nothing
else; it applies only where that is all it changes: one inner loop with constant bounds and at
least `MIN_TRIPS` iterations that loads global memory, no other control flow, an inner body
that writes only local variables, and no store around it into a field or array that the inner
loop reads (an iteration might read what the one before it wrote). LLVM's own unroll-and-jam
does not apply to these loops (the vectoriser has split the inner loop into body and remainder
before it runs).
"""

from __future__ import annotations

from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.passes.context import PassContext

COPIES = 4
MIN_TRIPS = 64  # inner iterations below which the streams are too short to matter

# What the parts around it may not hold: output and checks (their order is observable).
_NOT_AROUND = (s.Print, s.Assert, s.Return, s.Break, s.Continue)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if isinstance(task, s.Offloaded) and task.schedule.jam == 1 and _applies(task):
            task.schedule.jam = COPIES
            changed = True
    return changed


def _applies(task: s.Offloaded) -> bool:  # noqa: C901 (one early return per condition)
    """Whether unroll-and-jam applies to `task` (see the docstring)."""
    if task.task_type is not TaskType.range_for:
        return False
    stmts = task.body.stmts
    loops = [k for k, stmt in enumerate(stmts) if stmt.block_fields]
    if len(loops) != 1 or not isinstance(stmts[loops[0]], s.RangeFor):
        return False
    at = loops[0]
    inner, before, after = stmts[at], stmts[:at], stmts[at + 1 :]
    assert isinstance(inner, s.RangeFor)
    if inner.reversed or not (isinstance(inner.begin, s.Const) and isinstance(inner.end, s.Const)):
        return False
    if int(inner.end.value) - int(inner.begin.value) < MIN_TRIPS:
        return False
    body = inner.body.stmts
    if not all(stmt.interleavable for stmt in body):  # values, loads, local variables
        return False
    if not any(isinstance(stmt, s.GlobalLoad) for stmt in body):
        return False
    around = before + after
    if any(isinstance(stmt, _NOT_AROUND) or stmt.uses_ad_stack for stmt in around):
        return False
    written = {
        target(stmt.ptr if isinstance(stmt, s.GlobalStore) else stmt.dest)
        for stmt in around
        if isinstance(stmt, (s.GlobalStore, s.AtomicOp))
    }
    read = {target(stmt.ptr) for stmt in body if isinstance(stmt, s.GlobalLoad)}
    if None in written or None in read or written & read:
        return False  # an iteration may read what an earlier one wrote: keep their order
    return True


def target(ptr: Stmt) -> object:
    """What a lowered address points into: a field (its place SNode), any ndarray (two
    parameters may be one array), a thread-local or temporary slot; None if unknown."""
    if isinstance(ptr, s.GetCh):
        return ptr.child
    if isinstance(ptr, s.ExternalPtr):
        return "ndarray"
    if isinstance(ptr, s.ThreadLocalPtr):
        return ("thread-local", ptr.offset)
    if isinstance(ptr, s.GlobalTemporary):
        return ("temporary", ptr.offset)
    return None
