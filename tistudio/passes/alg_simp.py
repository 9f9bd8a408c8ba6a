"""Algebraic simplification (alg_simp).

Some operations do nothing or can be done more cheaply whatever the value of their operand:
`x + 0` is `x`, `x * 8` is `x << 3`, `select(c, a, a)` is `a`. Each such identity is a small rule
below, with its algebra in a comment; the pass tries the rules of each statement's operator and
keeps the first answer. Integer rules hold under wraparound; float rules must hold for every IEEE
value including -0.0, infinities and NaN, so only `x * 1.0` and `x / 1.0` are simplified there.
"""

from __future__ import annotations

from collections.abc import Callable

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import TernaryOpType as T
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import BinaryOp, Const, TernaryOp, UnaryOp, const_of, is_const
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PrimitiveType
from tistudio.passes.context import PassContext
from tistudio.passes.util import rewrite_in_order


def run(kernel: Kernel, ctx: PassContext) -> bool:
    return rewrite_in_order(kernel, _simplify)


def _simplify(stmt: Stmt) -> Stmt | None:
    if not isinstance(stmt, (UnaryOp, BinaryOp, TernaryOp)):
        return None
    for rule in RULES.get(stmt.op, ()):
        new = rule(stmt)
        if new is not None:
            return new
    return None


def _is_int(stmt: Stmt) -> bool:
    """True for values of a wrapping integer type (not u1, not floats)."""
    t = stmt.ret_type
    return isinstance(t, PrimitiveType) and t.kind in ("int", "uint")


def _is_integral(stmt: Stmt) -> bool:
    """True for integers and u1: the types where bitwise identities hold."""
    return isinstance(stmt.ret_type, PrimitiveType) and stmt.ret_type.is_integral


def _is_float(stmt: Stmt) -> bool:
    return isinstance(stmt.ret_type, PrimitiveType) and stmt.ret_type.is_float


def _zero(stmt: Stmt) -> Const:
    return const_of(0, stmt.ret_type)


def _either_side(stmt: BinaryOp, value: int) -> Stmt | None:
    """The other operand if one side is the constant `value` (for commutative identities)."""
    if is_const(stmt.rhs, value):
        return stmt.lhs
    return stmt.rhs if is_const(stmt.lhs, value) else None


# x + 0 -> x, 0 + x -> x (integers; for floats -0.0 + 0.0 is +0.0)
def _add_zero(s: BinaryOp) -> Stmt | None:
    return _either_side(s, 0) if _is_int(s) else None


# x - 0 -> x (integers)
def _sub_zero(s: BinaryOp) -> Stmt | None:
    return s.lhs if _is_int(s) and is_const(s.rhs, 0) else None


# x - x -> 0 (integers; for floats inf - inf is NaN)
def _sub_self(s: BinaryOp) -> Stmt | None:
    return _zero(s) if _is_int(s) and s.lhs is s.rhs else None


# x * 1 -> x, 1 * x -> x (every type: x * 1.0 is x for -0.0, inf and NaN too)
def _mul_one(s: BinaryOp) -> Stmt | None:
    return _either_side(s, 1) if _is_integral(s) or _is_float(s) else None


# x * 0 -> 0, 0 * x -> 0 (integers; for floats NaN * 0 is NaN and -1.0 * 0 is -0.0)
def _mul_zero(s: BinaryOp) -> Stmt | None:
    return _zero(s) if _is_int(s) and _either_side(s, 0) is not None else None


# x * 2^k -> x << k (integers: multiplying by 2^k wraps exactly as shifting by k does)
def _mul_power_of_two(s: BinaryOp) -> Stmt | None:
    if not _is_int(s):
        return None
    t = s.ret_type
    for x, c in ((s.lhs, s.rhs), (s.rhs, s.lhs)):
        pattern = int(c.value) & ((1 << t.bits) - 1) if isinstance(c, Const) else 0
        if pattern > 1 and pattern & (pattern - 1) == 0:
            k = const_of(pattern.bit_length() - 1, t)
            return BinaryOp(B.bit_shl, x, k, ret_type=t, loc=s.loc)
    return None


