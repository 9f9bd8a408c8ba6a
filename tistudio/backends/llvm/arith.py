"""Arithmetic, comparisons, math functions and casts as LLVM instructions.

Operators are tables keyed by `(op, kind)`, where kind is "int", "uint" or "float" (see
`lltypes.kind_of`). A few operators need more than one instruction because the IR's semantics
are stricter than LLVM's: integer division and modulo by zero (and `INT_MIN / -1`) give 0
instead of trapping, shift amounts are taken modulo the bit width instead of being poison, and
float-to-int casts saturate instead of being poison. `binary` and `unary` return `None` for a
combination that has no meaning here (a bitwise op on floats, an integer `pow` that
`demote_operations` should have removed); the emitter turns that into `UnsupportedOnBackend`.
"""

from __future__ import annotations

from collections.abc import Callable

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I1, I32, I64, kind_of, value_type
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.types import PrimitiveType, u1

Flags = tuple[str, ...]

# --- binary operators -----------------------------------------------------------------------

# One LLVM instruction, named by its `IRBuilder` method. Integer ops wrap (no nsw/nuw).
LLVM_BINARY: dict[tuple[B, str], str] = {
    (B.add, "int"): "add",
    (B.add, "uint"): "add",
    (B.add, "float"): "fadd",
    (B.sub, "int"): "sub",
    (B.sub, "uint"): "sub",
    (B.sub, "float"): "fsub",
    (B.mul, "int"): "mul",
    (B.mul, "uint"): "mul",
    (B.mul, "float"): "fmul",
    (B.div, "float"): "fdiv",
    (B.mod, "float"): "frem",  # C's fmod: the sign of the dividend
    (B.bit_and, "int"): "and_",
    (B.bit_and, "uint"): "and_",
    (B.bit_or, "int"): "or_",
    (B.bit_or, "uint"): "or_",
    (B.bit_xor, "int"): "xor",
    (B.bit_xor, "uint"): "xor",
}

# A call to an LLVM intrinsic on operands of one type; the type suffix is added at the call.
LLVM_BINARY_INTRINSIC: dict[tuple[B, str], str] = {
    (B.max, "int"): "llvm.smax",
    (B.max, "uint"): "llvm.umax",
    (B.max, "float"): "llvm.maxnum",
    (B.min, "int"): "llvm.smin",
    (B.min, "uint"): "llvm.umin",
    (B.min, "float"): "llvm.minnum",
    (B.atan2, "float"): "llvm.atan2",
    (B.pow, "float"): "llvm.pow",
}

# C's truncating division and remainder, guarded against traps (see `_safe_division`).
LLVM_DIVISION: dict[tuple[B, str], str] = {
    (B.div, "int"): "sdiv",
    (B.div, "uint"): "udiv",
    (B.mod, "int"): "srem",
    (B.mod, "uint"): "urem",
}

# `bit_shr` is logical; `bit_sar` (Python's `>>`) is arithmetic on signed types only.
LLVM_SHIFT: dict[tuple[B, str], str] = {
    (B.bit_shl, "int"): "shl",
    (B.bit_shl, "uint"): "shl",
    (B.bit_shr, "int"): "lshr",
    (B.bit_shr, "uint"): "lshr",
    (B.bit_sar, "int"): "ashr",
    (B.bit_sar, "uint"): "lshr",
}

LLVM_COMPARE: dict[B, str] = {
    B.cmp_lt: "<",
    B.cmp_le: "<=",
    B.cmp_gt: ">",
    B.cmp_ge: ">=",
    B.cmp_eq: "==",
    B.cmp_ne: "!=",
}


def call_intrinsic(
    b: ir.IRBuilder, name: str, ret: ir.Type, args: list[ir.Value], fastmath: Flags = ()
) -> ir.Value:
    """Call `name` (declared in the current module on first use) with `args`."""
    module = b.module
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, [a.type for a in args]), name)
    return b.call(fn, args, fastmath=fastmath)


def binary(
    b: ir.IRBuilder, op: B, dtype: PrimitiveType, lhs: ir.Value, rhs: ir.Value, flags: Flags
) -> ir.Value | None:
    """`lhs op rhs` for operands of type `dtype`, or None if the combination is meaningless."""
    kind = kind_of(dtype)
    fm = flags if kind == "float" else ()
    if op in LLVM_COMPARE:
        return _compare(b, op, kind, lhs, rhs)
    if (op, kind) in LLVM_SHIFT:
        return _shift(b, LLVM_SHIFT[op, kind], lhs, rhs)
    if (op, kind) in LLVM_DIVISION:
        return _safe_division(b, LLVM_DIVISION[op, kind], kind == "int", lhs, rhs)
    if op == B.div and dtype.name == "f16" and fm:
        # in f32 and rounded once, as Taichi: with `arcp`, an f16 fdiv by a constant becomes a
        # product with the reciprocal rounded to f16 (0.30005h / 3 gave 0.09998, not 0.10004)
        wide = [b.fpext(v, ir.FLOAT) for v in (lhs, rhs)]
        return b.fptrunc(b.fdiv(*wide, flags=fm), lhs.type)
    if (op, kind) in LLVM_BINARY:
        method = getattr(b, LLVM_BINARY[op, kind])
        return method(lhs, rhs, flags=fm) if fm else method(lhs, rhs)
    if (op, kind) in LLVM_BINARY_INTRINSIC:
        name = f"{LLVM_BINARY_INTRINSIC[op, kind]}.{lhs.type.intrinsic_name}"
        return call_intrinsic(b, name, lhs.type, [lhs, rhs], fm)
    return None


