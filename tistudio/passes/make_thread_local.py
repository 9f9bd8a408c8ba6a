"""Make thread local: let each CPU thread sum into its own slot before touching shared memory.

`total[None] += x[i]` in a parallel loop makes every iteration do an atomic add on one address,
and the threads queue for it. When the task reaches that destination only through such
reductions, each thread can instead start a private slot at the operation's identity (0 for a
sum, +inf for a min) in the `tls prologue`, accumulate there in the body, and merge the slot
into the destination with one atomic in the `tls epilogue`. A `-=` collects the sum of what it
subtracts and subtracts it once (Taichi's `make_thread_local`; `demote_atomics` then turns the
atomics on the private slot into plain load-op-store).
"""

from __future__ import annotations

import dataclasses

from tistudio.ir.ops import AtomicOpType, TaskType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import (
    ArgLoad,
    AtomicOp,
    BinaryOp,
    Const,
    ExternalTensorShape,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    GlobalTemporary,
    Offloaded,
    TernaryOp,
    ThreadLocalPtr,
    UnaryOp,
    const_of,
)
from tistudio.ir.stmt import Block, Kernel, Stmt, walk
from tistudio.ir.types import PointerType, PrimitiveType
from tistudio.passes.context import PassContext

_Key = SNode | tuple[str, int]  # what a destination names: a place, or ("gtmp", offset)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if isinstance(task, Offloaded) and task.task_type is TaskType.range_for:
            changed |= _make_thread_local(kernel, task)
    return changed


def _make_thread_local(kernel: Kernel, task: Offloaded) -> bool:
    reducible = _reducible_targets(task, kernel.use_counts())
    written = _written_gtmps(task)
    slots: list[ThreadLocalPtr] = []  # one per destination, at the start of the body
    rewritten: list[tuple[AtomicOpType, Stmt, ThreadLocalPtr]] = []  # (op, old dest, slot)
    for stmt in walk(task.body):
        if not _is_private_reduction(stmt, reducible, written):
            continue
        assert isinstance(stmt, AtomicOp)
        slot = next((s for op, dest, s in rewritten if _same_target(op, dest, stmt)), None)
        if slot is None:
            slot = _new_slot(task, stmt)
            task.body.insert(len(slots), slot)
            slots.append(slot)
        rewritten.append((stmt.op, stmt.dest, slot))
        stmt.replace_operand(stmt.dest, slot)
        stmt.op = accumulating_op(stmt.op)
    uses = kernel.use_counts()
    for _, dest, _ in rewritten:
        if dest.parent is not None and not uses[dest]:
            dest.erase()  # the epilogue computes its own copy of the address
    return bool(slots)


def _is_private_reduction(stmt: Stmt, reducible: set[_Key], written_gtmps: set[int]) -> bool:
    if not isinstance(stmt, AtomicOp) or _key(stmt.dest) not in reducible:
        return False
    indices = stmt.dest.indices if isinstance(stmt.dest, GlobalPtr) else []
    return all(_invariant(i, written_gtmps) for i in indices)


def _key(ptr: Stmt) -> _Key | None:
    if isinstance(ptr, GlobalPtr):
        return ptr.snode
    if isinstance(ptr, GlobalTemporary):
        return ("gtmp", ptr.offset)
    return None


def _reducible_targets(task: Offloaded, uses: dict[Stmt, int]) -> set[_Key]:
    """Destinations that the task reaches only by unused-result atomics of one op kind."""
    kind_of: dict[_Key, AtomicOpType | None] = {}
    for block in task.blocks():
        for stmt in walk(block):
            for ptr in stmt.operands():
                key = _key(ptr)
                if key is None:
                    continue
                kind = None
                if isinstance(stmt, AtomicOp) and stmt.dest is ptr and not uses[stmt]:
                    kind = stmt.op
                kind_of[key] = kind if kind_of.get(key, kind) is kind else None
    return {key for key, kind in kind_of.items() if kind is not None}


def _written_gtmps(task: Offloaded) -> set[int]:
    return {
        s.ptr.offset if isinstance(s, GlobalStore) else s.dest.offset
        for block in task.blocks()
        for s in walk(block)
        if (isinstance(s, GlobalStore) and isinstance(s.ptr, GlobalTemporary))
        or (isinstance(s, AtomicOp) and isinstance(s.dest, GlobalTemporary))
    }


