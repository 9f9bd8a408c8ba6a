"""Sparse SNodes on the GPU: `SNodeCellOp`, `PoolCell` and pointer slot loads as WGSL.

The memory is `ir/sparse.py`'s layout, inside the tree's storage buffer, and each operation is
the reference one of that module with WGSL atomics on `atomic<u32>` words (the tree's `au32`
view), as `backends/llvm/sparse.py` does on the CPU, with one difference: a GPU runs
thousands of invocations at once, and many find the same slot 0 together, so an allocation per
contender (the CPU's scheme, losers recycling theirs) would drain a pool sized to its cells
within one launch. Instead the first to swap the slot from 0 to `LOCKED` (with
`atomicCompareExchangeWeak`, retried while it fails spuriously) owns the cell: it pops the free
list (an `atomicSub`: a launch only pops it) or takes the next index from the bump counter and
stores it in the slot. Every activating invocation then waits, after the branches reconverge
(so never inside the owner's own subgroup), until the slot is no longer `LOCKED`. Deactivation
swaps the slot to 0 and pushes the index on the recycle list, which the host moves to the free
list after the launch (`runtime/gpu_memory.py`). An exhausted pool sets the overflow word and
stores 0 (the writes land in the ambient cell); the host raises the error after the launch.
Slots are only read with `atomicLoad` through the same view, never through a plain view that
a driver could assume does not alias the atomic one, and a `LOCKED` slot reads as inactive.
"""

from __future__ import annotations

from typing import Any

from tistudio.backends.webgpu.memory import Ptr
from tistudio.ir import sparse
from tistudio.ir import statements as s
from tistudio.ir.ops import SNodeOpType as Op
from tistudio.ir.snode import SNode

LOCKED = "0xffffffffu"  # a slot whose owner is allocating its cell


def emit_pool_cell(emitter: Any, stmt: s.PoolCell) -> None:
    """pool offset + slot * cell size, in the node's tree."""
    node = stmt.snode
    slot = f"bitcast<u32>({emitter.value(stmt.slot)})"
    expr = f"{node.pool_offset}u + {slot} * {node.cell_size}u"
    emitter.address(stmt, f"tree{node.tree_id}", expr)


def emit_slot_load(emitter: Any, stmt: s.GlobalLoad, ptr: Ptr) -> None:
    """A pointer cell's slot, read atomically (the view activations write it through)."""
    emitter.reg(stmt, stmt.ret_type)
    name = emitter.name_of(stmt)
    word = _load(emitter, ptr)  # (being activated by another invocation: still inactive)
    emitter.line(f"let {name}: i32 = bitcast<i32>(select({word}, 0u, {word} == {LOCKED}));")
    emitter.values[stmt] = name


def emit_cell_op(emitter: Any, stmt: s.SNodeCellOp) -> None:
    node = stmt.snode
    container: Ptr = emitter.ptrs[stmt.ptr]
    cell = emitter.fresh("cell")
    emitter.line(f"let {cell}: u32 = bitcast<u32>({emitter.value(stmt.index)});")
    if node.type == "pointer":
        result = _pointer(emitter, node, stmt.op, _at(container, f"{sparse.SLOT_BYTES}u * {cell}"))
    elif node.type == "bitmasked":
        result = _bitmasked(emitter, node, stmt.op, container, cell)
    else:
        result = _dynamic(emitter, node, stmt.op, container, cell)
    if stmt.ret_type is not None:
        assert result is not None, stmt.op
        emitter.reg(stmt, stmt.ret_type)
        name = emitter.name_of(stmt)
        emitter.line(f"let {name}: i32 = {result};")
        emitter.values[stmt] = name


# --- words ----------------------------------------------------------------------------------


def _at(base: Ptr, term: str) -> Ptr:
    """`base` + `term` bytes, as a new pointer expression."""
    return Ptr(base.resource, term if base.offset == "0u" else f"({base.offset} + {term})")


def _meta(node: SNode, offset: int) -> Ptr:
    return Ptr(f"tree{node.tree_id}", f"{node.meta_offset + offset}u")


def _atomic(emitter: Any, ptr: Ptr, call: str, *args: str) -> str:
    """`call(&word, args)` on the u32 word at `ptr`; the name holding its result."""
    out = emitter.fresh("w")
    emitter.line(f"var {out}: u32;")
    rest = "".join(f", {a}" for a in args)
    emitter.access(ptr, "au32", True, lambda ref: [f"{out} = {call}(&{ref}{rest});"])
    return out


def _load(emitter: Any, ptr: Ptr) -> str:
    return _atomic(emitter, ptr, "atomicLoad")


def _do(emitter: Any, ptr: Ptr, call: str, *args: str) -> None:
    rest = "".join(f", {a}" for a in args)
    emitter.access(ptr, "au32", True, lambda ref: [f"{call}(&{ref}{rest});"])


# --- pointer --------------------------------------------------------------------------------


