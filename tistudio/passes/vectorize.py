"""GPU: four consecutive loop indices per invocation, with loads and stores as `vec4`s (vectorize).

A GPU reaches its memory bandwidth with 16-byte loads and stores; a scalar `f32` per invocation
moves 4 bytes a transaction and, measured on an H200, leaves a fifth of the bandwidth unused
(saxpy 3467 GB/s scalar, 4108 GB/s with `vec4`; on the H100 a 2-D stencil ran at 66 % of the
copy bandwidth scalar and 78 % as vec4, `benchmarks/gpu/README.md`). So when a range_for task's
body is straight-line code or branches (no loops), each invocation takes four consecutive
indices `k = begin + 4m + l`, lanes `l = 0..3`, and the body is written once per lane.

This pass decides which tasks do that and which of their accesses a `vec4` serves, and writes
the decision after the task's header: `vectorize(4, loads [$8, $12@4], stores [$11])`. A load
of a 32-bit field whose address moves by 4 bytes from lane to lane (`lane_forms.py`: `x[i]`,
`a[i - 1, j]` of a struct-for's `(i, j)`) reads one or two aligned vec4s (`@4`: they start 4
bytes before lane 0's cell); such a store starting on a 16-byte boundary fills one vec4.
Everything else stays a scalar access of its lane. Lanes are different iterations of a parallel
loop, so their accesses have no order; within a lane the order must stay, so a field the task
writes is vectorised only if all its accesses fit, no atomic touches it, and no vec4 load reads
a cell its lane stored before. The WGSL emitter (`backends/webgpu/vectorize.py`) prints it.
"""

from __future__ import annotations

from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.passes.context import PassContext
from tistudio.passes.lane_forms import LANES, Address, LaneForms, address, place_of

_VEC4_TYPES = ("f32", "i32", "u32")


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if isinstance(task, s.Offloaded) and task.schedule.lanes == 1:
            changed |= _schedule(task)
    return changed


def _schedule(task: s.Offloaded) -> bool:
    """Record the vec4 plan of `task`, if it has one."""
    if not _candidate(task):
        return False
    forms = LaneForms(task)
    by_place: dict[int, list[tuple[Stmt, Address | None]]] = {}
    for stmt in walk(task.body):
        if isinstance(stmt, (s.GlobalLoad, s.GlobalStore, s.AtomicOp)):
            ptr = stmt.dest if isinstance(stmt, s.AtomicOp) else stmt.ptr
            place = place_of(ptr)
            if place is not None:
                by_place.setdefault(place, []).append((stmt, address(forms, ptr)))
    loads: dict[Stmt, int] = {}
    stores: list[Stmt] = []
    for accesses in by_place.values():
        for stmt, where in _vectorised(accesses):
            if isinstance(stmt, s.GlobalLoad):
                loads[stmt] = where.form.r % 16
            else:
                stores.append(stmt)
    if not (loads or stores):
        return False
    task.schedule.lanes, task.schedule.vec4_loads, task.schedule.vec4_stores = LANES, loads, stores
    return True


def _candidate(task: s.Offloaded) -> bool:
    """A range_for with constant bounds, at least `LANES` indices and no loop in its body."""
    if task.task_type is not TaskType.range_for:
        return False
    if not (task.const_begin and task.const_end) or task.end - task.begin < LANES:
        return False
    return all(x.lane_safe for x in walk(task.body))  # four copies correct side by side


def _vectorised(accesses: list[tuple[Stmt, Address | None]]) -> list[tuple[Stmt, Address]]:
    """The accesses of one place (in program order) that vectors may serve."""
    writes = any(isinstance(stmt, (s.GlobalStore, s.AtomicOp)) for stmt, _ in accesses)
    fitting = [(stmt, where) for stmt, where in accesses if _fits(stmt, where)]
    if not writes:
        return fitting  # loads of memory the task leaves alone: any subset is safe
    if len(fitting) < len(accesses):
        return []
    stale = _stale_runs(fitting)
    return [(stmt, where) for stmt, where in fitting if _run(where) not in stale]


def _fits(stmt: Stmt, where: Address | None) -> bool:
    """A 32-bit load whose lanes read 4 consecutive bytes each, or such a store starting on a
    16-byte boundary (a load's vectors may start before it: they are clamped to its tree)."""
    if where is None or where.form.c != 4 or where.form.m < 16 or where.form.r % 4:
        return False
    if isinstance(stmt, s.GlobalLoad):
        return _dtype(stmt) in _VEC4_TYPES and where.tree_bytes > 0
    if not isinstance(stmt, s.GlobalStore):
        return False
    return _dtype(stmt) in _VEC4_TYPES and where.form.r % 16 == 0


def _run(where: Address) -> object:
    """Accesses at `exact + 4 k` with different constants never meet within one lane."""
    return where.form.exact if where.form.exact is not None else where


def _stale_runs(accesses: list[tuple[Stmt, Address]]) -> set[object]:
    """Runs loaded after a store that may hit the same cell in the same lane: only different
    constants of `exact + 4 k` rule that out (and when a run's address is not linear in the
    loop index, every run of the place is stale, as scalar stores would reorder with it)."""
    stored: set[object] = set()
    stale: set[object] = set()
    unknown_store = False  # a store so far whose address is not exact + 4 k
    for stmt, where in accesses:
        run = _run(where)
        if isinstance(stmt, s.GlobalStore):
            stored.add(run)
            unknown_store |= where.form.exact is None
        elif run in stored or (stored and (unknown_store or where.form.exact is None)):
            stale.add(run)
    if stale and any(where.form.exact is None for _, where in accesses):
        return {_run(where) for _, where in accesses}
    return stale


def _dtype(stmt: Stmt) -> str:
    value = stmt.value if isinstance(stmt, s.GlobalStore) else stmt
    return getattr(value.ret_type, "name", "")
