"""Sparse SNodes' memory (pointer, bitmasked, dynamic) and its reference semantics on the host.

Every back end lays sparse memory out the same way (docs/sparse-design.md), inside the tree's
one buffer, so the IR and the passes never ask which back end runs them:

- a **pointer** node's container (in its parent's cell) is one `u32` slot (in 16 bytes, as
  Taichi's) per cell: 0 when the cell is inactive, else `v`, the index of its child cell in
  the node's **pool**. Pool cell 0 is
  the "ambient" cell, always zero, so `pool + slot * cell_size` reads zeros for an inactive cell
  without a branch. Activation takes `v` from the free list or the bump counter and stores it
  (on the CPU under a lock in the slot's second word); deactivation swaps the slot to 0 and
  pushes `v` on the recycle list, which the host moves to the free list between launches
  (`collect`, zeroing the cells), so a launch never pops and pushes the same list.
- a **bitmasked** node's cells are dense, after one `u32` mask word per 32 cells.
- a **dynamic** node's cells are dense, after a `u32` length.

The pools sit after the dense part of the tree, reserved at their worst case (at most
`POOL_BYTES` each): the tree buffer is zeroed memory that the OS commits page by page as the
bump counter advances. The functions below are the single-threaded meaning of each operation
on a tree's bytes: the IR interpreter runs them, and Python scope (`x[i] = v`, `to_numpy`,
`deactivate_all`) uses them on the CPU's buffers; the LLVM back end emits the same steps with
atomics (`backends/llvm/sparse.py`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tistudio.ir.snode import SNode

POOL_BYTES = 1 << 30  # the most memory one pointer node's pool reserves (its cells beyond: error)
META_BYTES = 16  # bump counter, free count, recycle count, overflow flag (u32 each)
BUMP, FREE_COUNT, RECYCLE_COUNT, OVERFLOW = 0, 4, 8, 12
# A pointer slot is a u32 in 16 bytes, the size of Taichi's pointer cells (a pointer and a lock),
# so fields laid out around pointer nodes sit where Taichi puts them (Taichi's test of a matrix
# field's dynamic-index stride depends on it).
SLOT_BYTES = 16


def _round_up(n: int, to: int) -> int:
    return (n + to - 1) // to * to


def lookup_stride(node: SNode) -> int:
    """Bytes from one cell of `node`'s container to the next: a pointer's are its `u32` slots."""
    return SLOT_BYTES if node.type == "pointer" else node.cell_size


def container_size(node: SNode, align: int) -> tuple[int, int]:
    """Bytes and alignment of a sparse node's container in its parent's cell (its cells' size
    and alignment are set): the slots of a pointer, or the header and cells of the others."""
    if node.type == "pointer":
        return SLOT_BYTES * node.num_cells, 8
    align = max(align, 4)
    words = math.ceil(node.num_cells / 32) if node.type == "bitmasked" else 1
    node.header_bytes = _round_up(4 * words, align)
    return node.header_bytes + node.cell_size * node.num_cells, align


def _nodes(root: SNode) -> list[SNode]:
    out = [root]
    for child in root.children:
        out.extend(_nodes(child))
    return out


def pointers(root: SNode) -> list[SNode]:
    """The pointer nodes of a tree, parents before children."""
    return [n for n in _nodes(root) if n.type == "pointer"]


def place_pools(root: SNode, dense_size: int, tree_bytes: int | None = None) -> int:
    """Lay out each pointer node's counters, lists and pool after the tree's `dense_size`
    bytes; return the tree's whole size. `tree_bytes` (the GPU's: one storage binding) caps
    the whole tree: the pools share what the dense part leaves, equally; MemoryError when
    some pool would not hold a single cell."""
    if not any(n.is_sparse for n in _nodes(root)):
        return dense_size
    offset = _round_up(dense_size, 64)
    nodes = pointers(root)
    share = 0  # a pool's bytes with its lists and ambient cell, on the GPU
    if tree_bytes is not None and nodes:
        share = (tree_bytes - offset) // len(nodes) - META_BYTES - 192
    for node in nodes:
        worst = math.prod(n.num_cells for n in node.path())
        cell = max(node.cell_size, 1)
        node.pool_capacity = min(worst, max(1, POOL_BYTES // cell))
        if tree_bytes is not None:
            if share < cell + 8 + node.cell_size:
                raise MemoryError(_no_room(node, dense_size, tree_bytes))
            node.pool_capacity = min(node.pool_capacity, (share - node.cell_size) // (cell + 8))
        node.meta_offset = offset
        offset = _round_up(offset + META_BYTES + 8 * node.pool_capacity, 64)
        node.pool_offset = offset
        offset = _round_up(offset + (node.pool_capacity + 1) * node.cell_size, 64)
    return _round_up(offset, 8)


def _no_room(node: SNode, dense_size: int, tree_bytes: int | None) -> str:
    return (
        f"no room for the pool of pointer SNode {node.ref()} ({node.cell_size}-byte cells): "
        f"the tree's dense part takes {dense_size:,} bytes of the {tree_bytes:,} that one GPU "
        "storage binding holds; place the large dense fields in a tree of their own (declare "
        "them after a kernel call, or with ti.FieldsBuilder) or make them smaller"
    )


# --- one operation on one cell (the interpreter's and Python scope's) -------------------------


def _word(buf: np.ndarray, offset: int) -> int:
    return int(buf[offset : offset + 4].view(np.uint32)[0])


def _set_word(buf: np.ndarray, offset: int, value: int) -> None:
    buf[offset : offset + 4].view(np.uint32)[0] = value & 0xFFFFFFFF


def _allocate(buf: np.ndarray, node: SNode) -> int:
    """A free pool index (1-based): the free list's last, else the next from the bump counter;
    0, with the overflow flag set, when the pool is exhausted."""
    meta = node.meta_offset
    free = np.int32(_word(buf, meta + FREE_COUNT))
    if free > 0:
        _set_word(buf, meta + FREE_COUNT, int(free) - 1)
        return _word(buf, meta + META_BYTES + 4 * (int(free) - 1))
    bump = _word(buf, meta + BUMP)
    if bump >= node.pool_capacity:
        _set_word(buf, meta + OVERFLOW, 1)
        return 0
    _set_word(buf, meta + BUMP, bump + 1)
    return bump + 1


def _recycle(buf: np.ndarray, node: SNode, v: int) -> None:
    meta = node.meta_offset
    count = _word(buf, meta + RECYCLE_COUNT)
    _set_word(buf, meta + META_BYTES + 4 * node.pool_capacity + 4 * count, v)
    _set_word(buf, meta + RECYCLE_COUNT, count + 1)


def cell_op(buf: np.ndarray, node: SNode, op: str, container: int, cell: int) -> int:
    """`op` on cell `cell` of `node`'s container at byte `container` of the tree `buf`; the
    value of is_active, append and length (0 for the others)."""
    if node.type == "pointer":
        slot = container + SLOT_BYTES * cell
        v = _word(buf, slot)
        if op == "activate" and v == 0:
            _set_word(buf, slot, _allocate(buf, node))
        elif op == "deactivate" and v != 0:
            _set_word(buf, slot, 0)
            _recycle(buf, node, v)
        return int(v != 0) if op == "is_active" else 0
    if node.type == "bitmasked":
        word = container - node.header_bytes + 4 * (cell // 32)
        bit = 1 << (cell % 32)
        mask = _word(buf, word)
        if op == "activate":
            _set_word(buf, word, mask | bit)
        elif op == "deactivate":
            _set_word(buf, word, mask & ~bit)
        return int(bool(mask & bit)) if op == "is_active" else 0
    assert node.type == "dynamic", node.type
    length_at = container - node.header_bytes
    n = _word(buf, length_at)
    if op == "activate":
        _set_word(buf, length_at, max(n, min(cell + 1, node.num_cells)))
    elif op == "deactivate":
        buf[container : container + n * node.cell_size] = 0
        _set_word(buf, length_at, 0)
    elif op == "append":  # a full list stays full; the index past its end is given (Taichi's)
        _set_word(buf, length_at, min(n + 1, node.num_cells))
        return n
    return {"is_active": int(cell < n), "length": n}.get(op, 0)


# --- walking down a tree (NumPy, many elements at once) ---------------------------------------


def walk(
    buf: np.ndarray, snode: SNode, index: list[np.ndarray], activate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Follow `snode`'s path for each index tuple (`index[p]`: position p of every tuple) to the
    start of `snode`'s cell (a place: its element). Returns the byte offsets, whether every
    sparse level on the way is active, and the cell number at `snode`'s own level. Inactive
    pointer cells lead into the ambient cell; `activate` (one tuple only) activates the path."""
    levels = snode.levels()
    shape = np.broadcast(*index).shape if index else ()
    offsets = np.zeros(shape, np.int64)
    active = np.ones(shape, bool)
    cell = np.zeros(shape, np.int64)
    for depth, (node, positions) in enumerate(levels[1:], start=1):
        offsets = offsets + node.offset_in_parent_cell
        if node.type == "place" or not node.sizes:
            continue
        cell = np.zeros(shape, np.int64)
        for position, size in zip(positions, node.sizes):
            deeper = math.prod(
                s for n, ps in levels[depth + 1 :] for p, s in zip(ps, n.sizes) if p == position
            )
            cell = cell * size + (index[position] // deeper) % size
        if node is snode:
            break
        offsets, active = _step(buf, node, offsets, cell, active, activate)
    return offsets, active, cell


def _step(
    buf: np.ndarray,
    node: SNode,
    offsets: np.ndarray,
    cell: np.ndarray,
    active: np.ndarray,
    activate: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """From `node`'s container (`offsets`) to the start of cell `cell` of it."""
    if activate and node.is_sparse:
        cell_op(buf, node, "activate", int(offsets.flat[0]), int(cell.flat[0]))
    words = buf[: buf.nbytes // 4 * 4].view(np.uint32)
    if node.type == "pointer":
        slot = words[(offsets + SLOT_BYTES * cell) // 4].astype(np.int64)
        return node.pool_offset + slot * node.cell_size, active & (slot != 0)
    if node.type == "bitmasked":
        mask = words[(offsets - node.header_bytes + 4 * (cell // 32)) // 4]
        active = active & ((mask >> (cell % 32).astype(np.uint32)) & 1).astype(bool)
    elif node.type == "dynamic":
        active = active & (cell < words[(offsets - node.header_bytes) // 4])
    return offsets + cell * node.cell_size, active


def cells(buf: np.ndarray, snode: SNode, index: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The start of each cell of `snode` (index tuples in its own index space) and whether it
    is active (every sparse level down to `snode`'s own)."""
    offsets, active, cell = walk(buf, snode, index)
    if snode.type == "place":
        return offsets, active
    return _step(buf, snode, offsets, cell, active, False)


def active_mask(buf: np.ndarray, snode: SNode, index: list[np.ndarray]) -> np.ndarray:
    """Whether each cell of `snode` is active (see `cells`)."""
    return cells(buf, snode, index)[1]


# --- between launches and from Python scope ---------------------------------------------------


def collect(buf: np.ndarray, root: SNode) -> list[SNode]:
    """Taichi's garbage collection, on the host between launches: each pointer pool's recycled
    cells are zeroed and moved to its free list. Returns the nodes whose pool ran out (their
    ambient cell, where the writes that found no cell went, is zeroed again)."""
    exhausted = []
    for node in pointers(root):
        meta, cap, size = node.meta_offset, node.pool_capacity, node.cell_size
        counters = buf[meta : meta + META_BYTES].view(np.uint32)
        recycled, overflow = int(counters[2]), int(counters[3])
        if not (recycled or overflow):  # (most launches: nothing to do)
            continue
        pool = buf[node.pool_offset : node.pool_offset + (cap + 1) * size].reshape(cap + 1, size)
        if recycled:
            lists = buf[meta + META_BYTES : meta + META_BYTES + 8 * cap].view(np.uint32)
            taken = lists[cap : cap + recycled].copy()
            _recycle_inner(buf, node, taken)
            pool[taken] = 0
            free = int(counters[1])
            lists[free : free + recycled] = taken
            counters[1], counters[2] = free + recycled, 0
        if overflow:
            counters[0], counters[3] = min(int(counters[0]), cap), 0
            exhausted.append(node)
            pool[0] = 0
    return exhausted


def _recycle_inner(buf: np.ndarray, node: SNode, taken: np.ndarray) -> None:
    """Before pool cells of `node` are zeroed: the cells of the pointer nodes inside them (not
    below another pointer) go to those nodes' recycle lists, collected after `node`'s."""
    for inner, starts in _inner_slots(node):
        slots = node.pool_offset + taken[:, None].astype(np.int64) * node.cell_size + starts
        values = buf[: buf.nbytes // 4 * 4].view(np.uint32)[slots.ravel() // 4]
        for v in values[values != 0]:
            _recycle(buf, inner, int(v))


def _inner_slots(node: SNode) -> list[tuple[SNode, np.ndarray]]:
    """Each pointer node directly inside `node`'s cells, with its slots' byte offsets from the
    start of one cell."""
    found: list[tuple[SNode, np.ndarray]] = []

    def visit(current: SNode, starts: np.ndarray) -> None:
        for child in current.children:
            here = starts + child.offset_in_parent_cell
            if child.type == "pointer":
                slots = here[:, None] + SLOT_BYTES * np.arange(child.num_cells)
                found.append((child, slots.ravel()))
            elif child.type != "place" and child.children:
                cells = np.arange(child.num_cells) * child.cell_size
                visit(child, (here[:, None] + cells).ravel())

    visit(node, np.zeros(1, np.int64))
    return found


def exhausted_message(node: SNode) -> str:
    """The error for a pointer node whose pool ran out."""
    return (
        f"the pool of pointer SNode {node.ref()} is exhausted: more than "
        f"{node.pool_capacity:,} of its cells were active at once (a pool of "
        f"{node.pool_capacity * node.cell_size / 2**20:,.1f} MiB of {node.cell_size}-byte "
        "cells); deactivate cells you no longer need (ti.deactivate) or "
        "make its cells smaller"
    )


def all_cells(shape: tuple[int, ...]) -> list[np.ndarray]:
    """Every index tuple of `shape`, as one array per position."""
    return list(np.indices(shape, dtype=np.int64).reshape(len(shape), -1)) if shape else []


def deactivate_all(buf: np.ndarray, node: SNode) -> None:
    """Deactivate every cell of `node` and of the sparse nodes below it (Taichi's
    `snode.deactivate_all()`): pools emptied, slots, masks and lengths zeroed; a dynamic
    node's cells zeroed too. A pool is zeroed only up to its bump counter: the cells beyond it
    were never handed out, so they are still zero (one memset of the used prefix, not of the
    pool's worst case)."""
    for sub in _nodes(node):
        if sub.type == "pointer":
            counters = buf[sub.meta_offset : sub.meta_offset + META_BYTES].view(np.uint32)
            used = min(int(counters[0]), sub.pool_capacity) + 1  # the ambient cell and 1..bump
            buf[sub.meta_offset : sub.meta_offset + META_BYTES] = 0
            buf[sub.pool_offset : sub.pool_offset + used * sub.cell_size] = 0
    for sub in _nodes(node):
        if not sub.is_sparse:
            continue
        parent = sub.parent
        assert parent is not None
        if parent.parent is None:  # the root's one cell, at 0
            starts = np.zeros(1, np.int64)
        else:
            starts, _ = cells(buf, parent, all_cells(parent.shape))
        starts = np.atleast_1d(starts) + sub.offset_in_parent_cell - sub.header_bytes
        if sub.type == "pointer":
            span = SLOT_BYTES * sub.num_cells
        elif sub.type == "dynamic":
            span = sub.header_bytes + sub.num_cells * sub.cell_size
        else:
            span = sub.header_bytes
        for start in sorted(set(starts.tolist())):  # (Python ints: NumPy's slice slowly)
            buf[start : start + span] = 0


def usage(buf: np.ndarray, node: SNode) -> float:
    """The fraction of `node`'s cells that are active (Taichi's `ti.sparse.usage`)."""
    cells = all_cells(node.shape)
    if not cells:
        return float(active_mask(buf, node, cells))
    return float(np.mean(active_mask(buf, node, cells)))
