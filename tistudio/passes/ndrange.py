"""How `lower_ast` lowers `for i, j, ... in ti.ndrange(...)`: the shape of the loops it emits.

Flattening every axis into one loop and recovering `i, j` with a division and a remainder per
element is always correct, but the division blocks vectorisation: a 2D stencil ran 14x slower
than a row loop with an inner `range`. So a multi-axis ndrange becomes an outer loop over the
flattened leading axes (one division per row, not per element) around a serial inner `RangeFor`
over the last axis, which LLVM vectorises. The outer loop stays the parallel one, so this keeps
the parallelism as long as there are enough rows: with a constant row count below `MIN_ROWS`
(for example `ndrange(2, 10**6)`), or when the body may `break` out of the loop (the user's
`break` must leave the whole ndrange), the loop stays flat.

On the GPU every ndrange stays flat. There the parallel loop is a grid of invocations, and
neighbouring invocations must touch neighbouring elements for their loads to coalesce: with a
serial row per invocation, neighbours were a whole row apart and the 8192x8192 stencil of
`benchmarks/gpu` ran at 78 GB/s on an H200 against 2277 GB/s for the same stencil written as a
struct-for. A division by a constant extent costs a GPU a multiply and a shift.
"""

from __future__ import annotations

from typing import Any

from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import BinaryOp, Const, LoopIndex, RangeFor
from tistudio.ir.stmt import Block, Stmt
from tistudio.ir.types import i32

MIN_ROWS = 64  # a parallel loop with fewer (constant) rows keeps all axes flattened
ROW_LOOP_ARCHES = frozenset({"cpu"})  # where a multi-axis ndrange may become row loops


def lower(lowerer: Any, s: fe.FrontendFor) -> Stmt:
    """Emit the loops of ndrange loop `s` through `lowerer` (lower_ast's `_Lowerer`) and bind
    the loop variables; the innermost loop's body block is left open on `lowerer.out` (one block
    per loop emitted) for the body; the outermost loop is returned."""
    add = lowerer.add
    zero = add(Const(0, ret_type=i32), s.loc)
    begins, ends, extents = [], [], []
    for b, e in s.ranges:
        begin, end = lowerer.expr(b), lowerer.expr(e)
        diff = add(BinaryOp(BinaryOpType.sub, end, begin, ret_type=i32), s.loc)
        extents.append(add(BinaryOp(BinaryOpType.max, diff, zero, ret_type=i32), s.loc))
        begins.append(begin)
        ends.append(end)
    flat_axes = len(extents)
    if flat_axes > 1 and lowerer.arch in ROW_LOOP_ARCHES and _row_loop_fits(s, extents[:-1]):
        flat_axes -= 1
    total = extents[0]
    for ext in extents[1:flat_axes]:
        total = add(BinaryOp(BinaryOpType.mul, total, ext, ret_type=i32), s.loc)
    loop = add(RangeFor(zero, total, serialize=not s.parallel), s.loc)
    lowerer.out.append(loop.body)
    flat = add(LoopIndex(loop, 0, ret_type=i32), s.loc)
    for k in reversed(range(flat_axes)):
        idx = flat
        if k > 0:
            idx = add(BinaryOp(BinaryOpType.mod, flat, extents[k], ret_type=i32), s.loc)
            flat = add(BinaryOp(BinaryOpType.div, flat, extents[k], ret_type=i32), s.loc)
        value = add(BinaryOp(BinaryOpType.add, begins[k], idx, ret_type=i32), s.loc)
        lowerer.loop_vars[id(s.loop_var_exprs[k])] = value
    if flat_axes < len(extents):  # the last axis: a serial loop from its begin to its end
        inner = add(RangeFor(begins[-1], ends[-1], serialize=True), s.loc)
        lowerer.out.append(inner.body)
        index = add(LoopIndex(inner, 0, ret_type=i32), s.loc)
        lowerer.loop_vars[id(s.loop_var_exprs[-1])] = index
    return loop


def _row_loop_fits(s: fe.FrontendFor, leading: list[Stmt]) -> bool:
    if _breaks_out(s.body):
        return False
    if not s.parallel:
        return True
    rows = 1
    for extent in leading:
        value = _constant(extent)
        if value is None:
            return True  # unknown until launch: assume an image-like shape
        rows *= value
    return rows >= MIN_ROWS


def _constant(stmt: Stmt) -> int | None:
    """The value of `max(end - begin, 0)` when both bounds are literals."""
    diff = stmt.lhs  # type: ignore[attr-defined]
    end, begin = diff.lhs, diff.rhs
    if isinstance(end, Const) and isinstance(begin, Const):
        return max(int(end.value) - int(begin.value), 0)
    return None


def _breaks_out(block: Block) -> bool:
    """Whether a `break` in `block` (outside nested loops) would leave this loop."""
    for stmt in block:
        if isinstance(stmt, fe.FrontendBreak):
            return True
        if isinstance(stmt, fe.FrontendIf) and (
            _breaks_out(stmt.true_block) or _breaks_out(stmt.false_block)
        ):
            return True
    return False
