"""Unroll-and-jam of a parallel loop around one long inner loop: four outer iterations at once.

`for i in y: s = 0; for j in range(n): s += a[i, j] * x[j]; y[i] = s` streams one row of `a`
at a time on each thread. The vectorised inner loop is as good as it gets, but one stream per
core leaves memory bandwidth unused: the same kernel written with four rows per iteration ran
at NumPy's BLAS speed (mat-vec 4096², 2 threads: 1.9-2.7 ms against 2.5-3.6 for the plain
loop). So the CPU code generator emits such a task as

    for i in [lo, lo + 4 * ((hi - lo) // 4)) step 4:   # the part before the inner loop,
        before(i); before(i + 1); ...; before(i + 3)   # four times
        for j in range(n): body(i, j); ...; body(i + 3, j)
        after(i); ...; after(i + 3)
    for i in [that, hi): the task's body as written      # the remainder

Every copy has its own values and local variables. Iterations of a parallel loop are unordered
(any interleaving is a valid schedule), so this keeps each iteration's own order and nothing
else; it applies only where that is all it changes (`plan`): one inner loop with constant
bounds and at least `MIN_TRIPS` iterations that loads global memory, no other control flow,
an inner body that writes only local variables, and no store around it into a field or array
that the inner loop reads (an iteration might read what the one before it wrote). LLVM's own
unroll-and-jam does not apply to these loops (the vectoriser has split the inner loop into
body and remainder before it runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Stmt

COPIES = 4
MIN_TRIPS = 64  # inner iterations below which the streams are too short to matter

# What the inner loop's body may hold: values, loads, and local variables.
_INNER = (
    s.Const,
    s.UnaryOp,
    s.BinaryOp,
    s.TernaryOp,
    s.LoopIndex,
    s.ArgLoad,
    s.GlobalLoad,
    s.LocalLoad,
    s.LocalStore,
    s.Alloca,
    s.GetRoot,
    s.SNodeLookup,
    s.GetCh,
    s.ExternalPtr,
    s.ExternalTensorShape,
    s.GlobalTemporary,
    s.ThreadLocalPtr,
)
# What the parts around it may not hold: output and checks (their order is observable).
_NOT_AROUND = (s.Print, s.Assert, s.Return, s.Break, s.Continue)


@dataclass
class JamPlan:
    """A task's body split around its one inner loop."""

    before: list[Stmt]
    inner: s.RangeFor
    after: list[Stmt]


def plan(task: s.Offloaded) -> JamPlan | None:
    """How to jam `task`, or None where unroll-and-jam does not apply (see the docstring)."""
    if task.task_type is not TaskType.range_for:
        return None
    stmts = task.body.stmts
    loops = [k for k, stmt in enumerate(stmts) if stmt.block_fields]
    if len(loops) != 1 or not isinstance(stmts[loops[0]], s.RangeFor):
        return None
    at = loops[0]
    inner, before, after = stmts[at], stmts[:at], stmts[at + 1 :]
    assert isinstance(inner, s.RangeFor)
    if inner.reversed or not (isinstance(inner.begin, s.Const) and isinstance(inner.end, s.Const)):
        return None
    if int(inner.end.value) - int(inner.begin.value) < MIN_TRIPS:
        return None
    body = inner.body.stmts
    if not all(isinstance(stmt, _INNER) for stmt in body):
        return None
    if not any(isinstance(stmt, s.GlobalLoad) for stmt in body):
        return None
    around = before + after
    if any(
        isinstance(stmt, _NOT_AROUND) or type(stmt).__name__.startswith("AdStack")
        for stmt in around
    ):
        return None
    written = {
        _target(stmt.ptr if isinstance(stmt, s.GlobalStore) else stmt.dest)
        for stmt in around
        if isinstance(stmt, (s.GlobalStore, s.AtomicOp))
    }
    read = {_target(stmt.ptr) for stmt in body if isinstance(stmt, s.GlobalLoad)}
    if None in written or None in read or written & read:
        return None  # an iteration may read what an earlier one wrote: keep their order
    return JamPlan(before, inner, after)


def _target(ptr: Stmt) -> object:
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