def _invariant(stmt: Stmt, written_gtmps: set[int]) -> bool:
    """Same value in every iteration and computable again in the epilogue."""
    if isinstance(stmt, (Const, ArgLoad, ExternalTensorShape)):
        return True
    if isinstance(stmt, GlobalLoad):
        return isinstance(stmt.ptr, GlobalTemporary) and stmt.ptr.offset not in written_gtmps
    if isinstance(stmt, (UnaryOp, BinaryOp, TernaryOp)):
        return all(_invariant(op, written_gtmps) for op in stmt.operands())
    return False


def _same_target(op: AtomicOpType, dest: Stmt, atomic: AtomicOp) -> bool:
    return op is atomic.op and (dest is atomic.dest or dest.same_value_as(atomic.dest))


def accumulating_op(op: AtomicOpType) -> AtomicOpType:
    """The slot accumulates with this op; a subtraction collects the sum it subtracts."""
    return AtomicOpType.add if op is AtomicOpType.sub else op


def _new_slot(task: Offloaded, atomic: AtomicOp) -> ThreadLocalPtr:
    """Reserve a slot: set it to the identity (prologue), merge it (epilogue); its body address."""
    dtype = atomic.val.ret_type
    assert isinstance(dtype, PrimitiveType)
    offset = -(-task.tls_size // dtype.nbytes) * dtype.nbytes
    task.tls_size = offset + dtype.nbytes
    loc, ptr_type = atomic.loc, PointerType(dtype)

    def slot() -> ThreadLocalPtr:
        return ThreadLocalPtr(offset, ret_type=ptr_type, loc=loc)

    start, neutral = slot(), identity(accumulating_op(atomic.op), dtype)
    task.tls_prologue.extend([start, neutral, GlobalStore(start, neutral, loc=loc)])
    end = slot()
    partial = GlobalLoad(end, ret_type=dtype, loc=loc)
    task.tls_epilogue.extend([end, partial])
    dest = _clone_chain(atomic.dest, task.tls_epilogue)
    task.tls_epilogue.append(AtomicOp(atomic.op, dest, partial, ret_type=dtype, loc=loc))
    return slot()


def identity(op: AtomicOpType, dtype: PrimitiveType) -> Const:
    """x op identity == x: 0 for add/or/xor (-0.0 for a float add: x + -0.0 is x for every
    x, where -0.0 + 0.0 is 0.0, so a reduction of -0.0 terms stays -0.0 as the serial loop
    leaves it), 1 for mul, all ones for and, the integer limits for min/max and NaN for a
    float min/max: maxnum(x, NaN) is x for every x, NaN included, where -inf changed a NaN
    destination that a loop of no terms (or of NaN terms) leaves alone (maxnum(NaN, -inf) is
    -inf; the fuzz campaign's kernel, a field left at NaN by the serial loop)."""
    if op is AtomicOpType.add and dtype.is_float:
        return const_of(-0.0, dtype)
    if op in (AtomicOpType.min, AtomicOpType.max) and dtype.is_float:
        return const_of(float("nan"), dtype)
    if op is AtomicOpType.mul:
        return const_of(1, dtype)
    if op is AtomicOpType.bit_and:
        return const_of(-1, dtype)  # all ones, wrapped to the type
    if op in (AtomicOpType.min, AtomicOpType.max):
        low, high = _limits(dtype)
        return const_of(high if op is AtomicOpType.min else low, dtype)
    return const_of(0, dtype)


def _limits(dtype: PrimitiveType) -> tuple[int, int]:
    if dtype.is_signed:
        return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
    return 0, (1 << dtype.bits) - 1


def _clone_chain(stmt: Stmt, out: Block) -> Stmt:
    """Copy `stmt` and the statements it is computed from to the end of `out`."""
    copies = {op: _clone_chain(op, out) for op in stmt.operands()}
    lists = {n: list(v) for n in stmt.operand_fields if isinstance(v := getattr(stmt, n), list)}
    copy = dataclasses.replace(stmt, parent=None, **lists)  # type: ignore[arg-type]
    for old, new in copies.items():
        copy.replace_operand(old, new)
    out.append(copy)
    return copy
