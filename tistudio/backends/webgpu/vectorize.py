"""vec4 memory access for simple elementwise range_for tasks.

A GPU reaches its memory bandwidth with 16-byte loads and stores; a scalar `f32` per invocation
moves 4 bytes a transaction and, measured on an H200, leaves a fifth of the bandwidth unused
(`/work/shared/research/gpu-h100-wgpu.md`: saxpy 3467 GB/s scalar, 4108 GB/s with `vec4`).
So when a range_for task's body is straight-line code (no branches or loops) and reads or
writes 32-bit fields at `x[i]` (`i` the loop index, four bytes per cell), each invocation takes
four consecutive indices at once: one `vec4` load per such field before the four copies of the
body (one per lane, each in its own block), and one `vec4` store per written field after them.
The rest of the range (fewer than four indices) runs as the ordinary scalar loop.

That reorders accesses only across lanes, which are different iterations of a parallel loop and
so have no order in Taichi. Within a lane the order must stay: a field is vectorised only if all
its accesses are at `x[i]` and its loads come before its stores in the body, so the lane's loads
see the values from before the task, as the vec4 load does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tistudio.backends.webgpu.memory import Ptr
from tistudio.backends.webgpu.resources import VIEW_ELEMENT, Caps
from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Stmt

LANES = 4
# statements whose four copies (one per lane) are correct side by side
_STRAIGHT = (
    s.Const,
    s.BinaryOp,
    s.UnaryOp,
    s.TernaryOp,
    s.LoopIndex,
    s.ArgLoad,
    s.GetRoot,
    s.SNodeLookup,
    s.GetCh,
    s.GlobalLoad,
    s.GlobalStore,
    s.AtomicOp,
    s.ThreadLocalPtr,
    s.Alloca,
    s.LocalLoad,
    s.LocalStore,
)
_VIEW = {"f32": "v4f32", "i32": "v4i32", "u32": "v4u32"}


@dataclass
class Lanes:
    """The plan for one task: for each vectorised run of a field's elements (keyed by its
    place SNode id and the byte offset of the task's first element: `x[i]` and `x[i + 12]`
    are two runs), its buffer and its vec4 view; which loads and stores the lanes take from
    and give to the vectors."""

    fields: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    loads: dict[Stmt, tuple[int, int]] = field(default_factory=dict)  # load -> its run
    stores: dict[Stmt, tuple[int, int]] = field(default_factory=dict)  # store -> its run
    count: int = 0  # indices of the task; count // LANES * LANES of them go four at a time


def plan(task: s.Offloaded, caps: Caps) -> Lanes | None:
    """The vec4 plan of `task`, or None when it has none (see the module docstring)."""
    if not _candidate(task, caps):
        return None
    lanes = Lanes(count=task.end - task.begin)
    accesses: dict[tuple[int, int], list[Stmt]] = {}
    rejected: set[int] = set()  # places accessed in any other way
    for stmt in task.body:
        if not isinstance(stmt, (s.GlobalLoad, s.GlobalStore, s.AtomicOp)):
            continue
        place = _place(stmt.dest if isinstance(stmt, s.AtomicOp) else stmt.ptr)
        if place is None:
            continue
        found = _vector_field(stmt, task)
        if found is None:
            rejected.add(place)
            continue
        resource, base, view = found
        lanes.fields[place, base] = (resource, view)
        accesses.setdefault((place, base), []).append(stmt)
    for run, stmts in accesses.items():
        if run[0] in rejected or not _loads_first(stmts):
            del lanes.fields[run]
            continue
        for stmt in stmts:
            target = lanes.loads if isinstance(stmt, s.GlobalLoad) else lanes.stores
            target[stmt] = run
    return lanes if lanes.fields else None


def _candidate(task: s.Offloaded, caps: Caps) -> bool:
    """A range_for with constant bounds, at least `LANES` indices and a straight-line body."""
    if not caps.vectorize or task.task_type is not TaskType.range_for:
        return False
    if not (task.const_begin and task.const_end) or task.end - task.begin < LANES:
        return False
    return all(isinstance(x, _STRAIGHT) for x in task.body)


def _vector_field(stmt: Stmt, task: s.Offloaded) -> tuple[str, int, str] | None:
    """(buffer, byte offset of the task's first element, vec4 view) for a load or store of a
    32-bit field at `x[i]` whose first element is 16-byte aligned; else None."""
    if isinstance(stmt, s.AtomicOp) or _dtype(stmt) not in _VIEW:
        return None
    found = _element(stmt.ptr, task)
    if found is None:
        return None
    resource, offset = found
    first = offset + 4 * task.begin
    return None if first % (4 * LANES) else (resource, first, _VIEW[_dtype(stmt)])


def _dtype(stmt: Stmt) -> str:
    value = stmt.value if isinstance(stmt, s.GlobalStore) else stmt
    return getattr(value.ret_type, "name", "")


def _loads_first(stmts: list[Stmt]) -> bool:
    stored = False
    for stmt in stmts:
        if isinstance(stmt, s.GlobalStore):
            stored = True
        elif stored:
            return False
    return True


def _place(ptr: Stmt | None) -> int | None:
    """The id of the place SNode `ptr` points into (None: not a field element)."""
    if isinstance(ptr, s.GetCh) and ptr.child.type == "place":
        return ptr.child.id
    return None


def _element(ptr: Stmt, task: s.Offloaded) -> tuple[str, int] | None:
    """(buffer, byte offset of element 0) when `ptr` is `offset + 4 * i`, `i` the task's loop
    index, through constant lookups otherwise; None for any other address."""
    offset, scaled = 0, 0
    while not isinstance(ptr, s.GetRoot):
        if isinstance(ptr, s.GetCh):
            offset += ptr.child.offset_in_parent_cell
        elif isinstance(ptr, s.SNodeLookup):
            index = ptr.index
            if isinstance(index, s.Const):
                offset += int(index.value) * ptr.snode.cell_size
            elif isinstance(index, s.LoopIndex) and index.loop is task and index.index == 0:
                scaled += ptr.snode.cell_size
            else:
                return None
        else:
            return None
        ptr = ptr.ptr
    if scaled != 4:
        return None
    return f"tree{ptr.tree_id}", offset


def emit_lanes(e: Any, lanes: Lanes, begin: str, stride: str, index: str) -> None:
    """The grid-stride loop that takes `LANES` indices per step (`e` is the `TaskEmitter`;
    `index` the name of the loop index the body reads)."""
    e.line(f"for (var k4: u32 = gid.x; k4 < {lanes.count // LANES}u; k4 = k4 + {stride}) {{")
    with e.indent():
        loaded = set(lanes.loads.values())
        stored = set(lanes.stores.values())
        for run, (resource, view) in lanes.fields.items():
            if run in loaded:
                _load(e, f"{_name(run)}_x4", _ptr(resource, run[1]), view)
            if run in stored:
                e.line(f"var {_name(run)}_new: {VIEW_ELEMENT[view]};")
        for lane in range(LANES):
            e.line("{")
            with e.indent():
                e.lane_loads = {x: f"{_name(r)}_x4[{lane}]" for x, r in lanes.loads.items()}
                e.lane_stores = {x: f"{_name(r)}_new[{lane}]" for x, r in lanes.stores.items()}
                first = f"i32(k4 * {LANES}u + {lane}u)"
                e.line(f"let {index}: i32 = {first if begin == '0i' else f'{begin} + {first}'};")
                e.block(e.task.body)
            e.line("}")
        e.lane_loads, e.lane_stores = {}, {}
        for run in (r for r in lanes.fields if r in stored):
            resource, view = lanes.fields[run]
            new = f"{_name(run)}_new"
            e.access(_ptr(resource, run[1]), view, True, lambda ref, v=new: [f"{ref} = {v};"])
    e.line("}")


def _name(run: tuple[int, int]) -> str:
    place, base = run
    return f"field{place}_at{base}"


def _ptr(resource: str, base: int) -> Ptr:
    """The byte address of step `k4`'s first element (16-byte aligned)."""
    step = f"k4 * {4 * LANES}u"
    return Ptr(resource, f"({base}u + {step})" if base else f"({step})")


def _load(e: Any, name: str, ptr: Ptr, view: str) -> None:
    if e.resources.windows_of(ptr.resource) == 1:
        e.access(ptr, view, False, lambda ref: [f"let {name} = {ref};"])
        return
    e.line(f"var {name}: {VIEW_ELEMENT[view]};")
    e.access(ptr, view, False, lambda ref: [f"{name} = {ref};"])
