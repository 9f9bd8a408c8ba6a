"""Lower access: turn each field element pointer into the walk down its SNode tree.

`x[i, j]` starts at the root of the tree's memory and goes down one level at a time: pick the
cell of this level that holds element (i, j) (`SNodeLookup`, address + cell * cell size), then
step to the child inside that cell (`GetCh`, address + the child's offset). A dense level's cell
number is the row-major combination of the part of each index that belongs to that level (one
`SNodeLookup` per axis, so the back end sums the terms as 64-bit addresses), so a
field split over several levels (`dense(i, 4).dense(i, 8)`) takes `i // 8` at the outer level and
`i % 8` at the inner one; powers of two become shifts and masks. Back ends then only add and
multiply addresses (Taichi's `lower_access`). Indices are assumed to be in bounds.

Sparse levels (ir/sparse.py) show what sparsity costs. A step into a pointer level loads the
cell's slot and goes to that cell of the node's pool (`[S1pointer]::pool($slot)`; an inactive
slot is 0, which leads to the pool's all-zero ambient cell, so a read needs no branch). A
write (a store or an atomic) first activates each sparse level on its way down (`activate
[S1pointer]::cell(...)`), unless the kernel said `ti.no_activate` for that node. Bitmasked and
dynamic levels are dense steps; their activity is a mask bit or a length that only writes
and `ti.is_active`-like operations (`SNodeOp`, lowered here to `SNodeCellOp`) touch.
"""

from __future__ import annotations

import math

from tistudio.ir.ops import BinaryOpType, SNodeOpType
from tistudio.ir.snode import BIT_CONTAINERS, SNode
from tistudio.ir.statements import (
    AtomicCAS,
    AtomicOp,
    BinaryOp,
    GetCh,
    GetRoot,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    PoolCell,
    SNodeCellOp,
    SNodeLookup,
    SNodeOp,
)
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PointerType, gen, i32
from tistudio.passes import index_math as ix
from tistudio.passes.context import PassContext
from tistudio.passes.util import redirect_operands

_GEN_PTR = PointerType(gen)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    written = _written(kernel)
    quiet = {s.id for s in getattr(kernel, "no_activate", ())}  # ti.no_activate's nodes
    weak = getattr(kernel, "weak_access", set())  # a struct-for's own cells (already active)
    lowered: dict[Stmt, Stmt] = {}
    for stmt in kernel.walk():
        redirect_operands(stmt, lowered)  # every use of a pointer comes after it
        if isinstance(stmt, GlobalPtr):
            activate = stmt in written and stmt not in weak
            lowered[stmt] = _lower(stmt, stmt.indices, activate, quiet)
        elif isinstance(stmt, SNodeOp):
            lowered[stmt] = _lower(stmt, stmt.indices, stmt.op in _ACTIVATING, quiet)
    return bool(lowered)


_ACTIVATING = (SNodeOpType.activate, SNodeOpType.append)


def _written(kernel: Kernel) -> set[Stmt]:
    """The field pointers that a store or an atomic writes through: these activate."""
    written: set[Stmt] = set()
    for stmt in kernel.walk():
        if isinstance(stmt, GlobalStore):
            written.add(stmt.ptr)
        elif isinstance(stmt, (AtomicOp, AtomicCAS)):
            written.add(stmt.dest)
    return written


