"""Privatize fields: give each CPU thread its own copy of a field that a loop only adds into.

A histogram (`hist[x[i]] += 1`) or a particle-to-grid scatter (`grid[base + offset] += w * m`)
does an atomic add on a shared array in every iteration; the threads fight over its cache lines
and each add costs tens of nanoseconds instead of one. `make_thread_local` fixes this for one
address (`total[None] += ...`); this pass does it for a whole field, as Numba users do by hand
with one private histogram per thread:

* the `tls prologue` fills a private array in the thread's buffer with the operation's identity;
* the body accumulates into `thread local array ptr [linear index]` (plain loads and stores once
  `demote_atomics` has run);
* the `tls epilogue` merges every element that changed into the field, one atomic each.

It applies when the task reaches the field only through reductions of one kind whose result is
unused, the private copies fit the thread's stack (`MAX_PRIVATE_BYTES`), and the work saved pays
for the copy: the atomics the loop would do (sites x iterations) must be at least `PAYOFF` times
the elements every thread zeroes and merges. CPU only; skipped in debug mode, where every index
must reach the field's bounds check.
"""

from __future__ import annotations

import math

from tistudio.ir.ops import AtomicOpType, BinaryOpType, TaskType, UnaryOpType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import (
    AtomicOp,
    BinaryOp,
    Const,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    If,
    LoopIndex,
    Offloaded,
    RangeFor,
    ThreadLocalArrayPtr,
    UnaryOp,
    const_of,
)
from tistudio.ir.stmt import Block, Kernel, Stmt, walk
from tistudio.ir.types import TYPES_BY_NAME, PointerType, PrimitiveType, i32, u1
from tistudio.passes.context import PassContext
from tistudio.passes.make_thread_local import accumulating_op, identity

MAX_PRIVATE_BYTES = 1 << 20  # per task: stays well inside the 8 MiB stacks of the pool's threads
PAYOFF = 2  # atomics saved per element zeroed and merged


def run(kernel: Kernel, ctx: PassContext) -> bool:
    if ctx.config.debug:
        return False
    threads = max(1, ctx.config.cpu_max_num_threads)
    changed = False
    for task in kernel.body:
        if isinstance(task, Offloaded) and task.task_type is TaskType.range_for:
            changed |= _privatize(kernel, task, threads)
    return changed


