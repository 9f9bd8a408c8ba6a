"""vec4 memory access for range_for tasks: four consecutive indices per invocation.

A GPU reaches its memory bandwidth with 16-byte loads and stores; a scalar `f32` per invocation
moves 4 bytes a transaction and, measured on an H200, leaves a fifth of the bandwidth unused
(`/work/shared/research/gpu-h100-wgpu.md`: saxpy 3467 GB/s scalar, 4108 GB/s with `vec4`; on
the H100 a 2-D stencil ran at 66 % of the copy bandwidth scalar and 78 % as vec4,
`benchmarks/gpu/README.md`). So when a range_for task's body is straight-line code or branches
(no loops), each invocation takes four consecutive indices `k = begin + 4m + l` at once:

* a load of a 32-bit field whose byte address moves by 4 from lane to lane (`lane_forms.py`:
  `x[i]`, `a[i - 1, j]`, `a[i, j + 1]` of a struct-for's `(i, j)`) is served by one or two
  aligned `vec4` loads made before the four lanes, at the address lane 0 computes. A load
  inside a branch, or one not 16-byte aligned, may then read where no lane would: its vectors
  are clamped to the field's SNode tree, and a lane only uses the elements it would have read;
* a store whose address moves by 4 and starts 16-byte aligned goes to a vector, written once
  after the lanes: at once when every lane stored, else lane by lane for those that did;
* the body is written four times, one copy per lane in its own block (its own branches);
  everything else (atomics, other addresses) stays a scalar access of its lane.

The rest of the range (fewer than four indices) runs as the ordinary scalar loop.

This reorders accesses only across lanes, which are different iterations of a parallel loop and
so have no order in Taichi. Within a lane the order must stay. A field that the task writes is
vectorised only if all its accesses have such addresses, no atomic touches it, and its loads come
before its stores; runs at different constant offsets (`m[0, i]`, `m[1, i]`) never meet within a
lane, so only the run that is loaded after its store stays scalar.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tistudio.backends.webgpu.lane_forms import LANES, Address, LaneForms, address, place_of
from tistudio.backends.webgpu.memory import Ptr
from tistudio.backends.webgpu.resources import VIEW_ELEMENT, Caps
from tistudio.ir import statements as s
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Stmt, walk

# statements whose four copies (one per lane) are correct side by side
_LANE_SAFE = (
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
    s.If,
)
_ADDRESSING = (s.Const, s.BinaryOp, s.UnaryOp, s.LoopIndex, s.GetRoot, s.SNodeLookup, s.GetCh)
_VIEW = {"f32": "v4f32", "i32": "v4i32", "u32": "v4u32"}


@dataclass
class Lanes:
    """The plan for one task: the loads and stores vectors serve (with their addresses), the
    stores inside branches (a flag per lane says which lanes stored), and the statements that
    compute lane 0's addresses before the lanes."""

    loads: dict[Stmt, Address] = field(default_factory=dict)
    stores: dict[Stmt, Address] = field(default_factory=dict)
    branched: set[Stmt] = field(default_factory=set)
    prologue: list[Stmt] = field(default_factory=list)
    count: int = 0  # indices of the task; count // LANES * LANES of them go four at a time

    def views(self) -> dict[tuple[str, str], str]:
        """(buffer, scalar view) -> the vec4 view the vectors read or write it through."""
        accesses = {**self.loads, **self.stores}
        return {(w.resource, _dtype(x)): _VIEW[_dtype(x)] for x, w in accesses.items()}


def plan(task: s.Offloaded, caps: Caps) -> Lanes | None:
    """The vec4 plan of `task`, or None when it has none (see the module docstring)."""
    if not _candidate(task, caps):
        return None
    forms = LaneForms(task)
    by_place: dict[int, list[tuple[Stmt, Address | None]]] = {}
    for stmt in walk(task.body):
        if isinstance(stmt, (s.GlobalLoad, s.GlobalStore, s.AtomicOp)):
            ptr = stmt.dest if isinstance(stmt, s.AtomicOp) else stmt.ptr
            place = place_of(ptr)
            if place is not None:
                by_place.setdefault(place, []).append((stmt, address(forms, ptr)))
    lanes = Lanes(count=task.end - task.begin)
    for accesses in by_place.values():
        for stmt, where in _vectorised(accesses):
            (lanes.loads if isinstance(stmt, s.GlobalLoad) else lanes.stores)[stmt] = where
            if isinstance(stmt, s.GlobalStore) and stmt.parent is not task.body:
                lanes.branched.add(stmt)
    if not (lanes.loads or lanes.stores):
        return None
    lanes.prologue = _prologue(task, [*lanes.loads, *lanes.stores])
    return lanes


def _candidate(task: s.Offloaded, caps: Caps) -> bool:
    """A range_for with constant bounds, at least `LANES` indices and no loop in its body."""
    if not caps.vectorize or task.task_type is not TaskType.range_for:
        return False
    if not (task.const_begin and task.const_end) or task.end - task.begin < LANES:
        return False
    return all(isinstance(x, _LANE_SAFE) for x in walk(task.body))


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
        return _dtype(stmt) in _VIEW and where.tree_bytes > 0
    return isinstance(stmt, s.GlobalStore) and _dtype(stmt) in _VIEW and where.form.r % 16 == 0


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
    `index` the name of the loop index the body reads)."""
    e.line(f"for (var k4: u32 = gid.x; k4 < {lanes.count // LANES}u; k4 = k4 + {stride}) {{")
    with e.indent():
        e.line(f"let {index}: i32 = {_lane_index(begin, 0)};  // lane 0, for the addresses")
        for stmt in lanes.prologue:
            e.emit(stmt)
        elements = {
            load: _load_vectors(e, n, load, where)
            for n, (load, where) in enumerate(lanes.loads.items())
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
    e.line("}")


def _lane_index(begin: str, lane: int) -> str:
    first = f"i32(k4 * {LANES}u + {lane}u)" if lane else f"i32(k4 * {LANES}u)"
    return first if begin == "0i" else f"{begin} + {first}"


def _load_vectors(e: Any, n: int, load: Stmt, where: Address) -> Callable[[int], str]:
    """Load the aligned vec4s that lane 0's address and the three after it fall in; return
    what each lane reads of them. Speculative vectors (a load inside a branch, or one that
    straddles two vectors) are clamped to the tree, so they never leave its buffer."""
    view = _VIEW[_dtype(load)]
    offset = e.ptrs[load.ptr].offset
    skew = where.form.r % 16
    clamp = skew or load.parent is not e.task.body
    limit = -(-where.tree_bytes // 16) * 16 - 16  # the last vec4 of the tree's buffer

    def at(delta: int) -> Ptr:
        expr = offset if not delta else f"{offset} {'-' if delta < 0 else '+'} {abs(delta)}u"
        return Ptr(where.resource, f"min({expr}, {limit}u)" if clamp else expr)

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
