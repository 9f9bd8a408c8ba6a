"""GPU: a long serial sum split over the lanes of a workgroup (split_reductions).

`for i in range(n): a = 0; for j in range(m): a += f(i, j); out[i] = a` with a few thousand
`i` gives a GPU few invocations, each walking a long chain of additions: n-body with 8192
bodies ran at 114 G pairs/s on an H200 (Taichi CUDA: 292), and at 525 once each `i` had K
invocations (lanes) taking every K-th `j` and adding their sums in workgroup memory.

This pass writes that in the IR, as a user would with `ti.simt.block`: the task runs over
`t in [0, n * K)` in workgroups of 256 (K = 32, fewer for a larger n: MAX_INVOCATIONS),
`i = begin + t // K`, `lane = t % K`; the code before the loop runs on every lane (each sum
starts at zero on lanes other than 0), the loop takes `j = lane, lane + K, ...`, a tree of
`log2(K)` halving steps between barriers adds the lanes' sums in a shared array, and the code
after the loop runs on lane 0 only. It applies to a range_for task of at most `MAX_RANGE`
constant indices, without `ti.loop_config(block_dim=)` or shared memory, whose body holds a
serial loop of at least `MIN_TRIPS` constant trips that writes only local variables, those
defined before it as `a = a + x` and read nowhere else in it, and before which nothing writes
memory. Integer sums are exact in any order; float sums are added in another order (the last
bits change), so those are split only with `ti.init(fast_math=True)` (the default), as
Taichi's CUDA back end reassociates with fast math.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import TaskType, TernaryOpType
from tistudio.ir.stmt import Block, Kernel, Stmt, pointee, walk
from tistudio.ir.types import PointerType, PrimitiveType, i32, u1
from tistudio.passes.context import PassContext

BLOCK = 256  # invocations per workgroup: WebGPU's guaranteed maximum; every K divides it
MAX_LANES, MIN_LANES = 32, 8  # lanes per index (n-body on the H200: 16 and 32 alike)
# K <= 2^18 / n: lanes fill an H200 (270,336 invocations) once, not more; fewer than 8: no split
MAX_INVOCATIONS = 1 << 18
MAX_RANGE = MAX_INVOCATIONS // MIN_LANES
# Shorter loops are short chains: with K = 32, eight trips a lane against five barrier steps.
MIN_TRIPS = 256
MIN_TRIPS_PER_LANE = 8  # K <= m // 8: each lane still runs a loop worth the split
SHARED_BYTES = 16 * 1024  # WebGPU's guaranteed workgroup storage
_NOT_BEFORE = (s.Print, s.Assert, s.Rand, s.Return, s.Break, s.Continue)
# Not in the task: shared memory of its own, or what the guard of a partial last workgroup
# cannot hold (sparse operations, a compare-and-swap loop: backends/webgpu/simt.py)
_NOT_IN_TASK = (s.SharedArray, s.BlockBarrier, s.ThreadIdx, s.SharedLoad, s.SharedStore)
_NOT_IN_TASK += (s.SharedAtomic, s.SNodeOp, s.SNodeCellOp, s.PoolCell, s.AtomicCAS)


@dataclass
class _Sum:
    """One accumulator `alloca`, updated in the loop as `a = a + x`."""

    alloca: Stmt
    dtype: PrimitiveType
    array: Stmt | None = None  # the shared array of its type (set by `_tree`)
    slot: Stmt | None = None  # its element there, for this thread


def run(kernel: Kernel, ctx: PassContext) -> bool:
    tasks = [x for x in kernel.body if isinstance(x, s.Offloaded) and _task_fits(x)]
    plans = [(task, _find(task, ctx.config.fast_math)) for task in tasks]
    for task, plan in plans:
        if plan is not None:
            _split(task, *plan)
    return any(plan is not None for _, plan in plans)


def _task_fits(task: s.Offloaded) -> bool:
    """A constant range of few indices whose workgroups the user left to us (see above)."""
    if task.task_type is not TaskType.range_for or not (task.const_begin and task.const_end):
        return False
    if task.block_dim or len(task.tls_prologue) or len(task.tls_epilogue):
        return False
    return 0 < task.end - task.begin <= MAX_RANGE and not any(
        isinstance(x, _NOT_IN_TASK) or (isinstance(x, s.AtomicOp) and _users(x, task.body))
        for x in walk(task.body)  # an atomic's value: not after the guard's `if` either
    )


def _find(task: s.Offloaded, fast_math: bool) -> tuple[s.RangeFor, list[_Sum], int] | None:
    """The loop to split, its sums and the lanes per index, or None."""
    stmts = task.body.stmts
    loop = next((x for x in stmts if isinstance(x, s.RangeFor)), None)
    before = stmts[: stmts.index(loop)] if loop is not None else []
    if loop is None or loop.reversed or not _writes_locals_only(before):
        return None
    if not (s.is_const(loop.begin) and s.is_const(loop.end)):
        return None
    trips = int(loop.end.value) - int(loop.begin.value)
    sums = _sums(loop, set(before), fast_math) if trips >= MIN_TRIPS else None
    if not sums or sum(x.dtype.bits // 8 for x in sums) * BLOCK > SHARED_BYTES:
        return None
    width = min(trips // MIN_TRIPS_PER_LANE, MAX_INVOCATIONS // (task.end - task.begin))
    lanes = min(MAX_LANES, 1 << width.bit_length() - 1)
    return loop, sums, lanes  # a power of two


def _writes_locals_only(stmts: list[Stmt]) -> bool:
    """No statement in `stmts` (nested ones too) writes memory, reports, draws or jumps."""
    for stmt in stmts:
        for x in (stmt, *(y for block in stmt.blocks() for y in walk(block))):
            local = not x.has_side_effects or isinstance(x, (s.LocalStore, s.If, s.RangeFor))
            if isinstance(x, _NOT_BEFORE) or x.uses_ad_stack or not local:
                return False
    return True


def _sums(loop: s.RangeFor, before: set[Stmt], fast_math: bool) -> list[_Sum] | None:
    """The loop's sums, if it writes no other variable defined outside it; else None."""
    inner = list(walk(loop.body))
    if not _writes_locals_only(loop.body.stmts):
        return None
    mine = {x for x in inner if isinstance(x, s.Alloca)}
    stores = [x for x in inner if isinstance(x, s.LocalStore) and x.ptr not in mine]
    sums = [y for x in stores if x.parent is loop.body and (y := _update(x, before, fast_math))]
    return sums if len(sums) == len(stores) else None


