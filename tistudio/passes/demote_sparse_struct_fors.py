"""Demote sparse struct-fors: a loop over the active cells of a sparse SNode path.

`for i, j in x` where `x` lies under a `pointer`, `bitmasked` or `dynamic` level visits only the
cells whose every sparse level is active. The task becomes a parallel range-for over the cells
of the levels down to the first sparse one (numbered as `demote_dense_struct_fors` numbers
them), which skips an inactive cell with `if is_active(...)`; each deeper level is a serial loop
over its cells inside, again testing the sparse ones. A block whose pointer cell is inactive
costs one test, not a loop over its elements. The field indices are rebuilt digit by digit
(index = index * size + digit at each level). Taichi instead generates lists of the active
cells (`listgen` tasks) and runs the body over the deepest list; here the first sparse level
carries the parallelism, with the level below cut into parts where it has few cells
(docs/sparse-design.md).
"""

from __future__ import annotations

import math

from tistudio.ir.ops import BinaryOpType, SNodeOpType, TaskType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import (
    BinaryOp,
    Const,
    GlobalPtr,
    If,
    LoopIndex,
    Offloaded,
    RangeFor,
    SNodeOp,
)
from tistudio.ir.stmt import Block, Kernel, Stmt, walk
from tistudio.ir.types import i32, u1
from tistudio.passes import index_math as ix
from tistudio.passes.context import PassContext

# A parallel loop over fewer (part, block) pairs than this splits the level below the blocks.
SPLIT_BELOW = 256
MIN_PART = 64  # cells


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if (
            isinstance(task, Offloaded)
            and task.task_type is TaskType.struct_for
            and task.snode is not None
            and not task.snode.is_path_all_dense()
        ):
            weak = _weak_writes(task, task.snode)
            if weak:
                kernel.weak_access = getattr(kernel, "weak_access", set()) | weak  # type: ignore[attr-defined]
            _demote(task, task.snode)
            changed = True
    return changed


def _weak_writes(task: Offloaded, snode: SNode) -> set[GlobalPtr]:
    """The field pointers of the loop body that need not activate (`lower_access` reads
    `kernel.weak_access`), as Taichi's `WeakenAccess`: an element of a field under the same
    levels as the loop's, at the loop's own indices, is in a cell the loop found active. Kept
    stricter than Taichi's (the same nodes down to the place, not only the same sparse level,
    and no deactivation in the body), so the loop's cell is the element's cell and is still
    active when written. A bitmasked write then skips its mask, a pointer write its slot test."""
    if any(isinstance(s, SNodeOp) and s.op is SNodeOpType.deactivate for s in walk(task.body)):
        return set()
    levels = [n for n in snode.path() if n.type != "place"]
    weak = set()
    for stmt in walk(task.body):
        if (
            isinstance(stmt, GlobalPtr)
            and [n for n in stmt.snode.path() if n.type != "place"] == levels
            and all(
                isinstance(i, LoopIndex) and i.loop is task and i.index == k
                for k, i in enumerate(stmt.indices)
            )
            and len(stmt.indices) == snode.num_axes
        ):
            weak.add(stmt)
    return weak


def _demote(task: Offloaded, snode: SNode) -> None:
    levels = [(n, ps) for n, ps in snode.levels()[1:] if n.sizes]
    first = next(k for k, (node, _) in enumerate(levels) if node.is_sparse)
    outer, inner = levels[: first + 1], levels[first + 1 :]
    indices = [s for s in walk(task.body) if isinstance(s, LoopIndex) and s.loop is task]
    body = task.body.take_all()
    cells = math.prod(n.num_cells for n, _ in outer)
    parts = _parts(cells, inner)
    task.task_type, task.snode = TaskType.range_for, None
    task.begin, task.end = 0, cells * parts
    task.const_begin = task.const_end = True
    out: list[Stmt] = []
    cell = ix.emit(out, LoopIndex(task, 0, ret_type=i32))
    if parts > 1:  # part-major, so a thread's share of the range holds parts of every block
        part: Stmt | None = ix.divide(out, cell, cells)
        cell = ix.remainder(out, cell, cells)
    else:
        part = None
    index: dict[int, Stmt] = {}
    for k, (node, positions) in enumerate(outer):
        level_cell = ix.divide(out, cell, math.prod(n.num_cells for n, _ in outer[k + 1 :]))
        if k > 0:  # the outermost level's part is already < its size
            level_cell = ix.remainder(out, level_cell, node.num_cells)
        _add_digits(node, positions, level_cell, index, out)
    block = _guard(snode, outer[-1][0], index, out, task.body)
    for k, (node, positions) in enumerate(inner):
        split = (part, parts) if k == 0 and part is not None else None
        block = _inner_loop(snode, node, positions, index, block, split)
    block.extend(body)
    for stmt in indices:  # (an axis no level splits is 0)
        stmt.replace_with(index.get(stmt.index) or Const(0, ret_type=i32))


