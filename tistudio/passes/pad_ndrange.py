"""GPU: a flat ndrange's last axis widened to whole groups of four (pad_ndrange).

On the GPU every `ti.ndrange` is one flat loop (`ndrange.py` says why), and a loop index is
turned back into `i, j` by a division and a remainder by the last axis's extent. The vec4 loads
and stores of `vectorize` need four consecutive loop indices to be four neighbouring cells of
one row, the first of them at a multiple of four. That holds only when the last axis starts at
a multiple of four and its length is one: for the 8192x8192 stencil of `benchmarks/gpu`,
`ndrange((1, 8191), (1, 8191))`, a row is 8190 cells long and starts at 1.

So when the last axis's bounds are literals, this pass widens it: it runs from its begin rounded
down to a multiple of 4 over a multiple of 4 elements, and an `if` skips the added elements.
That stencil then iterates 8190 rows of 8192 cells instead of 8190. Axes shorter than
`MIN_PADDED` are left alone, so that the added elements stay under a tenth, and so is a loop
whose widened count would not fit the 32-bit loop index.

It runs right after `lower_ast`, the one point where a loop is known to be an ndrange's: it
finds the remainder and the quotient of the loop index by the last axis's extent
`max(end - begin, 0)` that `lower_ast` wrote, the very statements, so that no loop the user
wrote as `range(n)` with `k % m` is taken for one. (Later, simplification has folded the
extent into a constant, and a bound known only at launch sits in another task.)
"""

from __future__ import annotations

import math

from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.ir.types import I32_MAX, i32, u1
from tistudio.passes.context import PassContext
from tistudio.passes.ndrange import extent_value

PAD = 4
MIN_PADDED = 64  # elements of the last axis below which it is not widened


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for loop in [x for x in walk(kernel.body) if isinstance(x, s.RangeFor)]:
        if not loop.serialize:
            changed |= _pad(loop)
    return changed


def _pad(loop: s.RangeFor) -> bool:
    """Widen `loop`'s last axis if it is a flat ndrange's with literal bounds."""
    found = _last_axis(loop)
    if found is None:
        return False
    extent, remainder, quotient, value = found
    lo, hi = int(extent.lhs.rhs.value), int(extent.lhs.lhs.value)
    first = lo - lo % PAD
    width = -(-(hi - first) // PAD) * PAD
    if hi - lo < MIN_PADDED or (first, width) == (lo, hi - lo):
        return False
    total = loop.end
    if not (isinstance(total, s.BinaryOp) and total.op is B.mul and total.rhs is extent):
        return False
    rows = _constant_product(total.lhs)
    if rows is not None and rows * width > I32_MAX:
        return False
    begin, padded = s.Const(first, ret_type=i32), s.Const(width, ret_type=i32)
    padded.loc = begin.loc = extent.loc
    total.insert_before(begin, padded)
    for stmt in (total, remainder, quotient):
        stmt.replace_operand(extent, padded)
    value.replace_operand(extent.lhs.rhs, begin)
    _skip_added(loop, value, extent.lhs.rhs, extent.lhs.lhs)
    return True


def _last_axis(loop: s.RangeFor) -> tuple[s.BinaryOp, s.BinaryOp, s.BinaryOp, s.BinaryOp] | None:
    """(extent, index % extent, index / extent, begin + index % extent) of the last axis, as
    `lower_ast` writes them at the top of an ndrange's flat loop, with literal bounds."""
    body = loop.body
    if len(body) < 4 or not isinstance(body[0], s.LoopIndex) or body[0].loop is not loop:
        return None
    index, remainder, quotient, value = body[0], body[1], body[2], body[3]
    if not (_binary(remainder, B.mod, index) and _binary(quotient, B.div, index)):
        return None
    extent = remainder.rhs
    if quotient.rhs is not extent or not _binary(extent, B.max) or not _binary(extent.lhs, B.sub):
        return None
    end, begin = extent.lhs.lhs, extent.lhs.rhs
    if not (s.is_const(end) and s.is_const(begin) and s.is_const(extent.rhs)):
        return None
    if extent.rhs.value != 0 or not _binary(value, B.add) or value.lhs is not begin:
        return None
    if value.rhs is not remainder:
        return None
    return extent, remainder, quotient, value


def _binary(stmt: Stmt, op: B, lhs: Stmt | None = None) -> bool:
    return isinstance(stmt, s.BinaryOp) and stmt.op is op and (lhs is None or stmt.lhs is lhs)


def _constant_product(stmt: Stmt) -> int | None:
    """The rows of the flat loop (`extent * extent ...` of the leading axes), if constants."""
    if isinstance(stmt, s.BinaryOp) and stmt.op is B.mul:
        parts = [_constant_product(stmt.lhs), _constant_product(stmt.rhs)]
        return None if None in parts else math.prod(parts)  # type: ignore[arg-type]
    return extent_value(stmt) if _binary(stmt, B.max) and _binary(stmt.lhs, B.sub) else None


def _skip_added(loop: s.RangeFor, value: Stmt, begin: Stmt, end: Stmt) -> None:
    """Put the body after the loop variables' statements in `if begin <= value < end`."""
    body = loop.body
    rest = body.stmts[_variables_end(loop) :]
    for stmt in rest:
        body.remove(stmt)
    above = s.BinaryOp(B.cmp_ge, value, begin, ret_type=u1)
    below = s.BinaryOp(B.cmp_lt, value, end, ret_type=u1)
    inside = s.BinaryOp(B.bit_and, above, below, ret_type=u1)
    guard = s.If(inside)
    for stmt in (above, below, inside, guard):
        stmt.loc = value.loc
        body.append(stmt)
    guard.true_block.extend(rest)


def _variables_end(loop: s.RangeFor) -> int:
    """Where `lower_ast`'s loop-variable statements end: the index, then per axis from the
    last `index % extent`, `index / extent` (the next axes' index) and `begin + remainder`,
    then the first axis's `begin + quotient`."""
    body, flat, at = loop.body, loop.body[0], 1
    while (
        _binary(body[at], B.mod, flat)
        and _binary(body[at + 1], B.div, flat)
        and _binary(body[at + 2], B.add)
        and body[at + 2].rhs is body[at]
    ):
        flat, at = body[at + 1], at + 3
    assert _binary(body[at], B.add) and body[at].rhs is flat, "not lower_ast's ndrange"
    return at + 1
