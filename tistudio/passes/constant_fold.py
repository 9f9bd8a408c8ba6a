"""Constant folding (constant_fold).

An operation whose operands are all constants is computed now, by the compiler, and replaced by a
constant, so the machine code never does that work. The result must be exactly what the hardware
would produce: integers wrap around at their bit width, `div`/`mod` truncate like C, shifts take
the amount modulo the width, and `f32` arithmetic is rounded to `f32` (we compute it in NumPy in
the statement's own precision). What we cannot reproduce bit for bit (division by zero, Python's
`//`, `pow`, `f16`) is left for the back end.
"""

from __future__ import annotations

import numpy as np

from tistudio.ir import semantics as sem
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import BinaryOp, Const, TernaryOp, UnaryOp, const_of, normalize_value
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PrimitiveType
from tistudio.passes.context import PassContext
from tistudio.passes.util import rewrite_in_order

Value = sem.Value


def run(kernel: Kernel, ctx: PassContext) -> bool:
    with np.errstate(all="ignore"):  # 1.0 / 0.0 is inf, as in IEEE; no need to warn about it
        return rewrite_in_order(kernel, _fold)


def _fold(stmt: Stmt) -> Stmt | None:
    if isinstance(stmt, BinaryOp):
        result = _fold_binary(stmt)
    elif isinstance(stmt, UnaryOp):
        result = _fold_unary(stmt)
    elif isinstance(stmt, TernaryOp):  # select(c, a, b) with all three constant: pick a or b
        if all(isinstance(s, Const) for s in (stmt.cond, stmt.a, stmt.b)):
            return stmt.a if stmt.cond.value else stmt.b
        return None
    else:
        return None
    return None if result is None else const_of(result, stmt.ret_type)


def _fold_binary(stmt: BinaryOp) -> Value | None:
    lhs, rhs, t = stmt.lhs, stmt.rhs, stmt.lhs.ret_type
    if not (isinstance(lhs, Const) and isinstance(rhs, Const)):
        return None
    if not (_foldable(t) and _foldable(stmt.ret_type)):
        return None
    if stmt.op.is_shift:  # the amount may have its own integer type
        return sem.shift(stmt.op, int(lhs.value), int(rhs.value), t) if _is_int(t) else None
    if rhs.ret_type != t:
        return None
    if stmt.op.is_comparison:
        return sem.compare(stmt.op, lhs.value, rhs.value, t)
    if t.is_float:
        return sem.float_op(sem.FLOAT_BINARY.get(stmt.op), t, lhs.value, rhs.value)
    fn = (sem.INT_BINARY if _is_int(t) else sem.BOOL_BINARY).get(stmt.op)
    result = fn(int(lhs.value), int(rhs.value)) if fn else None
    if stmt.op is B.div and result is not None and normalize_value(result, t) != result:
        return None  # INT_MIN / -1 overflows; the back ends define it as 0, leave it to them
    return result


def _fold_unary(stmt: UnaryOp) -> Value | None:
    x, src, dst = stmt.operand, stmt.operand.ret_type, stmt.ret_type
    if not (isinstance(x, Const) and _foldable(src) and _foldable(dst)):
        return None
    if stmt.op is U.cast_value:
        return sem.cast_value(x.value, src, dst)
    if stmt.op is U.cast_bits:
        return sem.cast_bits(x.value, src, dst)
    if stmt.op is U.logic_not:  # 1 where x == 0, in whatever type the result has
        return x.value == 0
    if src.is_float:
        return sem.float_op(sem.FLOAT_UNARY.get(stmt.op), src, x.value)
    if not _is_int(src):
        return None
    if stmt.op in sem.BIT_COUNT:
        return sem.BIT_COUNT[stmt.op](int(x.value) & ((1 << src.bits) - 1), src.bits)
    fn = sem.INT_UNARY.get(stmt.op)
    return fn(int(x.value)) if fn else None


def _foldable(t: object) -> bool:
    return isinstance(t, PrimitiveType) and t.name != "f16"


def _is_int(t: PrimitiveType) -> bool:
    return t.kind in ("int", "uint")