def _parts(cells: int, inner: list[tuple[SNode, tuple[int, ...]]]) -> int:
    """Into how many parts to split the cells of the first level below the parallel one, so
    that a few large blocks (`pointer(ij, 4).dense(ij, 256)`: 16) still give every thread work
    when only some of them are active: the parallel loop then runs over (part, block) pairs,
    each testing its block, part-major (the pool gives each thread a contiguous share of the
    range, which so holds parts of every block). A power of two dividing that level's cell
    count, parts of at least `MIN_PART` cells, until there are `SPLIT_BELOW` pairs."""
    if not inner:
        return 1
    n, parts = inner[0][0].num_cells, 1
    while cells * parts < SPLIT_BELOW and n % (2 * parts) == 0 and n // (2 * parts) >= MIN_PART:
        parts *= 2
    return parts


def _add_digits(
    node: SNode, positions: tuple[int, ...], cell: Stmt, index: dict[int, Stmt], out: list[Stmt]
) -> None:
    """index[p] = index[p] * size + digit, for each axis of this level (row-major `cell`)."""
    for k, (position, size) in enumerate(zip(positions, node.sizes)):
        digit = ix.divide(out, cell, math.prod(node.sizes[k + 1 :]))
        if k > 0:
            digit = ix.remainder(out, digit, size)
        if position in index:
            scaled = ix.multiply(out, index[position], size)
            digit = ix.emit(out, BinaryOp(BinaryOpType.add, scaled, digit, ret_type=i32))
        index[position] = digit


def _guard(
    snode: SNode, node: SNode, index: dict[int, Stmt], out: list[Stmt], into: Block
) -> Block:
    """Emit `out` into `into`, then for a sparse `node` `if is_active(node, its indices)`;
    return the block where the loop goes on."""
    if node.is_sparse:
        own = [index.get(snode.physical_axes.index(a)) for a in node.physical_axes]
        args = [i if i is not None else ix.constant(out, 0) for i in own]
        test = ix.emit(out, SNodeOp(SNodeOpType.is_active, node, args, ret_type=i32))
        zero = ix.constant(out, 0)
        ix.emit(out, BinaryOp(BinaryOpType.cmp_ne, test, zero, ret_type=u1))
    into.extend(out)
    if not node.is_sparse:
        return into
    return into.append(If(out[-1])).true_block


def _inner_loop(
    snode: SNode,
    node: SNode,
    positions: tuple[int, ...],
    index: dict[int, Stmt],
    into: Block,
    split: tuple[Stmt, int] | None = None,
) -> Block:
    """A serial loop over the cells of `node` inside `into` (with `split` = (part, parts),
    over part `part` of them only); the block where it goes on."""
    bounds: list[Stmt] = []
    if split is None:
        begin, end = ix.constant(bounds, 0), ix.constant(bounds, node.num_cells)
    else:
        part, parts = split
        size = node.num_cells // parts
        begin = ix.multiply(bounds, part, size)
        end = ix.emit(
            bounds, BinaryOp(BinaryOpType.add, begin, ix.constant(bounds, size), ret_type=i32)
        )
    into.extend(bounds)
    loop = into.append(RangeFor(begin, end, serialize=True))
    out: list[Stmt] = [LoopIndex(loop, 0, ret_type=i32)]
    _add_digits(node, positions, out[0], index, out)
    return _guard(snode, node, index, out, loop.body)