def _compare(b: ir.IRBuilder, op: B, kind: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    if kind == "float":  # ordered, except `!=`, which is true for NaN as in C
        if op is B.cmp_ne:
            return b.fcmp_unordered("!=", lhs, rhs)
        return b.fcmp_ordered(LLVM_COMPARE[op], lhs, rhs)
    if kind == "int":
        return b.icmp_signed(LLVM_COMPARE[op], lhs, rhs)
    return b.icmp_unsigned(LLVM_COMPARE[op], lhs, rhs)


def _shift(b: ir.IRBuilder, method: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """Shift by `rhs mod bits`: LLVM makes an over-wide shift poison, Taichi's CPU masks it."""
    t = lhs.type
    if rhs.type.width > t.width:
        rhs = b.trunc(rhs, t)
    elif rhs.type.width < t.width:
        rhs = b.zext(rhs, t)
    amount = b.and_(rhs, ir.Constant(t, t.width - 1))
    return getattr(b, method)(lhs, amount)


def _safe_division(
    b: ir.IRBuilder, method: str, signed: bool, lhs: ir.Value, rhs: ir.Value
) -> ir.Value:
    """C division that never traps: `x / 0`, `x % 0` and `INT_MIN / -1` give 0 (no branch)."""
    t = lhs.type
    zero = ir.Constant(t, 0)
    bad = b.icmp_unsigned("==", rhs, zero)
    if signed and t.width > 1:
        int_min = b.icmp_signed("==", lhs, ir.Constant(t, -(1 << (t.width - 1))))
        minus_one = b.icmp_signed("==", rhs, ir.Constant(t, -1))
        bad = b.or_(bad, b.and_(int_min, minus_one))
    safe_rhs = b.select(bad, ir.Constant(t, 1), rhs)
    return b.select(bad, zero, getattr(b, method)(lhs, safe_rhs))


# --- unary operators ------------------------------------------------------------------------

# Float math as LLVM intrinsics; the back end calls libm (`sinf`, `tanh`, ...) for the ones
# without an instruction. `round` is half away from zero, as Taichi's `ti.round`.
FLOAT_MATH: dict[U, str] = {
    U.sqrt: "llvm.sqrt",
    U.round: "llvm.round",
    U.floor: "llvm.floor",
    U.ceil: "llvm.ceil",
    U.abs: "llvm.fabs",
    U.sin: "llvm.sin",
    U.cos: "llvm.cos",
    U.tan: "llvm.tan",
    U.asin: "llvm.asin",
    U.acos: "llvm.acos",
    U.tanh: "llvm.tanh",
    U.exp: "llvm.exp",
    U.log: "llvm.log",
}

UnaryEmitter = Callable[
    [ir.IRBuilder, PrimitiveType, PrimitiveType, ir.Value, Flags], "ir.Value | None"
]


def unary(
    b: ir.IRBuilder, op: U, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, flags: Flags
) -> ir.Value | None:
    """`op x` from type `src` to type `dst`, or None if the combination is meaningless."""
    fm = flags if src.is_float else ()
    if src.is_float and op in FLOAT_MATH:
        name = f"{FLOAT_MATH[op]}.{x.type.intrinsic_name}"
        return call_intrinsic(b, name, x.type, [x], fm)
    if not src.is_float and op in (U.round, U.floor, U.ceil):
        return x  # already integral
    emit = LLVM_UNARY.get(op)
    return emit(b, src, dst, x, fm) if emit is not None else None


def _neg(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    return b.fneg(x, flags=fm) if src.is_float else b.neg(x)


def _abs(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if src.kind != "int":
        return x  # unsigned values are their own absolute value
    # `abs(INT_MIN)` wraps to INT_MIN (the `false` says: not poison)
    return call_intrinsic(b, f"llvm.abs.{x.type.intrinsic_name}", x.type, [x, ir.Constant(I1, 0)])


def _sgn(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    """-1, 0 or 1 in the operand's type (0 for -0.0 and NaN)."""
    one, minus_one, zero = (ir.Constant(x.type, v) for v in (1, -1, 0))
    if src.is_float:
        positive, negative = b.fcmp_ordered(">", x, zero), b.fcmp_ordered("<", x, zero)
    elif src.kind == "int":
        positive, negative = b.icmp_signed(">", x, zero), b.icmp_signed("<", x, zero)
    else:
        return b.zext(b.icmp_unsigned("!=", x, zero), x.type) if x.type.width > 1 else x
    return b.select(positive, one, b.select(negative, minus_one, zero))


def _reciprocal(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if not src.is_float:
        return None
    return b.fdiv(ir.Constant(x.type, 1.0), x, flags=fm)


def _rsqrt(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if not src.is_float:
        return None
    root = call_intrinsic(b, f"llvm.sqrt.{x.type.intrinsic_name}", x.type, [x], fm)
    return b.fdiv(ir.Constant(x.type, 1.0), root, flags=fm)


def _popcnt(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if src.is_float:
        return None
    return call_intrinsic(b, f"llvm.ctpop.{x.type.intrinsic_name}", x.type, [x])


def _clz(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if src.is_float:
        return None
    # `false`: clz(0) is the bit width, not poison
    return call_intrinsic(b, f"llvm.ctlz.{x.type.intrinsic_name}", x.type, [x, ir.Constant(I1, 0)])


def _bit_not(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    return None if src.is_float else b.not_(x)


def _logic_not(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    """`not x`: 1 where x is zero, as a `u1` cast to the result type."""
    zero = ir.Constant(x.type, 0)
    if src.is_float:
        is_zero = b.fcmp_ordered("==", x, zero)
    else:
        is_zero = b.icmp_unsigned("==", x, zero)
    return cast_value(b, u1, dst, is_zero)


def _cast_value(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    return cast_value(b, src, dst, x)


def _cast_bits(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value, fm: Flags):
    if src.bits != dst.bits:
        return None
    return x if src.is_integral and dst.is_integral else b.bitcast(x, value_type(dst))


LLVM_UNARY: dict[U, UnaryEmitter] = {
    U.neg: _neg,
    U.abs: _abs,
    U.sgn: _sgn,
    U.inv: _reciprocal,
    U.rcp: _reciprocal,
    U.rsqrt: _rsqrt,
    U.popcnt: _popcnt,
    U.clz: _clz,
    U.bit_not: _bit_not,
    U.logic_not: _logic_not,
    U.cast_value: _cast_value,
    U.cast_bits: _cast_bits,
}


# --- casts ----------------------------------------------------------------------------------


def cast_value(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value) -> ir.Value:
    """`cast_value` per the contract: float->int truncates toward zero, int->int wraps or
    extends by the source's signedness, anything -> `u1` is `!= 0`."""
    if src == dst:
        return x
    if dst.kind == "bool":
        zero = ir.Constant(x.type, 0)
        if src.is_float:  # NaN is true, as in C
            return b.fcmp_unordered("!=", x, zero)
        return b.icmp_unsigned("!=", x, zero)
    if src.is_float and dst.is_float:
        if dst.bits == 16 and src.bits == 64:
            # through f32, as Taichi: a direct fptrunc calls __truncdfhf2, which the JIT lacks
            x = b.fptrunc(x, ir.FLOAT)
        grow = dst.bits > src.bits
        return (b.fpext if grow else b.fptrunc)(x, value_type(dst))
    if src.is_float:
        return _float_to_int(b, dst, x)
    if dst.is_float:
        return (b.sitofp if src.kind == "int" else b.uitofp)(x, value_type(dst))
    return resize_int(b, src, dst, x)


def resize_int(b: ir.IRBuilder, src: PrimitiveType, dst: PrimitiveType, x: ir.Value) -> ir.Value:
    """Integer to integer: truncate, or sign/zero-extend by the source's signedness."""
    if dst.bits == src.bits:
        return x
    if dst.bits < src.bits:
        return b.trunc(x, value_type(dst))
    return (b.sext if src.kind == "int" else b.zext)(x, value_type(dst))


def _float_to_int(b: ir.IRBuilder, dst: PrimitiveType, x: ir.Value) -> ir.Value:
    """Truncate toward zero. Narrow types go through i32 (u32 through i64) and wrap, as C on
    x86-64 and NumPy do (`u8(-1.0) == 255`); values outside the wide type saturate instead of
    being LLVM poison."""
    if dst.bits < 32 or (dst.bits == 32 and dst.kind == "uint"):
        wide = I32 if dst.bits < 32 else I64
        name = f"llvm.fptosi.sat.{wide.intrinsic_name}.{x.type.intrinsic_name}"
        return b.trunc(call_intrinsic(b, name, wide, [x]), value_type(dst))
    conv = "fptoui" if dst.kind == "uint" else "fptosi"
    target = value_type(dst)
    name = f"llvm.{conv}.sat.{target.intrinsic_name}.{x.type.intrinsic_name}"
    return call_intrinsic(b, name, target, [x])
