"""How `lower_ast` lowers `for i, j, ... in ti.ndrange(...)`: the shape of the loops it emits.

Flattening every axis into one loop and recovering `i, j` with a division and a remainder per
element is always correct, but the division blocks vectorisation: a 2D stencil ran 14x slower
than a row loop with an inner `range`. So a multi-axis ndrange becomes an outer loop over the
flattened leading axes (one division per row, not per element) around a serial inner `RangeFor`
over the last axis, which LLVM vectorises. The outer loop stays the parallel one, so this keeps
the parallelism as long as there are enough rows: with a constant row count below `MIN_ROWS`
(for example `ndrange(2, 10**6)`), or when the body may `break` out of the loop (the user's
`break` must leave the whole ndrange), the loop stays flat. A flat loop counts every element in
one i32, so one of more than 2**31-1 constant elements is refused at its line (it wrapped around).

On the GPU every ndrange stays flat. There the parallel loop is a grid of invocations, and
neighbouring invocations must touch neighbouring elements for their loads to coalesce: with a
serial row per invocation, neighbours were a whole row apart and the 8192x8192 stencil of
`benchmarks/gpu` ran at 78 GB/s on an H200 against 2277 GB/s for the same stencil written as a
struct-for. A division by a constant extent costs a GPU a multiply and a shift.

There a later pass, `pad_ndrange`, widens the last axis to whole groups of four for the vec4
loads and stores of `vectorize`.
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.statements import Assert, BinaryOp, Const, LoopIndex, RangeFor, UnaryOp
from tistudio.ir.stmt import Block, Stmt
from tistudio.ir.types import I32_MAX, i32, i64, u1

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
    _check_count(lowerer, s, extents[:flat_axes])
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


def _check_count(lowerer: Any, s: fe.FrontendFor, flat: list[Stmt]) -> None:
    """The flat loop over these axes counts its elements in an i32: refuse a constant count
    that does not fit, and check one known only at launch."""
    elements = _flat_count(flat)
    if elements is None:
        _check_count_at_launch(lowerer, s, flat)
    elif elements > I32_MAX:
        _refuse_overflowing_count(lowerer, s, elements)


def _check_count_at_launch(lowerer: Any, s: fe.FrontendFor, flat: list[Stmt]) -> None:
    """On the CPU, where a flattened axis is known only at launch, add an `Assert` that stops
    the kernel before a loop whose i32 count would wrap around. (Not on the GPU: WGSL has no
    i64, and the host reads a failure record back only by waiting for the kernel.)"""
    if lowerer.arch not in ROW_LOOP_ARCHES or len(flat) < 2:
        return
    add = lowerer.add
    above = add(Const(I32_MAX + 1, ret_type=i64), s.loc)
    total = None
    for extent in flat:  # the running product, clamped so that it never overflows an i64
        wide = add(UnaryOp(UnaryOpType.cast_value, extent, ret_type=i64), s.loc)
        if total is not None:
            wide = add(BinaryOp(BinaryOpType.mul, total, wide, ret_type=i64), s.loc)
            wide = add(BinaryOp(BinaryOpType.min, wide, above, ret_type=i64), s.loc)
        total = wide
    fits = add(BinaryOp(BinaryOpType.cmp_lt, total, above, ret_type=u1), s.loc)
    shape = " x ".join(["%d"] * len(flat))
    message = (
        f"this loop counts {shape} elements in one 32-bit index (at most {I32_MAX:,}); split "
        "it into loops of fewer elements"
    )
    add(Assert(fits, message, list(flat)), s.loc)


def _flat_count(flat: list[Stmt]) -> int | None:
    """How many elements the flat loop over these axes counts, if all are constants."""
    counts = [count for count in map(extent_value, flat) if count is not None]
    return math.prod(counts) if len(counts) == len(flat) > 1 else None


def _refuse_overflowing_count(lowerer: Any, s: fe.FrontendFor, elements: int) -> None:
    """Raise: the flat loop's i32 count wrapped around and it ran too few iterations or none,
    silently. (The frontend refuses leading axes that overflow; here the decision to keep the
    loop flat is known.)"""
    if lowerer.arch not in ROW_LOOP_ARCHES:
        why = "on the GPU every ti.ndrange is one flat loop"
    elif _breaks_out(s.body):
        why = "a `break` leaves it, so its axes are one flat loop"
    else:
        why = f"it has fewer than {MIN_ROWS} rows, so its axes are one flat loop"
    raise TaichiSyntaxError(
        f"a ti.ndrange of {elements:,} elements is more than a 32-bit loop index "
        f"counts ({I32_MAX:,}): {why}; split it into loops of fewer elements",
        s.loc,
    )


def _row_loop_fits(s: fe.FrontendFor, leading: list[Stmt]) -> bool:
    if _breaks_out(s.body):
        return False
    if not s.parallel:
        return True
    rows = 1
    for extent in leading:
        value = extent_value(extent)
        if value is None:
            return True  # unknown until launch: assume an image-like shape
        rows *= value
    return rows >= MIN_ROWS


def extent_value(stmt: Stmt) -> int | None:
    """The value of an axis's extent `max(end - begin, 0)` when both bounds are literals."""
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
