"""Demote dense struct-fors: a loop over every cell of a dense field becomes a plain range-for.

When every level of an SNode is dense, its cells can be numbered 0..N-1 in memory order (outer
level first, row-major inside a level), so `for i, j in x` is `for k in range(N)` plus a little
arithmetic that recovers `i` and `j` from `k`. Each level contributes a "digit" of `k`, taken out
with a division and a remainder, or with a shift and a mask when the size is a power of two; an
axis split over several levels adds up its digits. Back ends then only need range-fors
(Taichi's `demote_dense_struct_fors`).
"""

from __future__ import annotations

import math

from tistudio.ir.ops import BinaryOpType, TaskType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import BinaryOp, LoopIndex, Offloaded
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.ir.types import i32
from tistudio.passes import index_math as ix
from tistudio.passes.context import PassContext


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if (
            isinstance(task, Offloaded)
            and task.task_type is TaskType.struct_for
            and task.snode is not None
            and task.snode.is_path_all_dense()
        ):
            _demote(task, task.snode)
            changed = True
    return changed


def _demote(task: Offloaded, snode: SNode) -> None:
    digits = [(a, s) for node, axes in snode.levels() for a, s in zip(axes, node.sizes)]
    total = math.prod(size for _, size in digits)
    task.task_type, task.snode = TaskType.range_for, None
    task.begin, task.end, task.const_begin, task.const_end = 0, total, True, True
    indices = [s for s in walk(task.body) if isinstance(s, LoopIndex) and s.loop is task]
    if not indices:
        return
    out: list[Stmt] = [LoopIndex(task, 0, ret_type=i32, loc=task.loc)]
    axes: dict[int, Stmt] = {}
    for index in indices:
        if index.index not in axes:
            axes[index.index] = _axis_index(index.index, digits, out)
    task.body.insert(0, *out)
    for index in indices:
        index.replace_with(axes[index.index])


def _axis_index(axis: int, digits: list[tuple[int, int]], out: list[Stmt]) -> Stmt:
    """Field index along `axis` = sum over its digits of digit * (sizes of deeper digits)."""
    linear = out[0]
    acc: Stmt | None = None
    for d, (digit_axis, size) in enumerate(digits):
        if digit_axis != axis or size == 1:
            continue
        stride = math.prod(s for _, s in digits[d + 1 :])
        weight = math.prod(s for a, s in digits[d + 1 :] if a == axis)
        value = ix.divide(out, linear, stride)
        if d > 0:  # the first digit is already < size, as the linear index is < total
            value = ix.remainder(out, value, size)
        value = ix.multiply(out, value, weight)
        acc = value if acc is None else ix.emit(out, BinaryOp(BinaryOpType.add, acc, value))
    return acc if acc is not None else ix.constant(out, 0)