def _pointer(emitter: Any, node: SNode, op: Op, slot: Ptr) -> str | None:
    if op is Op.is_active:
        old = _load(emitter, slot)
        return f"select(0i, 1i, {old} != 0u && {old} != {LOCKED})"
    if op is Op.deactivate:
        old = _atomic(emitter, slot, "atomicExchange", "0u")
        emitter.line(f"if ({old} != 0u && {old} != {LOCKED}) {{")
        with emitter.indent():
            _push_recycle(emitter, node, old)
        emitter.line("}")
        return None
    assert op is Op.activate, op
    old = _load(emitter, slot)
    emitter.line(f"if ({old} == 0u) {{")
    with emitter.indent():
        won = emitter.fresh("won")
        emitter.line(f"var {won}: bool = false;")
        emitter.access(
            slot,
            "au32",
            True,
            lambda ref: [
                "loop {",
                f"    let cas = atomicCompareExchangeWeak(&{ref}, 0u, {LOCKED});",
                f"    if (cas.exchanged) {{ {won} = true; break; }}",
                "    if (cas.old_value != 0u) { break; }",
                "}",
            ],
        )
        emitter.line(f"if ({won}) {{")  # this invocation allocates; 0 if the pool ran out
        with emitter.indent():
            _do(emitter, slot, "atomicStore", _allocate(emitter, node))
        emitter.line("}")
    emitter.line("}")
    # after the branches reconverge (the owner has published): wait for another owner. Only
    # where the slot was not active: an active slot enters no loop (lavapipe's loop limiter
    # counts every iteration of every loop nested in a task's loop, and stops them all)
    emitter.line(f"if ({old} == 0u || {old} == {LOCKED}) {{")
    with emitter.indent():
        emitter.line("loop {")
        with emitter.indent():
            emitter.line(f"if ({_load(emitter, slot)} != {LOCKED}) {{ break; }}")
        emitter.line("}")
    emitter.line("}")
    return None


def _allocate(emitter: Any, node: SNode) -> str:
    """A pool index (1-based) from the free list, else the bump counter; 0 (and the overflow
    word set) when the pool is exhausted."""
    v = emitter.fresh("v")
    emitter.line(f"var {v}: u32 = 0u;")
    free = _atomic(emitter, _meta(node, sparse.FREE_COUNT), "atomicSub", "1u")
    emitter.line(f"if (bitcast<i32>({free}) > 0i) {{")
    with emitter.indent():
        lists = node.meta_offset + sparse.META_BYTES
        entry = Ptr(f"tree{node.tree_id}", f"({lists}u + 4u * ({free} - 1u))")
        emitter.line(f"{v} = {_load(emitter, entry)};")
    emitter.line("} else {")
    with emitter.indent():
        _do(emitter, _meta(node, sparse.FREE_COUNT), "atomicAdd", "1u")
        bump = _atomic(emitter, _meta(node, sparse.BUMP), "atomicAdd", "1u")
        emitter.line(f"if ({bump} < {node.pool_capacity}u) {{")
        emitter.line(f"    {v} = {bump} + 1u;")
        emitter.line("} else {")
        with emitter.indent():
            _do(emitter, _meta(node, sparse.OVERFLOW), "atomicOr", "1u")
        emitter.line("}")
    emitter.line("}")
    return v


def _push_recycle(emitter: Any, node: SNode, v: str) -> None:
    count = _atomic(emitter, _meta(node, sparse.RECYCLE_COUNT), "atomicAdd", "1u")
    lists = node.meta_offset + sparse.META_BYTES + 4 * node.pool_capacity
    _do(emitter, Ptr(f"tree{node.tree_id}", f"({lists}u + 4u * {count})"), "atomicStore", v)


# --- bitmasked and dynamic ------------------------------------------------------------------


def _bitmasked(emitter: Any, node: SNode, op: Op, container: Ptr, cell: str) -> str | None:
    at = f"({container.offset} - {node.header_bytes}u + 4u * ({cell} >> 5u))"
    word = Ptr(container.resource, at)
    bit = f"(1u << ({cell} & 31u))"
    if op is Op.activate:
        _do(emitter, word, "atomicOr", bit)
        return None
    if op is Op.deactivate:
        _do(emitter, word, "atomicAnd", f"~{bit}")
        return None
    assert op is Op.is_active, op
    return f"select(0i, 1i, ({_load(emitter, word)} & {bit}) != 0u)"


def _dynamic(emitter: Any, node: SNode, op: Op, container: Ptr, cell: str) -> str | None:
    length = Ptr(container.resource, f"({container.offset} - {node.header_bytes}u)")
    n = f"{node.num_cells}u"
    if op is Op.activate:
        _do(emitter, length, "atomicMax", f"min({cell} + 1u, {n})")
        return None
    if op is Op.append:  # a full list stays full; an index past its end stores nothing
        old = _atomic(emitter, length, "atomicAdd", "1u")
        _do(emitter, length, "atomicMin", n)
        return f"bitcast<i32>({old})"
    if op is Op.deactivate:
        old = _atomic(emitter, length, "atomicExchange", "0u")
        _zero_cells(emitter, node, container, old)
        return None
    current = _load(emitter, length)
    if op is Op.length:
        return f"bitcast<i32>({current})"
    assert op is Op.is_active, op
    return f"select(0i, 1i, {cell} < {current})"


def _zero_cells(emitter: Any, node: SNode, container: Ptr, count: str) -> None:
    """Zero the first `count` cells of a dynamic node's container (4-byte aligned): whole words,
    then the bytes of a last partial word, which may share it with cells past the length."""
    size = emitter.fresh("bytes")
    k = emitter.fresh("k")
    emitter.line(f"let {size}: u32 = {count} * {node.cell_size}u;")
    emitter.line(f"for (var {k}: u32 = 0u; {k} < ({size} >> 2u); {k} = {k} + 1u) {{")
    with emitter.indent():
        _do(emitter, _at(container, f"4u * {k}"), "atomicStore", "0u")
    emitter.line("}")
    if node.cell_size % 4:
        emitter.line(f"if (({size} & 3u) != 0u) {{")
        with emitter.indent():
            mask = f"~((1u << (8u * ({size} & 3u))) - 1u)"
            _do(emitter, _at(container, f"({size} & ~3u)"), "atomicAnd", mask)
        emitter.line("}")