# x / 1 -> x (every type: x / 1.0 is x for every float)
def _div_one(s: BinaryOp) -> Stmt | None:
    return s.lhs if is_const(s.rhs, 1) and (_is_int(s) or _is_float(s)) else None


# x & x -> x, x | x -> x, max(x, x) -> x, min(x, x) -> x
def _idempotent(s: BinaryOp) -> Stmt | None:
    return s.lhs if s.lhs is s.rhs else None


# x & 0 -> 0, 0 & x -> 0
def _and_zero(s: BinaryOp) -> Stmt | None:
    return _zero(s) if _is_integral(s) and _either_side(s, 0) is not None else None


# x & ~0 -> x, ~0 & x -> x (all ones)
def _and_all_ones(s: BinaryOp) -> Stmt | None:
    if not _is_integral(s):
        return None
    mask = (1 << s.ret_type.bits) - 1
    for x, c in ((s.lhs, s.rhs), (s.rhs, s.lhs)):
        if isinstance(c, Const) and int(c.value) & mask == mask:
            return x
    return None


# x | 0 -> x, 0 | x -> x, x ^ 0 -> x, 0 ^ x -> x
def _or_xor_zero(s: BinaryOp) -> Stmt | None:
    return _either_side(s, 0) if _is_integral(s) else None


# x ^ x -> 0
def _xor_self(s: BinaryOp) -> Stmt | None:
    return _zero(s) if _is_integral(s) and s.lhs is s.rhs else None


# x << 0 -> x, x >> 0 -> x (the amount is taken modulo the width, so a multiple of it is 0)
def _shift_zero(s: BinaryOp) -> Stmt | None:
    if not (_is_int(s) and isinstance(s.rhs, Const)):
        return None
    return s.lhs if int(s.rhs.value) % s.ret_type.bits == 0 else None


# x == x, x <= x, x >= x -> true; x != x, x < x, x > x -> false (integers; NaN != NaN)
def _compare_self(s: BinaryOp) -> Stmt | None:
    if not (_is_integral(s.lhs) and s.lhs is s.rhs):
        return None
    return const_of(s.op in (B.cmp_eq, B.cmp_le, B.cmp_ge), s.ret_type)


# -(-x) -> x, ~~x -> x (negation and bitwise not are their own inverses, wrapping included)
def _double_negation(s: UnaryOp) -> Stmt | None:
    inner = s.operand
    if isinstance(inner, UnaryOp) and inner.op is s.op and inner.operand.ret_type == s.ret_type:
        return inner.operand
    return None


# cast<T>(x) -> x when x already has type T (value casts and bit casts alike)
def _cast_to_same_type(s: UnaryOp) -> Stmt | None:
    return s.operand if s.operand.ret_type == s.ret_type else None


# select(c, a, a) -> a
def _select_same(s: TernaryOp) -> Stmt | None:
    return s.a if s.a is s.b else None


# select(true, a, b) -> a, select(false, a, b) -> b
def _select_constant(s: TernaryOp) -> Stmt | None:
    if not isinstance(s.cond, Const):
        return None
    return s.a if s.cond.value else s.b


_COMPARISONS = (B.cmp_eq, B.cmp_ne, B.cmp_lt, B.cmp_le, B.cmp_gt, B.cmp_ge)

RULES: dict[object, tuple[Callable[..., Stmt | None], ...]] = {
    B.add: (_add_zero,),
    B.sub: (_sub_zero, _sub_self),
    B.mul: (_mul_one, _mul_zero, _mul_power_of_two),
    B.div: (_div_one,),
    B.bit_and: (_idempotent, _and_zero, _and_all_ones),
    B.bit_or: (_idempotent, _or_xor_zero),
    B.bit_xor: (_or_xor_zero, _xor_self),
    B.max: (_idempotent,),
    B.min: (_idempotent,),
    B.bit_shl: (_shift_zero,),
    B.bit_shr: (_shift_zero,),
    B.bit_sar: (_shift_zero,),
    **{op: (_compare_self,) for op in _COMPARISONS},
    U.neg: (_double_negation,),
    U.bit_not: (_double_negation,),
    U.cast_value: (_cast_to_same_type,),
    U.cast_bits: (_cast_to_same_type,),
    T.select: (_select_same, _select_constant),
}
