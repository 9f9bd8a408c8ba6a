"""Printing a task that the `vectorize` pass gave four lanes: vec4 loads, four copies, vec4 stores.

The pass (`passes/vectorize.py`, where the why is) chose, for a range_for task, which loads and
stores aligned `vec4`s serve (`Offloaded.schedule`). Each invocation of the grid-stride loop
then takes four consecutive indices `k = begin + 4m + l`:

* before the lanes, the statements that compute lane 0's addresses, then one or two aligned
  `vec4` loads per chosen load, at the address lane 0 computes. A load inside a branch, or one
  not 16-byte aligned, may then read where no lane would: its vectors are clamped to the
  field's SNode tree, and a lane only uses the elements it would have read;
* the body four times, one copy per lane in its own block (its own branches);
* after the lanes, each chosen store's vector, written once: at once when every lane stored,
  else (a store inside a branch) lane by lane for those that did.

The rest of the range (fewer than four indices) runs as the ordinary scalar loop. A device
whose `Caps.vectorize` is off (benchmarks, tests) prints every task as scalar code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tistudio.backends.webgpu.memory import Ptr
from tistudio.backends.webgpu.resources import VIEW_ELEMENT, Caps
from tistudio.ir import statements as s
from tistudio.ir.stmt import Stmt, walk

LANES = 4  # indices per step: a vec4 of 32-bit cells

_ADDRESSING = (s.Const, s.BinaryOp, s.UnaryOp, s.LoopIndex, s.GetRoot, s.SNodeLookup, s.GetCh)
_VIEW = {"f32": "v4f32", "i32": "v4i32", "u32": "v4u32"}


@dataclass
class Lanes:
    """What printing one task's lanes needs: the loads vectors serve (with the bytes their
    first vector starts before lane 0's cell), the stores, the stores inside branches (a flag
    per lane says which lanes stored), and the statements that compute lane 0's addresses."""

    loads: dict[Stmt, int] = field(default_factory=dict)
    stores: list[Stmt] = field(default_factory=list)
    branched: set[Stmt] = field(default_factory=set)
    prologue: list[Stmt] = field(default_factory=list)
    count: int = 0  # indices of the task; count // LANES * LANES of them go four at a time

    def views(self) -> dict[tuple[str, str], str]:
        """(buffer, scalar view) -> the vec4 view the vectors read or write it through."""
        return {(_tree(x.ptr)[0], _dtype(x)): _VIEW[_dtype(x)] for x in [*self.loads, *self.stores]}


def lanes_of(task: s.Offloaded, caps: Caps) -> Lanes | None:
    """How to print `task`'s lanes, or None: the pass gave it none, or `caps` turn them off."""
    schedule = task.schedule
    if not caps.vectorize or schedule.lanes == 1:
        return None
    assert schedule.lanes == LANES, "the vectorize pass takes four indices per step"
    lanes = Lanes(dict(schedule.vec4_loads), list(schedule.vec4_stores))
    lanes.count = task.end - task.begin
    lanes.branched = {x for x in lanes.stores if x.parent is not task.body}
    lanes.prologue = _prologue(task, [*lanes.loads, *lanes.stores])
    return lanes


def _tree(ptr: Stmt) -> tuple[str, int]:
    """The buffer a field element pointer points into, and the bytes of its SNode tree."""
    tree_bytes = 0
    while not isinstance(ptr, s.GetRoot):
        if isinstance(ptr, s.SNodeLookup) and ptr.snode.type == "root":
            tree_bytes = ptr.snode.cell_size
        ptr = ptr.ptr
    return f"tree{ptr.tree_id}", tree_bytes


def _dtype(stmt: Stmt) -> str:
    value = stmt.value if isinstance(stmt, s.GlobalStore) else stmt
    return getattr(value.ret_type, "name", "")


def _prologue(task: s.Offloaded, accesses: list[Stmt]) -> list[Stmt]:
    """The statements that compute the pointers of `accesses`, in program order."""
    needed: set[Stmt] = set()
    todo = [stmt.ptr for stmt in accesses]
    while todo:
        stmt = todo.pop()
        if stmt not in needed and isinstance(stmt, _ADDRESSING):
            needed.add(stmt)
            todo.extend(stmt.operands())
    return [stmt for stmt in walk(task.body) if stmt in needed]