def _update(store: s.LocalStore, before: set[Stmt], fast_math: bool) -> _Sum | None:
    """`store` as `a = a + x` (either order) of a variable defined before the loop, or None."""
    add, alloca = store.value, store.ptr
    if alloca not in before or not isinstance(add, s.BinaryOp) or add.op is not B.add:
        return None
    dtype = pointee(alloca)
    exact = dtype.kind in ("int", "uint") and dtype.bits in (32, 64)
    if not (exact or (fast_math and dtype.name in ("f32", "f64"))):
        return None
    loads = [x for x in (add.lhs, add.rhs) if isinstance(x, s.LocalLoad) and x.ptr is alloca]
    if len(loads) != 1 or _users(add, store.parent) != 1 or _users(loads[0], store.parent) != 1:
        return None
    if _users(alloca, store.parent) != 2:  # the update's load and store: nothing else reads it
        return None
    return _Sum(alloca, dtype)


def _users(value: Stmt, block: Block) -> int:  # statements in `block` (and nested) using it
    return sum(value in x.operands() for x in walk(block))


@dataclass
class _Emit:
    """Appends new statements, typed, to `out`, at source location `loc`."""

    loc: object
    out: list[Stmt] = field(default_factory=list)

    def __call__(self, stmt: Stmt) -> Stmt:
        stmt.loc = self.loc  # type: ignore[assignment]
        self.out.append(stmt)
        return stmt

    def const(self, value: int | float, dtype: PrimitiveType = i32) -> Stmt:
        return self(s.const_of(value, dtype))

    def binary(self, op: B, a: Stmt, b: Stmt, dtype: PrimitiveType = i32) -> Stmt:
        return self(s.BinaryOp(op, a, b, ret_type=dtype))


def _split(task: s.Offloaded, loop: s.RangeFor, sums: list[_Sum], lanes: int) -> None:
    """Rewrite `task` as K = `lanes` invocations per index (see the module docstring)."""
    body = task.body
    e = _Emit(task.loc)
    t = e(s.LoopIndex(task, 0, ret_type=i32))
    index = e.binary(B.bit_shr, t, e.const(lanes.bit_length() - 1))
    if task.begin:
        index = e.binary(B.add, e.const(task.begin), index)
    lane = e.binary(B.bit_and, t, e.const(lanes - 1))
    first = e.binary(B.cmp_eq, lane, e.const(0), u1)  # lane 0
    thread = e(s.ThreadIdx("local", ret_type=i32))
    _reindex(body, task, index)
    body.insert(0, *e.out)
    epilogue = body.stmts[body.index(loop) + 1 :]
    loop.insert_before(*_zero_other_lanes(sums, first, loop.loc))
    _stride_loop(loop, lane, lanes)
    loop.insert_after(*_tree(sums, lane, thread, lanes, loop.loc))
    if epilogue:  # the stores of the result: once per index
        _move(epilogue, body.append(s.If(first, loc=loop.loc)).true_block)
    task.begin, task.end = 0, (task.end - task.begin) * lanes
    task.block_dim = BLOCK


