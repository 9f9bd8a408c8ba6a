"""Constant folding (constant_fold).

An operation whose operands are all constants is computed now, by the compiler, and replaced by a
constant, so the machine code never does that work. The result must be exactly what the hardware
would produce: integers wrap around at their bit width, `div`/`mod` truncate like C, shifts take
the amount modulo the width, and `f32` arithmetic is rounded to `f32` (we compute it in NumPy in
the statement's own precision). What we cannot reproduce bit for bit (division by zero, Python's
`//`, `pow`, `f16`) is left for the back end.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import BinaryOp, Const, TernaryOp, UnaryOp, const_of, normalize_value
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PrimitiveType
from tistudio.passes.context import PassContext
from tistudio.passes.util import rewrite_in_order

Value = int | float | bool


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
        return _shift(stmt.op, int(lhs.value), int(rhs.value), t) if _is_int(t) else None
    if rhs.ret_type != t:
        return None
    if stmt.op.is_comparison:
        return _compare(stmt.op, lhs.value, rhs.value, t)
    if t.is_float:
        return _float_op(_FLOAT_BINARY.get(stmt.op), t, lhs.value, rhs.value)
    fn = (_INT_BINARY if _is_int(t) else _BOOL_BINARY).get(stmt.op)
    result = fn(int(lhs.value), int(rhs.value)) if fn else None
    if stmt.op is B.div and result is not None and normalize_value(result, t) != result:
        return None  # INT_MIN / -1 overflows; the back ends define it as 0, leave it to them
    return result


def _fold_unary(stmt: UnaryOp) -> Value | None:
    x, src, dst = stmt.operand, stmt.operand.ret_type, stmt.ret_type
    if not (isinstance(x, Const) and _foldable(src) and _foldable(dst)):
        return None
    if stmt.op is U.cast_value:
        return _cast_value(x.value, src, dst)
    if stmt.op is U.cast_bits:
        return _cast_bits(x.value, src, dst)
    if stmt.op is U.logic_not:  # 1 where x == 0, in whatever type the result has
        return x.value == 0
    if src.is_float:
        return _float_op(_FLOAT_UNARY.get(stmt.op), src, x.value)
    if not _is_int(src):
        return None
    if stmt.op in _BIT_COUNT:
        return _BIT_COUNT[stmt.op](int(x.value) & ((1 << src.bits) - 1), src.bits)
    fn = _INT_UNARY.get(stmt.op)
    return fn(int(x.value)) if fn else None


def _foldable(t: object) -> bool:
    return isinstance(t, PrimitiveType) and t.name != "f16"


def _is_int(t: PrimitiveType) -> bool:
    return t.kind in ("int", "uint")


# --- integers: exact Python ints; `const_of` wraps the result to the type ---------------------


def _trunc_div(a: int, b: int) -> int | None:
    # C division rounds toward zero; x / 0 is left to the back end (which defines it as 0)
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _trunc_mod(a: int, b: int) -> int | None:
    # C remainder a - b * trunc(a / b) has the sign of a; INT_MIN % -1 is 0
    q = _trunc_div(a, b)
    return None if q is None else a - b * q


def _shift(op: B, a: int, amount: int, t: PrimitiveType) -> int:
    s = amount % t.bits  # shift amounts are taken modulo the bit width
    if op is B.bit_shl:
        return a << s
    if op is B.bit_shr:  # logical: shift the unsigned bit pattern
        return (a & ((1 << t.bits) - 1)) >> s
    signed = a - (1 << t.bits) if a >= 1 << (t.bits - 1) else a
    return signed >> s  # bit_sar: arithmetic, on the signed reading of the bits


def _sgn(a: int) -> int:
    return (a > 0) - (a < 0)


def _popcnt(pattern: int, bits: int) -> int:
    return pattern.bit_count()


def _clz(pattern: int, bits: int) -> int:
    return bits - pattern.bit_length()


# Python's ints are two's complement of unbounded width, so &, |, ^ on them match the hardware.
_INT_BINARY = {
    B.add: operator.add,
    B.sub: operator.sub,
    B.mul: operator.mul,
    B.div: _trunc_div,
    B.mod: _trunc_mod,
    B.max: max,
    B.min: min,
    B.bit_and: operator.and_,
    B.bit_or: operator.or_,
    B.bit_xor: operator.xor,
}
_BOOL_BINARY = {B.bit_and: operator.and_, B.bit_or: operator.or_, B.bit_xor: operator.xor}
# abs(INT_MIN) is INT_MIN again once wrapped, as LLVM's llvm.abs gives
_INT_UNARY = {U.neg: operator.neg, U.abs: abs, U.bit_not: operator.invert, U.sgn: _sgn}
_BIT_COUNT = {U.popcnt: _popcnt, U.clz: _clz}  # on the unsigned bit pattern
_COMPARE = {op: getattr(operator, op.value[4:]) for op in B if op.is_comparison}  # cmp_lt: lt


def _compare(op: B, a: Value, b: Value, t: PrimitiveType) -> bool | None:
    if t.is_float:
        a, b = _np(a, t), _np(b, t)
        if np.isnan(a) or np.isnan(b):  # ordered and unordered `!=` differ; do not guess
            return None
    return bool(_COMPARE[op](a, b))


# --- floats: NumPy scalars of the statement's own precision -----------------------------------


def _np(value: Value, t: PrimitiveType) -> np.generic:
    return np.dtype(t.numpy_name).type(value)


def _float_op(fn: object, t: PrimitiveType, *values: Value) -> float | None:
    if fn is None:
        return None
    result = fn(*(_np(v, t) for v in values))  # type: ignore[operator]
    return None if result is None else float(result)


def _unordered(a: np.floating, b: np.floating) -> bool:
    # LLVM's maxnum and NumPy's maximum disagree on NaN and on which zero max(-0.0, 0.0) is
    return bool(np.isnan(a) or np.isnan(b) or (a == b and np.signbit(a) != np.signbit(b)))


def _fmax(a: np.floating, b: np.floating) -> np.floating | None:
    return None if _unordered(a, b) else max(a, b)


def _fmin(a: np.floating, b: np.floating) -> np.floating | None:
    return None if _unordered(a, b) else min(a, b)


def _rsqrt(x: np.floating) -> np.floating:
    return x.dtype.type(1) / np.sqrt(x)


def _reciprocal(x: np.floating) -> np.floating:
    return x.dtype.type(1) / x


_FLOAT_BINARY = {
    B.add: np.add,
    B.sub: np.subtract,
    B.mul: np.multiply,
    B.div: np.divide,
    B.max: _fmax,
    B.min: _fmin,
    B.atan2: np.arctan2,
}
_FLOAT_UNARY = {
    U.neg: np.negative,
    U.abs: np.abs,
    U.floor: np.floor,
    U.ceil: np.ceil,
    U.sqrt: np.sqrt,
    U.rsqrt: _rsqrt,
    U.inv: _reciprocal,
    U.rcp: _reciprocal,
    U.exp: np.exp,
    U.log: np.log,
    U.sin: np.sin,
    U.cos: np.cos,
    U.tan: np.tan,
    U.tanh: np.tanh,
    U.asin: np.arcsin,
    U.acos: np.arccos,
}

# --- casts -------------------------------------------------------------------------------------


def _cast_value(value: Value, src: PrimitiveType, dst: PrimitiveType) -> Value | None:
    if dst.kind == "bool":
        return value != 0  # to u1 means != 0 (and NaN != 0)
    if not src.is_float and not dst.is_float:
        return int(value)  # int -> int wraps (or extends by the source's sign) in `const_of`
    if not src.is_float:  # int -> float: NumPy's C cast rounds once, like sitofp/uitofp
        return float(np.array(int(value), src.numpy_name).astype(dst.numpy_name))
    if dst.is_float:
        return float(_np(value, src).astype(dst.numpy_name))
    x = float(_np(value, src))
    if not math.isfinite(x):
        return None
    truncated = math.trunc(x)  # float -> int truncates toward zero
    # a value out of the target's range is poison in LLVM: leave it to the back end
    return truncated if normalize_value(truncated, dst) == truncated else None


def _cast_bits(value: Value, src: PrimitiveType, dst: PrimitiveType) -> Value | None:
    # a bit cast between equal widths; NaN payloads do not survive a Python float, so skip them
    if src.bits != dst.bits or "bool" in (src.kind, dst.kind):
        return None
    if src.is_float and math.isnan(value):
        return None
    result = np.array(value, src.numpy_name).view(dst.numpy_name)[()]
    if not dst.is_float:
        return int(result)
    return None if np.isnan(result) else float(result)