def emit_lanes(e: Any, lanes: Lanes, begin: str, stride: str, index: str) -> None:
    """The grid-stride loop that takes `LANES` indices per step (`e` is the `TaskEmitter`;
    `index` the name of the loop index the body reads). A loop that stores nothing (a sum:
    loads into thread-local values) takes `Caps.stream_unroll` steps `stride` apart per
    iteration, so each invocation has that many vec4 loads in flight: an H200's sum of 100M
    f32 went from 3695 to 3757 GB/s with four (memory_probe.py). A loop that stores keeps one
    step: saxpy halved when unrolled (its stores then queue behind the loads)."""
    mark = len(e.body)
    with e.indent():
        _emit_lanes_step(e, lanes, begin, index)
    step = e.body[mark:]
    del e.body[mark:]
    count = f"{lanes.count // LANES}u"
    factor = e.caps.stream_unroll
    if lanes.stores or factor <= 1:
        e.line(f"for (var k4: u32 = gid.x; k4 < {count}; k4 = k4 + {stride}) {{")
        e.body.extend(step)
        e.line("}")
        return
    e.line("var kk4: u32 = gid.x;")
    e.line(
        f"for (; kk4 < {count} && {count} - kk4 > {factor - 1}u * ({stride}); "
        f"kk4 = kk4 + {factor}u * ({stride})) {{"
    )
    for u in range(factor):
        e.line(f"{{ let k4: u32 = kk4 + {u}u * ({stride});" if u else "{ let k4: u32 = kk4;")
        e.body.extend(step)
        e.line("}")
    e.line("}")
    e.line(f"for (; kk4 < {count}; kk4 = kk4 + {stride}) {{")
    e.line("    let k4: u32 = kk4;")
    e.body.extend(step)
    e.line("}")


def _emit_lanes_step(e: Any, lanes: Lanes, begin: str, index: str) -> None:
    """One step of the vec4 loop: the four lanes of vec4 step `k4`."""
    e.line(f"let {index}: i32 = {_lane_index(begin, 0)};  // lane 0, for the addresses")
    for stmt in lanes.prologue:
        e.emit(stmt)
    elements = {
        load: _load_vectors(e, n, load, skew) for n, (load, skew) in enumerate(lanes.loads.items())
    }
    stores = dict(enumerate(lanes.stores))
    targets = {store: e.ptrs[store.ptr] for store in lanes.stores}  # lane 0's addresses
    for n, store in stores.items():
        e.line(f"var st{n}: {VIEW_ELEMENT[_VIEW[_dtype(store)]]};")
        if store in lanes.branched:
            e.line(f"var st{n}_did = vec4<bool>(false);")
    for lane in range(LANES):
        e.line("{")
        with e.indent():
            e.lane_loads = {load: pick(lane) for load, pick in elements.items()}
            e.lane_stores = {store: f"st{n}[{lane}]" for n, store in stores.items()}
            e.lane_flags = {
                store: f"st{n}_did[{lane}]"
                for n, store in stores.items()
                if store in lanes.branched
            }
            e.line(f"let {index}: i32 = {_lane_index(begin, lane)};")
            e.block(e.task.body)
        e.line("}")
    e.lane_loads, e.lane_stores, e.lane_flags = {}, {}, {}
    for n, store in stores.items():
        _store_vector(e, n, store, targets[store], store in lanes.branched)


def _lane_index(begin: str, lane: int) -> str:
    first = f"i32(k4 * {LANES}u + {lane}u)" if lane else f"i32(k4 * {LANES}u)"
    return first if begin == "0i" else f"{begin} + {first}"


def _load_vectors(e: Any, n: int, load: Stmt, skew: int) -> Callable[[int], str]:
    """Load the aligned vec4s that lane 0's address and the three after it fall in; return
    what each lane reads of them. Speculative vectors (a load inside a branch, or one that
    straddles two vectors) are clamped to the tree, so they never leave its buffer."""
    view = _VIEW[_dtype(load)]
    offset = e.ptrs[load.ptr].offset
    clamp = skew or load.parent is not e.task.body
    resource, tree_bytes = _tree(load.ptr)
    limit = -(-tree_bytes // 16) * 16 - 16  # the last vec4 of the tree's buffer

    def at(delta: int) -> Ptr:
        expr = offset if not delta else f"{offset} {'-' if delta < 0 else '+'} {abs(delta)}u"
        return Ptr(resource, f"min({expr}, {limit}u)" if clamp else expr)

    names = [f"ld{n}"]
    _load(e, names[0], at(-skew), view)
    if skew:
        names.append(f"ld{n}_next")
        _load(e, names[1], at(16 - skew), view)
    first = skew // 4
    return lambda lane: f"{names[(first + lane) // LANES]}[{(first + lane) % LANES}]"


def _store_vector(e: Any, n: int, store: Stmt, ptr: Ptr, branched: bool) -> None:
    """Write vector `st{n}` at lane 0's address; after branches, only the lanes that stored."""
    view = _VIEW[_dtype(store)]

    def whole() -> None:
        e.access(ptr, view, True, lambda ref: [f"{ref} = st{n};"])

    if not branched:
        whole()
        return
    e.line(f"if (all(st{n}_did)) {{")
    with e.indent():
        whole()
    e.line("} else {")
    with e.indent():
        for lane in range(LANES):
            e.line(f"if (st{n}_did[{lane}]) {{")
            with e.indent():
                cell = Ptr(ptr.resource, f"{ptr.offset} + {4 * lane}u")
                e.store_global(cell, store.value.ret_type, f"st{n}[{lane}]")
            e.line("}")
    e.line("}")


def _load(e: Any, name: str, ptr: Ptr, view: str) -> None:
    if e.resources.windows_of(ptr.resource) == 1:
        e.access(ptr, view, False, lambda ref: [f"let {name} = {ref};"])
        return
    e.line(f"var {name}: {VIEW_ELEMENT[view]};")
    e.access(ptr, view, False, lambda ref: [f"{name} = {ref};"])
