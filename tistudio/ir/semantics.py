"""Exact scalar semantics of the IR's operators on Python values.

How each operator behaves on concrete numbers, bit for bit as the back ends compute it: integers
wrap at their width (`normalize_value` does the wrapping), `div`/`mod` truncate like C, shifts take
the amount modulo the width, floats are computed in NumPy at the statement's own precision. The
`constant_fold` pass uses these tables; an IR interpreter can use them too. A function returns
`None` where the result is not defined bit for bit here (division by zero, NaN orderings...).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import normalize_value
from tistudio.ir.types import PrimitiveType, i32, i64

Value = int | float | bool


# --- integers: exact Python ints; `const_of` wraps the result to the type ---------------------


def trunc_div(a: int, b: int) -> int | None:
    # C division rounds toward zero; x / 0 is left to the back end (which defines it as 0)
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trunc_mod(a: int, b: int) -> int | None:
    # C remainder a - b * trunc(a / b) has the sign of a; INT_MIN % -1 is 0
    q = trunc_div(a, b)
    return None if q is None else a - b * q


def shift(op: B, a: int, amount: int, t: PrimitiveType) -> int:
    s = amount % t.bits  # shift amounts are taken modulo the bit width
    if op is B.bit_shl:
        return a << s
    if op is B.bit_shr or t.kind == "uint":  # logical (`>>` of an unsigned type is too)
        return (a & ((1 << t.bits) - 1)) >> s
    signed = a - (1 << t.bits) if a >= 1 << (t.bits - 1) else a
    return signed >> s  # bit_sar: arithmetic, on the signed reading of the bits


def sgn(a: int) -> int:
    return (a > 0) - (a < 0)


def popcnt(pattern: int, bits: int) -> int:
    return pattern.bit_count()


def clz(pattern: int, bits: int) -> int:
    return bits - pattern.bit_length()


# Python's ints are two's complement of unbounded width, so &, |, ^ on them match the hardware.
INT_BINARY = {
    B.add: operator.add,
    B.sub: operator.sub,
    B.mul: operator.mul,
    B.div: trunc_div,
    B.mod: trunc_mod,
    B.max: max,
    B.min: min,
    B.bit_and: operator.and_,
    B.bit_or: operator.or_,
    B.bit_xor: operator.xor,
}
BOOL_BINARY = {B.bit_and: operator.and_, B.bit_or: operator.or_, B.bit_xor: operator.xor}
# abs(INT_MIN) is INT_MIN again once wrapped, as LLVM's llvm.abs gives
INT_UNARY = {U.neg: operator.neg, U.abs: abs, U.bit_not: operator.invert, U.sgn: sgn}
BIT_COUNT = {U.popcnt: popcnt, U.clz: clz}  # on the unsigned bit pattern
COMPARE = {op: getattr(operator, op.value[4:]) for op in B if op.is_comparison}  # cmp_lt: lt


def compare(op: B, a: Value, b: Value, t: PrimitiveType) -> bool | None:
    if t.is_float:
        a, b = as_numpy(a, t), as_numpy(b, t)
        if np.isnan(a) or np.isnan(b):  # ordered and unordered `!=` differ; do not guess
            return None
    return bool(COMPARE[op](a, b))


# --- floats: NumPy scalars of the statement's own precision -----------------------------------


def as_numpy(value: Value, t: PrimitiveType) -> np.generic:
    return np.dtype(t.numpy_name).type(value)


def float_op(fn: object, t: PrimitiveType, *values: Value) -> float | None:
    if fn is None:
        return None
    result = fn(*(as_numpy(v, t) for v in values))  # type: ignore[operator]
    return None if result is None else float(result)


def unordered(a: np.floating, b: np.floating) -> bool:
    # LLVM's maxnum and NumPy's maximum disagree on NaN and on which zero max(-0.0, 0.0) is
    return bool(np.isnan(a) or np.isnan(b) or (a == b and np.signbit(a) != np.signbit(b)))


def fmax(a: np.floating, b: np.floating) -> np.floating | None:
    return None if unordered(a, b) else max(a, b)


def fmin(a: np.floating, b: np.floating) -> np.floating | None:
    return None if unordered(a, b) else min(a, b)


def rsqrt(x: np.floating) -> np.floating:
    return x.dtype.type(1) / np.sqrt(x)


def reciprocal(x: np.floating) -> np.floating:
    return x.dtype.type(1) / x


FLOAT_BINARY = {
    B.add: np.add,
    B.sub: np.subtract,
    B.mul: np.multiply,
    B.div: np.divide,
    B.max: fmax,
    B.min: fmin,
    B.atan2: np.arctan2,
}
FLOAT_UNARY = {
    U.neg: np.negative,
    U.abs: np.abs,
    U.floor: np.floor,
    U.ceil: np.ceil,
    U.sqrt: np.sqrt,
    U.rsqrt: rsqrt,
    U.inv: reciprocal,
    U.rcp: reciprocal,
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


def cast_value(value: Value, src: PrimitiveType, dst: PrimitiveType) -> Value | None:
    if dst.kind == "bool":
        return value != 0  # to u1 means != 0 (and NaN != 0)
    if not src.is_float and not dst.is_float:
        return int(value)  # int -> int wraps (or extends by the source's sign) in `const_of`
    if not src.is_float:  # int -> float: NumPy's C cast rounds once, like sitofp/uitofp
        return float(np.array(int(value), src.numpy_name).astype(dst.numpy_name))
    if dst.is_float:
        return float(as_numpy(value, src).astype(dst.numpy_name))
    # float -> int truncates toward zero and saturates, as both back ends do (LLVM's
    # fptosi.sat; WGSL by hand)
    return float_to_int(float(as_numpy(value, src)), dst)


def float_to_int(x: float, dst: PrimitiveType) -> int:
    """`x` truncated toward zero to integer type `dst`, saturating: NaN is 0, and types
    narrower than 32 bits saturate in i32 and u32 in i64, then wrap (both back ends' casts)."""
    wide = dst
    if dst.bits < 32 or (dst.bits == 32 and dst.kind == "uint"):
        wide = i32 if dst.bits < 32 else i64
    return normalize_value(_saturate(x, wide), dst)


def _saturate(x: float, t: PrimitiveType) -> int:
    if math.isnan(x):
        return 0
    low = 0 if t.kind == "uint" else -(1 << (t.bits - 1))
    high = (1 << t.bits) - 1 if t.kind == "uint" else (1 << (t.bits - 1)) - 1
    if math.isinf(x):
        return high if x > 0 else low
    return max(low, min(high, math.trunc(x)))


def cast_bits(value: Value, src: PrimitiveType, dst: PrimitiveType) -> Value | None:
    # a bit cast between equal widths; NaN payloads do not survive a Python float, so skip them
    if src.bits != dst.bits or "bool" in (src.kind, dst.kind):
        return None
    if src.is_float and math.isnan(value):
        return None
    result = np.array(value, src.numpy_name).view(dst.numpy_name)[()]
    if not dst.is_float:
        return int(result)
    return None if np.isnan(result) else float(result)