def _privatize(kernel: Kernel, task: Offloaded, threads: int) -> bool:
    sites = _reduction_sites(kernel, task)
    budget = MAX_PRIVATE_BYTES
    changed = False
    for snode, atomics in sites.items():
        dtype = atomics[0].val.ret_type
        assert isinstance(dtype, PrimitiveType)
        elements = math.prod(snode.shape)
        size = elements * dtype.nbytes
        if size > budget or not _pays_off(task, len(atomics), elements, threads):
            continue
        budget -= size
        offset = -(-task.tls_size // dtype.nbytes) * dtype.nbytes
        task.tls_size = offset + size
        op = atomics[0].op
        _fill(task.tls_prologue, offset, elements, dtype, identity(accumulating_op(op), dtype))
        _merge(task.tls_epilogue, snode, offset, op, dtype, atomics[0])
        for atomic in atomics:
            _redirect(kernel, atomic, offset, snode)
        changed = True
    return changed


def _reduction_sites(kernel: Kernel, task: Offloaded) -> dict[SNode, list[AtomicOp]]:
    """Fields the body reaches only by unused-result atomics of one op kind, with those atomics
    (fields touched by the prologue or epilogue, or in any other way, are left alone)."""
    uses = kernel.use_counts()
    sites: dict[SNode, list[AtomicOp]] = {}
    spoiled: set[SNode] = set()
    for block in task.blocks():
        in_body = block is task.body
        for stmt in walk(block):
            for ptr in stmt.operands():
                if not isinstance(ptr, GlobalPtr):
                    continue
                ok = in_body and isinstance(stmt, AtomicOp) and stmt.dest is ptr and not uses[stmt]
                found = sites.setdefault(ptr.snode, [])
                if not ok or (found and found[0].op is not stmt.op):  # type: ignore[attr-defined]
                    spoiled.add(ptr.snode)
                elif stmt not in found:
                    found.append(stmt)  # type: ignore[arg-type]
    return {snode: atomics for snode, atomics in sites.items() if snode not in spoiled}


def _pays_off(task: Offloaded, atomic_sites: int, elements: int, threads: int) -> bool:
    if not (task.const_begin and task.const_end):
        return elements * 4 <= 4096  # unknown trip count: only fields the size of a page
    iterations = task.end - task.begin
    return atomic_sites * iterations >= PAYOFF * elements * threads


def _linear_index(ptr: GlobalPtr, before: Stmt) -> Stmt:
    """Row-major element number of `ptr`'s indices, built right before `before`."""
    block = before.parent
    assert block is not None
    at = block.index(before)
    shape = ptr.snode.shape
    total: Stmt | None = None
    new: list[Stmt] = []
    for index, extent in zip(ptr.indices, shape):
        if total is not None:
            scaled = BinaryOp(BinaryOpType.mul, total, _i32(extent, new), ret_type=i32)
            new.append(scaled)
            total = BinaryOp(BinaryOpType.add, scaled, index, ret_type=i32)
            new.append(total)
        else:
            total = index
    if total is None:
        total = _i32(0, new)
    block.insert(at, *new)
    return total


def _i32(value: int, out: list[Stmt]) -> Const:
    c = const_of(value, i32)
    out.append(c)
    return c


def _redirect(kernel: Kernel, atomic: AtomicOp, offset: int, snode: SNode) -> None:
    ptr = atomic.dest
    assert isinstance(ptr, GlobalPtr)
    index = _linear_index(ptr, atomic)
    slot = ThreadLocalArrayPtr(offset, index, ret_type=ptr.ret_type, loc=atomic.loc)
    block = atomic.parent
    assert block is not None
    block.insert(block.index(atomic), slot)
    atomic.replace_operand(ptr, slot)
    atomic.op = accumulating_op(atomic.op)
    if ptr.parent is not None and not kernel.use_counts()[ptr]:
        ptr.erase()


def _loop(out: Block, elements: int, loc: object) -> tuple[RangeFor, LoopIndex]:
    begin, end = const_of(0, i32), const_of(elements, i32)
    loop = RangeFor(begin, end, loc=loc)
    out.extend([begin, end, loop])
    index = LoopIndex(loop, 0, ret_type=i32, loc=loc)
    loop.body.append(index)
    return loop, index


def _fill(out: Block, offset: int, elements: int, dtype: PrimitiveType, value: Const) -> None:
    loop, index = _loop(out, elements, value.loc)
    ptr = ThreadLocalArrayPtr(offset, index, ret_type=PointerType(dtype))
    loop.body.extend([ptr, value, GlobalStore(ptr, value)])


def _merge(
    out: Block, snode: SNode, offset: int, op: AtomicOpType, dtype: PrimitiveType, site: AtomicOp
) -> None:
    """for e in range(elements): v = private[e]; if v != identity: field[unravel(e)] op= v"""
    loc = site.loc
    loop, index = _loop(out, math.prod(snode.shape), loc)
    ptr = ThreadLocalArrayPtr(offset, index, ret_type=PointerType(dtype), loc=loc)
    value = GlobalLoad(ptr, ret_type=dtype, loc=loc)
    neutral = identity(accumulating_op(op), dtype)
    loop.body.extend([ptr, value, neutral])
    if dtype.is_float:  # on the bits: 0.0 == -0.0, but only -0.0 leaves a field unchanged
        word = TYPES_BY_NAME[f"u{dtype.bits}"]
        value_bits = UnaryOp(UnaryOpType.cast_bits, value, ret_type=word, loc=loc)
        neutral_bits = UnaryOp(UnaryOpType.cast_bits, neutral, ret_type=word, loc=loc)
        loop.body.extend([value_bits, neutral_bits])
        changed = BinaryOp(BinaryOpType.cmp_ne, value_bits, neutral_bits, ret_type=u1, loc=loc)
    else:
        changed = BinaryOp(BinaryOpType.cmp_ne, value, neutral, ret_type=u1, loc=loc)
    branch = If(changed, loc=loc)
    loop.body.extend([changed, branch])
    indices: list[Stmt] = []
    stride = math.prod(snode.shape)
    for extent in snode.shape:
        stride //= extent
        q = BinaryOp(BinaryOpType.div, index, const_of(stride, i32), ret_type=i32, loc=loc)
        r = BinaryOp(BinaryOpType.mod, q, const_of(extent, i32), ret_type=i32, loc=loc)
        branch.true_block.extend([q.rhs, q, r.rhs, r])
        indices.append(r)
    dest = GlobalPtr(snode, indices, ret_type=PointerType(dtype), loc=loc)
    branch.true_block.extend([dest, AtomicOp(op, dest, value, ret_type=dtype, loc=loc)])
