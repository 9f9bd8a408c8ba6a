"""Sparse SNodes on the CPU: `SNodeCellOp` and `PoolCell` as LLVM code (ir/sparse.py's layout).

Each operation is the reference one of `ir/sparse.py` with atomics, so that many threads may
activate, append to or deactivate cells at once. Activating a pointer cell whose slot is 0
takes the slot's lock (its second word), and if the slot is still 0 takes an index from the
free list (an atomic decrement: a launch only pops it) or from the bump counter and stores it;
so no index is taken in vain. A deactivation pushes the index on the recycle list, which the
host moves to the free list (zeroing the cells) after the launch. An exhausted pool sets the
overflow flag and leaves the slot 0; the host raises the error after the launch.
"""

from __future__ import annotations

from typing import Any

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I1, I8, I32, I64, PTR, VOID
from tistudio.ir import sparse
from tistudio.ir import statements as s
from tistudio.ir.ops import SNodeOpType
from tistudio.ir.snode import SNode

SEQ = "seq_cst"
_ZERO, _ONE = ir.Constant(I32, 0), ir.Constant(I32, 1)


def emit_pool_cell(emitter: Any, stmt: s.PoolCell) -> None:
    """root + pool offset + slot * cell size."""
    b = emitter.builder
    pool = _root_offset(emitter, stmt.snode, stmt.snode.pool_offset)
    slot = b.zext(emitter.values[stmt.slot], I64)
    offset = b.mul(slot, ir.Constant(I64, stmt.snode.cell_size))
    emitter.values[stmt] = emitter.byte_offset(pool, offset, emitter.name_of(stmt))


def emit_get_addr(emitter: Any, stmt: s.GetAddr) -> None:
    emitter.values[stmt] = emitter.builder.ptrtoint(emitter.values[stmt.ptr], I64)


def emit_cell_op(emitter: Any, stmt: s.SNodeCellOp) -> None:
    node, b = stmt.snode, emitter.builder
    container, cell = emitter.values[stmt.ptr], emitter.values[stmt.index]
    if node.type == "pointer":
        step = ir.Constant(I64, sparse.SLOT_BYTES)
        slot = emitter.byte_offset(container, b.mul(b.sext(cell, I64), step), "")
        result = _pointer(emitter, node, stmt.op, slot)
    elif node.type == "bitmasked":
        result = _bitmasked(emitter, node, stmt.op, container, cell)
    else:
        result = _dynamic(emitter, node, stmt.op, container, cell)
    if stmt.ret_type is not None:
        emitter.values[stmt] = result


def _root_offset(emitter: Any, node: SNode, offset: int) -> ir.Value:
    root = emitter.ctx_load(emitter.layout.root_slots[node.tree_id], PTR)
    return emitter.byte_offset(root, offset, "")


def _blocks(b: ir.IRBuilder, *names: str) -> list[ir.Block]:
    return [b.append_basic_block(name) for name in names]


def _pointer(emitter: Any, node: SNode, op: SNodeOpType, slot: ir.Value) -> ir.Value | None:
    b = emitter.builder
    if op is SNodeOpType.is_active:
        v = b.load_atomic(slot, "monotonic", 4, typ=I32)
        return b.zext(b.icmp_unsigned("!=", v, _ZERO), I32)
    if op is SNodeOpType.deactivate:
        v = b.atomic_rmw("xchg", slot, _ZERO, SEQ)
        freed, done = _blocks(b, "freed", "deactivated")
        b.cbranch(b.icmp_unsigned("!=", v, _ZERO), freed, done)
        b.position_at_end(freed)
        _push_recycle(emitter, node, v)
        b.branch(done)
        b.position_at_end(done)
        return None
    assert op is SNodeOpType.activate, op
    # The slot's second word is its lock: the thread that takes it allocates the cell, so a
    # pool sized to its cells is never drained by threads that lost a race for the same slot.
    empty, spin, locked, fill, unlock, done = _blocks(
        b, "inactive", "lock_slot", "slot_locked", "allocate", "unlock_slot", "activated"
    )
    old = b.load_atomic(slot, "monotonic", 4, typ=I32)
    b.cbranch(b.icmp_unsigned("==", old, _ZERO), empty, done)
    b.position_at_end(empty)
    lock = emitter.byte_offset(slot, 4, "")
    b.branch(spin)
    b.position_at_end(spin)
    pair = b.cmpxchg(lock, _ZERO, _ONE, SEQ, "monotonic")
    b.cbranch(b.extract_value(pair, 1), locked, spin)
    b.position_at_end(locked)
    current = b.load_atomic(slot, SEQ, 4, typ=I32)  # another thread may have filled it
    b.cbranch(b.icmp_unsigned("==", current, _ZERO), fill, unlock)
    b.position_at_end(fill)
    b.store_atomic(_allocate(emitter, node), slot, SEQ, 4)  # 0 where the pool ran out
    b.branch(unlock)
    b.position_at_end(unlock)
    b.store_atomic(_ZERO, lock, SEQ, 4)
    b.branch(done)
    b.position_at_end(done)
    return None


