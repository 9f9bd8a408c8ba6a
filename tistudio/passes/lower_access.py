"""Lower access: turn each field element pointer into the walk down its SNode tree.

`x[i, j]` starts at the root of the tree's memory and goes down one level at a time: pick the
cell of this level that holds element (i, j) (`SNodeLookup`, address + cell * cell size), then
step to the child inside that cell (`GetCh`, address + the child's offset). A dense level's cell
number is the row-major combination of the part of each index that belongs to that level (one
`SNodeLookup` per axis, so the back end sums the terms as 64-bit addresses), so a
field split over several levels (`dense(i, 4).dense(i, 8)`) takes `i // 8` at the outer level and
`i % 8` at the inner one; powers of two become shifts and masks. Back ends then only add and
multiply addresses (Taichi's `lower_access`). Indices are assumed to be in bounds.
"""

from __future__ import annotations

import math

from tistudio.ir.snode import BIT_CONTAINERS, SNode
from tistudio.ir.statements import GetCh, GetRoot, GlobalPtr, SNodeLookup
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PointerType, gen
from tistudio.passes import index_math as ix
from tistudio.passes.context import PassContext
from tistudio.passes.util import redirect_operands

_GEN_PTR = PointerType(gen)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    lowered: dict[Stmt, Stmt] = {}
    for stmt in kernel.walk():
        redirect_operands(stmt, lowered)  # every use of a pointer comes after it
        if isinstance(stmt, GlobalPtr):
            lowered[stmt] = _lower(stmt)
    return bool(lowered)


def _lower(ptr: GlobalPtr) -> Stmt:
    """get root -> lookup(root, 0) -> get child -> lookup(level, cell) -> ... -> get child place."""
    path = ptr.snode.path()
    levels = ptr.snode.levels()  # each node's axes as positions among the field's indices
    assert path[0].type == "root", f"{ptr.snode.ref()} is not attached to an SNode tree"
    out: list[Stmt] = []
    root = ix.emit(out, GetRoot(ptr.snode.tree_id, ret_type=_GEN_PTR))
    address = ix.emit(out, SNodeLookup(path[0], root, ix.constant(out, 0), ret_type=_GEN_PTR))
    for depth, node in enumerate(path[1:], start=1):
        is_place = node.type == "place" or node.type in BIT_CONTAINERS  # (quant: the word)
        ret_type = PointerType(node.dtype) if is_place and node.dtype else _GEN_PTR
        address = ix.emit(out, GetCh(address, node, ret_type=ret_type))
        if not is_place:
            for term in _cell_terms(ptr.indices, levels, depth, out):
                address = ix.emit(out, SNodeLookup(node, address, term, ret_type=_GEN_PTR))
    for stmt in out:
        stmt.loc = ptr.loc
    ptr.insert_before(*out)
    ptr.erase()
    return address


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
