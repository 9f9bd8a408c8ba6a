"""Total scalar semantics for the IR interpreter: every operator on every value, as run.

`semantics.py` gives the exact result of an operator where constant folding may rely on it and
`None` elsewhere. An interpreter needs an answer everywhere, so this module fills the gaps the
way docs/compiler-contract.md defines them: integer division or modulo by zero and `INT_MIN / -1`
give 0, float-to-int casts saturate (NaN gives 0; types narrower than 32 bits go through `i32`,
`u32` through `i64`, and wrap), LLVM's `maxnum`/`minnum` return the operand that is not NaN, float
comparisons are ordered except `!=`, and `round` rounds half away from zero. Operators that only
exist before `demote_operations` (`floordiv`, integer `pow`) follow what that pass emits, so the
interpreter also runs the IR from the start of the pipeline.
"""

from __future__ import annotations

import math

import numpy as np

from tistudio.ir import semantics as sem
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import normalize_value
from tistudio.ir.types import PrimitiveType

Value = int | float | bool


def normalize(value: Value, t: PrimitiveType) -> Value:
    """`value` as a value of type `t`: wrapped integers, floats rounded to `t`'s precision."""
    if t.is_float:
        return float(sem.as_numpy(value, t))
    return normalize_value(value, t)


# --- binary operators -----------------------------------------------------------------------


def binary(op: B, t: PrimitiveType, a: Value, b: Value) -> Value:
    """`a op b` for operands of type `t` (comparisons give a bool)."""
    if op.is_comparison:
        return _compare(op, t, a, b)
    if op in (B.logical_and, B.logical_or):
        return bool(a) and bool(b) if op is B.logical_and else bool(a) or bool(b)
    if t.is_float:
        return normalize(_float_binary(op, t, a, b), t)
    if t.kind == "bool":
        return bool(sem.BOOL_BINARY[op](bool(a), bool(b)))
    return normalize_value(_int_binary(op, t, int(a), int(b)), t)


def _compare(op: B, t: PrimitiveType, a: Value, b: Value) -> bool:
    if t.is_float and (math.isnan(a) or math.isnan(b)):
        return op is B.cmp_ne  # ordered comparisons, except `!=`, as in C
    return bool(sem.COMPARE[op](a, b))


def _float_binary(op: B, t: PrimitiveType, a: float, b: float) -> float:
    x, y = sem.as_numpy(a, t), sem.as_numpy(b, t)
    with np.errstate(all="ignore"):
        if op in (B.max, B.min):
            return _maxnum_minnum(op, x, y)
        if op is B.floordiv:
            return float(np.floor(np.divide(x, y)))
        if op in (B.div, B.truediv):
            return float(np.divide(x, y))
        if op is B.mod:
            return float(np.fmod(x, y))  # LLVM's frem: C's fmod
        if op is B.pow:
            return float(np.power(x, y))
        return float(FLOAT_BINARY[op](x, y))


FLOAT_BINARY = {B.add: np.add, B.sub: np.subtract, B.mul: np.multiply, B.atan2: np.arctan2}


def _maxnum_minnum(op: B, x: np.floating, y: np.floating) -> float:
    if np.isnan(x):
        return float(y)
    if np.isnan(y):
        return float(x)
    return float(max(x, y) if op is B.max else min(x, y))


def _int_binary(op: B, t: PrimitiveType, a: int, b: int) -> int:
    if op.is_shift:
        return sem.shift(op, a, b, t)
    if op in (B.div, B.mod, B.floordiv):
        return _int_division(op, t, a, b)
    if op is B.pow:
        return _int_pow(t, a, b)
    return int(sem.INT_BINARY[op](a, b))


def _int_division(op: B, t: PrimitiveType, a: int, b: int) -> int:
    """C's `/` and `%` (and Python's `//`, as `demote_operations` expands it); 0 where the
    hardware would trap: a zero divisor, or `INT_MIN / -1` in a signed type."""
    if b == 0 or (t.kind == "int" and b == -1 and a == -(1 << (t.bits - 1))):
        return 0
    if op is B.floordiv:
        return a // b
    result = sem.INT_BINARY[op](a, b)
    assert result is not None
    return result


def _int_pow(t: PrimitiveType, a: int, e: int) -> int:
    """Square-and-multiply as `demote_operations` emits it; a negative exponent gives
    1 / a ** |e| rounded toward zero (0 unless a is 1 or -1)."""
    if e >= 0:
        return pow(a, e, 1 << t.bits)
    if a in (1, -1):
        return a if e % 2 else 1
    return 0


# --- unary operators ------------------------------------------------------------------------


def unary(op: U, src: PrimitiveType, dst: PrimitiveType, x: Value) -> Value:
    """`op x` from type `src` to type `dst`."""
    if op is U.cast_value:
        return cast_value(x, src, dst)
    if op is U.cast_bits:
        return cast_bits(x, src, dst)
    if op is U.logic_not:
        return normalize(x == 0, dst)  # NaN == 0 is false, so `not NaN` is 0
    if src.is_float:
        return normalize(_float_unary(op, src, x), dst)
    if op in (U.round, U.floor, U.ceil):
        return x  # integers are already integral
    if op in sem.BIT_COUNT:
        return sem.BIT_COUNT[op](int(x) & ((1 << src.bits) - 1), src.bits)
    if src.kind == "bool":
        return bool(x) if op is not U.bit_not else not x
    if op is U.abs and src.kind == "uint":
        return x
    return normalize_value(sem.INT_UNARY[op](int(x)), dst)


def _float_unary(op: U, t: PrimitiveType, x: float) -> float:
    v = sem.as_numpy(x, t)
    with np.errstate(all="ignore"):
        if op is U.round:  # half away from zero, like C's round (NumPy's rounds to even)
            whole = np.trunc(v)
            return float(whole + np.sign(v) if abs(v - whole) >= 0.5 else whole)
        if op is U.sgn:
            return float(np.sign(v)) if not np.isnan(v) else 0.0
        return float(sem.FLOAT_UNARY[op](v))


# --- casts ----------------------------------------------------------------------------------


def cast_value(x: Value, src: PrimitiveType, dst: PrimitiveType) -> Value:
    """Convert the value: wrap or extend integers, round floats, truncate floats to integers
    (saturating), and `!= 0` to `u1`."""
    if dst.kind == "bool":
        return x != 0  # NaN != 0 is true
    if src.is_float and not dst.is_float:
        return sem.float_to_int(float(x), dst)
    result = sem.cast_value(x, src, dst)
    assert result is not None, f"cast {src} -> {dst} of {x!r}"
    return normalize(result, dst)


def cast_bits(x: Value, src: PrimitiveType, dst: PrimitiveType) -> Value:
    """Reinterpret the bits of `x` as `dst` (same width)."""
    if src.is_integral and dst.is_integral:
        return normalize_value(x, dst)
    raw = np.array(x if src.is_float else normalize_value(x, src), src.numpy_name)
    result = raw.view(dst.numpy_name)[()]
    return float(result) if dst.is_float else int(result)