def _reindex(block: Block, loop: Stmt, new: Stmt) -> None:  # `loop`'s index in `block`: `new`
    for old in [x for x in walk(block) if isinstance(x, s.LoopIndex) and x.loop is loop]:
        for x in walk(block):
            x.replace_operand(old, new)
        old.erase()


def _move(stmts: list[Stmt], block: Block) -> None:
    for stmt in list(stmts):
        stmt.erase()
        block.append(stmt)


def _zero_other_lanes(sums: list[_Sum], first: Stmt, loc: object) -> list[Stmt]:
    """`a = a if lane == 0 else 0` for each sum, so its start counts once; a float's 0 is -0.0
    (`x + -0.0` is `x`: a sum of -0.0 terms stays -0.0, as the contract has it)."""
    e = _Emit(loc)
    for x in sums:  # (an integer's -0.0 is 0)
        value, zero = e(s.LocalLoad(x.alloca, ret_type=x.dtype)), e.const(-0.0, x.dtype)
        pick = s.TernaryOp(TernaryOpType.select, first, value, zero, ret_type=x.dtype)
        e(s.LocalStore(x.alloca, e(pick)))
    return e.out


def _stride_loop(loop: s.RangeFor, lane: Stmt, lanes: int) -> None:
    """`for j in range(b, c)` becomes `for jj in range(ceil((c - b) / K))` with
    `j = b + lane + K * jj`, under `if j < c` where K does not divide the trip count."""
    begin, end = int(loop.begin.value), int(loop.end.value)
    loop.begin, loop.end = s.const_of(0, i32), s.const_of(-(-(end - begin) // lanes), i32)
    loop.insert_before(loop.begin, loop.end)
    e = _Emit(loop.loc)
    step = e(s.LoopIndex(loop, 0, ret_type=i32))
    first = e.binary(B.add, e.const(begin), lane) if begin else lane
    j = e.binary(B.add, first, e.binary(B.mul, step, e.const(lanes)))
    _reindex(loop.body, loop, j)
    if (end - begin) % lanes:
        guard = e(s.If(e.binary(B.cmp_lt, j, e.const(end), u1)))
        _move(loop.body.stmts, guard.true_block)
    loop.body.insert(0, *e.out)


def _tree(sums: list[_Sum], lane: Stmt, thread: Stmt, lanes: int, loc: object) -> list[Stmt]:
    """Each lane's sums into shared memory, added in halving steps, back into the variables."""
    e = _Emit(loc)
    for dtype in dict.fromkeys(x.dtype for x in sums):  # one shared array per type
        group = [x for x in sums if x.dtype == dtype]
        array = e(s.SharedArray(len(group) * BLOCK, ret_type=PointerType(dtype)))
        for k, x in enumerate(group):
            x.array, x.slot = array, e.binary(B.add, e.const(k * BLOCK), thread) if k else thread
            e(s.SharedStore(array, x.slot, e(s.LocalLoad(x.alloca, ret_type=dtype))))
    e(s.BlockBarrier())
    for k in reversed(range(lanes.bit_length() - 1)):  # steps K/2, ..., 2, 1
        active = e(s.If(e.binary(B.cmp_lt, lane, e.const(1 << k), u1)))
        active.true_block.extend(_add_neighbour(sums, 1 << k, loc))
        e(s.BlockBarrier())
    for x in sums:
        e(s.LocalStore(x.alloca, e(s.SharedLoad(x.array, x.slot, ret_type=x.dtype))))
    return e.out


def _add_neighbour(sums: list[_Sum], step: int, loc: object) -> list[Stmt]:
    """`pad[slot] += pad[slot + step]` for each sum."""
    e = _Emit(loc)
    offset = e.const(step)
    for x in sums:
        mine = e(s.SharedLoad(x.array, x.slot, ret_type=x.dtype))
        theirs = e(s.SharedLoad(x.array, e.binary(B.add, x.slot, offset), ret_type=x.dtype))
        e(s.SharedStore(x.array, x.slot, e.binary(B.add, mine, theirs, x.dtype)))
    return e.out