def _lower(stmt: GlobalPtr | SNodeOp, indices: list[Stmt], activate: bool, quiet: set) -> Stmt:
    """get root -> lookup(root, 0) -> get child -> lookup(level, cell) -> ... -> get child place.
    An `SNodeOp` stops at its node's container and becomes an `SNodeCellOp` there."""
    snode = stmt.snode
    path = snode.path()
    levels = snode.levels()  # each node's axes as positions among the field's indices
    assert path[0].type == "root", f"{snode.ref()} is not attached to an SNode tree"
    out: list[Stmt] = []
    root = ix.emit(out, GetRoot(snode.tree_id, ret_type=_GEN_PTR))
    address = ix.emit(out, SNodeLookup(path[0], root, ix.constant(out, 0), ret_type=_GEN_PTR))
    for depth, node in enumerate(path[1:], start=1):
        is_place = node.type == "place" or node.type in BIT_CONTAINERS  # (quant: the word)
        ret_type = PointerType(node.dtype) if is_place and node.dtype else _GEN_PTR
        address = ix.emit(out, GetCh(address, node, ret_type=ret_type))
        if is_place:
            continue
        if isinstance(stmt, SNodeOp) and node is snode:
            cell = _cell(_cell_terms(indices, levels, depth, out), out)
            address = SNodeCellOp(stmt.op, node, address, cell, ret_type=stmt.ret_type)
            out.append(address)  # (activate and deactivate have no value: no ix.emit type)
        elif node.is_sparse:
            address = _sparse_step(node, address, indices, levels, depth, out, activate, quiet)
        else:
            for term in _cell_terms(indices, levels, depth, out):
                address = ix.emit(out, SNodeLookup(node, address, term, ret_type=_GEN_PTR))
    for new in out:
        new.loc = stmt.loc
    stmt.insert_before(*out)
    stmt.erase()
    return address


def _sparse_step(
    node: SNode,
    container: Stmt,
    indices: list[Stmt],
    levels: list[tuple[SNode, tuple[int, ...]]],
    depth: int,
    out: list[Stmt],
    activate: bool,
    quiet: set,
) -> Stmt:
    """Into the cell of a sparse level: activate it first (writes), then a pointer's slot
    load and pool cell, or a bitmasked or dynamic level's dense lookup."""
    cell = _cell(_cell_terms(indices, levels, depth, out), out)
    if activate and node.id not in quiet:
        out.append(SNodeCellOp(SNodeOpType.activate, node, container, cell))
    if node.type != "pointer":
        return ix.emit(out, SNodeLookup(node, container, cell, ret_type=_GEN_PTR))
    slot_ptr = ix.emit(out, SNodeLookup(node, container, cell, ret_type=PointerType(i32)))
    slot = ix.emit(out, GlobalLoad(slot_ptr, ret_type=i32))
    return ix.emit(out, PoolCell(node, slot, ret_type=_GEN_PTR))


def _cell(terms: list[Stmt], out: list[Stmt]) -> Stmt:
    """One cell number from `_cell_terms`' terms."""
    cell = terms[0]
    for term in terms[1:]:
        cell = ix.emit(out, BinaryOp(BinaryOpType.add, cell, term, ret_type=i32))
    return cell


def _cell_terms(
    indices: list[Stmt], levels: list[tuple[SNode, tuple[int, ...]]], depth: int, out: list[Stmt]
) -> list[Stmt]:
    """The row-major cell number at `levels[depth]` as a sum of terms, one per axis: level index *
    (sizes of later axes). Each term gets its own `SNodeLookup`, so the back end adds them as
    64-bit addresses; one 32-bit sum would hide from LLVM that the inner loop's index only
    steps by one (it cannot widen `sext(i * 2048 + j)` into an induction variable)."""
    node, positions = levels[depth]
    terms: list[Stmt] = []
    for j, (axis, size) in enumerate(zip(positions, node.sizes)):
        if size == 1:
            continue  # this level's index along `axis` is always 0
        deeper = math.prod(
            s for n, ps in levels[depth + 1 :] for a, s in zip(ps, n.sizes) if a == axis
        )
        outermost = all(axis not in ps for _, ps in levels[:depth])
        level = ix.divide(out, indices[axis], deeper)
        if not outermost:  # the outermost level's part is already < size (index in bounds)
            level = ix.remainder(out, level, size)
        terms.append(ix.multiply(out, level, math.prod(node.sizes[j + 1 :])))
    return terms or [ix.constant(out, 0)]