def _allocate(emitter: Any, node: SNode) -> ir.Value:
    """A pool index (1-based) from the free list, else the bump counter; 0 (and the overflow
    flag set) when the pool is exhausted."""
    b = emitter.builder
    meta = node.meta_offset
    free_count = _root_offset(emitter, node, meta + sparse.FREE_COUNT)
    from_free, from_bump, got = _blocks(b, "from_free", "from_bump", "allocated")
    n = b.atomic_rmw("sub", free_count, _ONE, SEQ)
    b.cbranch(b.icmp_signed(">", n, _ZERO), from_free, from_bump)
    b.position_at_end(from_free)
    entry = b.mul(b.sext(b.sub(n, _ONE), I64), ir.Constant(I64, 4))
    free_list = _root_offset(emitter, node, meta + sparse.META_BYTES)
    v_free = b.load(emitter.byte_offset(free_list, entry, ""), typ=I32)
    free_end = b.block
    b.branch(got)
    b.position_at_end(from_bump)
    b.atomic_rmw("add", free_count, _ONE, SEQ)
    bump = b.atomic_rmw("add", _root_offset(emitter, node, meta + sparse.BUMP), _ONE, SEQ)
    fits = b.icmp_unsigned("<", bump, ir.Constant(I32, node.pool_capacity))
    v_bump = b.select(fits, b.add(bump, _ONE), _ZERO)
    flag = b.select(fits, _ZERO, _ONE)
    b.atomic_rmw("or", _root_offset(emitter, node, meta + sparse.OVERFLOW), flag, SEQ)
    bump_end = b.block
    b.branch(got)
    b.position_at_end(got)
    v = b.phi(I32)
    v.add_incoming(v_free, free_end)
    v.add_incoming(v_bump, bump_end)
    return v


def _push_recycle(emitter: Any, node: SNode, v: ir.Value) -> None:
    b = emitter.builder
    meta = node.meta_offset
    count = b.atomic_rmw("add", _root_offset(emitter, node, meta + sparse.RECYCLE_COUNT), _ONE, SEQ)
    lists = _root_offset(emitter, node, meta + sparse.META_BYTES + 4 * node.pool_capacity)
    entry = b.mul(b.zext(count, I64), ir.Constant(I64, 4))
    b.store(v, emitter.byte_offset(lists, entry, ""))


def _bitmasked(
    emitter: Any, node: SNode, op: SNodeOpType, container: ir.Value, cell: ir.Value
) -> ir.Value | None:
    b = emitter.builder
    word_index = b.lshr(cell, ir.Constant(I32, 5))
    offset = b.sub(
        b.mul(b.sext(word_index, I64), ir.Constant(I64, 4)), ir.Constant(I64, node.header_bytes)
    )
    word = emitter.byte_offset(container, offset, "")
    bit = b.shl(_ONE, b.and_(cell, ir.Constant(I32, 31)))
    if op is SNodeOpType.activate:  # a set bit (most writes) costs a load, not an atomic
        set_bit, done = _blocks(b, "set_bit", "bit_set")
        mask = b.load_atomic(word, "monotonic", 4, typ=I32)
        b.cbranch(b.icmp_unsigned("==", b.and_(mask, bit), _ZERO), set_bit, done)
        b.position_at_end(set_bit)
        b.atomic_rmw("or", word, bit, SEQ)
        b.branch(done)
        b.position_at_end(done)
    elif op is SNodeOpType.deactivate:
        b.atomic_rmw("and", word, b.xor(bit, ir.Constant(I32, -1)), SEQ)
    else:
        mask = b.load_atomic(word, "monotonic", 4, typ=I32)
        return b.zext(b.icmp_unsigned("!=", b.and_(mask, bit), _ZERO), I32)
    return None


def _dynamic(
    emitter: Any, node: SNode, op: SNodeOpType, container: ir.Value, cell: ir.Value
) -> ir.Value | None:
    b = emitter.builder
    length = emitter.byte_offset(container, -node.header_bytes, "")
    n = ir.Constant(I32, node.num_cells)
    if op is SNodeOpType.activate:
        wanted = b.add(cell, _ONE)
        b.atomic_rmw("umax", length, b.select(b.icmp_unsigned("<", wanted, n), wanted, n), SEQ)
    elif op is SNodeOpType.append:
        old = b.atomic_rmw("add", length, _ONE, SEQ)
        b.atomic_rmw("umin", length, n, SEQ)  # a full list stays full; its cells are kept:
        return old  # the store of an index past the end is skipped (frontend/sparse_ops.py)
    elif op is SNodeOpType.deactivate:
        old = b.atomic_rmw("xchg", length, _ZERO, SEQ)
        size = b.mul(b.zext(old, I64), ir.Constant(I64, node.cell_size))
        b.call(_memset(b.module), [container, ir.Constant(I8, 0), size, ir.Constant(I1, 0)])
    else:
        current = b.load_atomic(length, "monotonic", 4, typ=I32)
        if op is SNodeOpType.length:
            return current
        return b.zext(b.icmp_unsigned("<", cell, current), I32)
    return None


def _memset(module: ir.Module) -> ir.Function:
    name = "llvm.memset.p0.i64"
    found = module.globals.get(name)
    if found is not None:
        return found
    return ir.Function(module, ir.FunctionType(VOID, [PTR, I8, I64, I1]), name)
