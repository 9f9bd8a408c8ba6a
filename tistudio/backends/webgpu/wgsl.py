"""IR types, constants, operators and casts as WGSL text.

WGSL has 32-bit scalars (`i32`, `u32`, `f32`, `bool`) and, with the adapter features
`shader-int64` / `shader-f64` / `shader-f16`, `i64`, `u64`, `f64` and `f16`. `f16` adds,
subtracts and multiplies natively (exactly rounded on every GPU); division, square roots,
transcendental functions and `pow` go through `f32` and round back, which is what the CPU back
end's LLVM `half` does, so both agree bit for bit where GPUs' native `f16` math would not.
The IR's narrow integers live in 32-bit registers: `i8`/`i16` sign-extended in an `i32`, `u8`/`u16`
zero-extended in a `u32`, and every operator that could leave the narrow range is followed by
`narrow()` (a shift pair or a mask), so values wrap exactly as the CPU back end's `i8` arithmetic
does. Operators are tables of format strings keyed by op (and kind where WGSL differs); what needs
more than one expression (guarded division, Taichi's rounding, casts) is a small function. `None`
means "not expressible", which the emitter turns into `UnsupportedOnBackend`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from tistudio.ir import semantics
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.types import PrimitiveType

WGSL_TYPE = {
    "i8": "i32",
    "i16": "i32",
    "i32": "i32",
    "u1": "bool",
    "u8": "u32",
    "u16": "u32",
    "u32": "u32",
    "i64": "i64",
    "u64": "u64",
    "f16": "f16",
    "f32": "f32",
    "f64": "f64",
}

# the adapter feature a type needs, and the IR types that need it
TYPE_FEATURE = {
    "i64": "shader-int64",
    "u64": "shader-int64",
    "f64": "shader-f64",
    "f16": "shader-f16",
}

_SUFFIX = {"i32": "i", "u32": "u", "i64": "li", "u64": "lu", "f16": "h", "f32": "f", "f64": "lf"}
_NP_FLOAT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def wgsl_type(dtype: PrimitiveType) -> str | None:
    """The register type of `dtype` (`i8` -> `i32`), or None."""
    return WGSL_TYPE.get(dtype.name)


def is_narrow(dtype: PrimitiveType) -> bool:
    """An 8- or 16-bit integer, held in a 32-bit register."""
    return dtype.kind in ("int", "uint") and dtype.bits < 32


def narrow(expr: str, dtype: PrimitiveType) -> str:
    """Wrap a 32-bit register value to `dtype`'s width (identity for other types)."""
    if not is_narrow(dtype):
        return expr
    if dtype.kind == "int":
        shift = 32 - dtype.bits
        return f"(({expr} << {shift}u) >> {shift}u)"
    return f"({expr} & {hex((1 << dtype.bits) - 1)}u)"


def literal(value: int | float | bool, dtype: PrimitiveType) -> str:
    """A WGSL constant of `dtype` holding `value` (the IR's normalised value)."""
    reg = WGSL_TYPE[dtype.name]
    if reg == "bool":
        return "true" if value else "false"
    if dtype.is_float:
        return _float_literal(float(value), dtype)
    v = int(value)
    if reg in ("i32", "i64") and v == -(1 << (dtype.bits - 1)) and dtype.bits in (32, 64):
        # -2147483648i would negate an out-of-range literal
        return f"({v + 1}{_SUFFIX[reg]} - 1{_SUFFIX[reg]})"
    return f"{v}{_SUFFIX[reg]}"


def _float_literal(value: float, dtype: PrimitiveType) -> str:
    reg = WGSL_TYPE[dtype.name]
    np_type = _NP_FLOAT[reg]
    with np.errstate(over="ignore"):  # 2.0**31 as f16 (a saturating cast's bound) is inf
        stored = np_type(value)
    tiny = np.finfo(np_type).tiny
    if not math.isfinite(stored) or (value != 0 and abs(stored) < tiny):
        # no literal spells inf, NaN or a subnormal: give the bits, and hide infinities and
        # NaN from drivers (`opaque_bits`)
        if reg == "f16":  # WGSL has no 16-bit integer to bitcast from
            bits = int(np.array(stored).view(np.uint16))
            word = opaque_bits(f"{bits}u", 16) if not math.isfinite(stored) else f"{bits}u"
            return f"f16(unpack2x16float({word}).x)"
        int_type = ("u32", np.uint32) if reg == "f32" else ("u64", np.uint64)
        bits = f"{int(np.array(stored).view(int_type[1]))}{_SUFFIX[int_type[0]]}"
        hidden = opaque_bits(bits, dtype.bits) if not math.isfinite(stored) else bits
        return f"bitcast<{reg}>({hidden})"
    text = repr(float(stored))
    return f"{text}{_SUFFIX[reg]}"


def opaque_bits(bits: str, width: int) -> str:
    """The integer constant `bits` (a `width`-bit float's infinity or NaN) as a value drivers
    cannot see is constant: NVIDIA's driver (580) took an infinity or NaN constant in
    arithmetic as undefined (fast math), so `inf - NaN` was 0 and `inf % 0.0` 0 where the CPU
    gives NaN. The bits are xor-ed into the exponent with `ti_zero` (0 at run time, from
    `num_workgroups.y - 1`), so no driver can prove the value a NaN and drop it: with
    `select(NaN, 0.0, ti_never)` NVIDIA's did (WGSL lets it assume no NaN), and `inf * NaN`
    gave 0 (`x * (x - x)` for an infinite x; the H200 float campaign, 2026-11-27)."""
    if width == 64:
        return f"({bits} ^ (u64(ti_zero) << 52u))"
    return f"({bits} ^ (ti_zero << {_MANTISSA_BITS[width]}u))"


_MANTISSA_BITS = {16: 10, 32: 23}
_SPECIAL_BITS = re.compile(r"bitcast<(f32|f64)>\((0x[0-9a-f]+l?u)\)")


def opaque_specials(text: str) -> str:
    """`text` (a helper function) with its infinity and NaN constants `opaque_bits`."""

    def hide(m: re.Match) -> str:
        return f"bitcast<{m[1]}>({opaque_bits(m[2], int(m[1][1:]))})"

    return _SPECIAL_BITS.sub(hide, text)


def zero(dtype: PrimitiveType) -> str:
    return literal(False if dtype.kind == "bool" else 0, dtype)


def int_min(dtype: PrimitiveType) -> str:
    return literal(-(1 << (dtype.bits - 1)), dtype)


# --- binary operators ---------------------------------------------------------------------

# Format strings over {a} and {b}; the same for every type unless a kind-specific entry exists.
WGSL_BINARY: dict[B, str] = {
    B.add: "({a} + {b})",
    B.sub: "({a} - {b})",
    B.mul: "({a} * {b})",
    B.max: "max({a}, {b})",
    B.min: "min({a}, {b})",
    B.bit_and: "({a} & {b})",
    B.bit_or: "({a} | {b})",
    B.bit_xor: "({a} ^ {b})",
    B.cmp_lt: "({a} < {b})",
    B.cmp_le: "({a} <= {b})",
    B.cmp_gt: "({a} > {b})",
    B.cmp_ge: "({a} >= {b})",
    B.cmp_eq: "({a} == {b})",
    B.cmp_ne: "({a} != {b})",
}
FLOAT_BINARY: dict[B, str] = {
    B.div: "({a} / {b})",
    B.mod: "({a} % {b})",  # OpFRem: C's fmod, the sign of the dividend
    B.atan2: "atan2({a}, {b})",
    B.pow: "ti_pow_{t}({a}, {b})",  # WGSL's pow is undefined for negative bases: see PRELUDE
    B.max: "ti_max_{t}({a}, {b})",  # LLVM's maxnum, as the CPU: see PRELUDE
    B.min: "ti_min_{t}({a}, {b})",
}
BOOL_BINARY: dict[B, str] = {  # one-bit arithmetic wraps mod 2: + and - are xor, * is and
    B.add: "({a} != {b})",
    B.sub: "({a} != {b})",
    B.mul: "({a} & {b})",
    B.bit_and: "({a} & {b})",
    B.bit_or: "({a} | {b})",
    B.bit_xor: "({a} != {b})",
    B.max: "({a} | {b})",
    B.min: "({a} & {b})",
    B.cmp_eq: "({a} == {b})",
    B.cmp_ne: "({a} != {b})",
}
_F32 = PrimitiveType("f32", 32, "float")
_U32 = PrimitiveType("u32", 32, "uint")
# f16 operations computed in f32 and rounded back (see the module docstring)
_F16_THROUGH_F32 = {B.add, B.sub, B.mul, B.div, B.pow, B.atan2, B.max, B.min}
_F16_NATIVE_UNARY = {U.neg, U.abs, U.sgn, U.floor, U.ceil}


def through_f32(expr: str | None) -> str | None:
    """An f16 result computed in f32 (`expr`), rounded to f16 where no driver can skip the
    rounding (`ti_r16`). f32 holds the exact result of an f16 `+ - * /` and `sqrt`, so the
    second rounding gives f16's bits. NVIDIA's driver (580) kept f16 arithmetic and
    `f16(f32)` results in f32 wherever it liked (WGSL sets no rounding mode): `h - h` fed
    unrounded into `%` (the H100 fuzz test), `h * h - h` fused, so every f16 operation that
    rounds is spelled this way, and the f16 values in registers are exact f16 values."""
    return None if expr is None else f"f16(ti_r16({expr}))"


def _float_binary(op: B, dtype: PrimitiveType, a: str, b: str) -> str | None:
    fmt = FLOAT_BINARY.get(op) or WGSL_BINARY.get(op)
    if fmt is None or op.is_bitwise:
        return None
    if op is B.atan2:
        fmt = "ti_atan2_{t}({a}, {b})"  # see f64math.py
    if op is B.div and re.fullmatch(r"-?0\.0(f|lf)", b):
        return _divide_by_zero(dtype, a, b.startswith("-"))
    return fmt.format(a=a, b=b, t=WGSL_TYPE[dtype.name])


def _divide_by_zero(dtype: PrimitiveType, a: str, negative: bool) -> str:
    """`a / 0.0` as IEEE defines it (the sign of `a` times that of the zero as infinity, NaN
    for 0 or NaN): drivers may fold a division by a constant zero to anything (lavapipe gives
    0), where the CPU and a division by a zero known only at run time give the infinity."""
    inf, ninf = literal(math.inf, dtype), literal(-math.inf, dtype)
    above, below = (ninf, inf) if negative else (inf, ninf)
    zero_ = zero(dtype)
    signed = f"select({below}, {above}, {a} > {zero_})"
    return f"select({signed}, {literal(math.nan, dtype)}, !({a} > {zero_} || {a} < {zero_}))"


# operators whose result can leave a narrow integer's range
_WRAPS = {B.add, B.sub, B.mul, B.bit_shl}
_SHIFT = {B.bit_shl: "<<", B.bit_shr: ">>", B.bit_sar: ">>"}


def binary(op: B, dtype: PrimitiveType, a: str, b: str) -> str | None:
    """`a op b` for two operands of `dtype`, as one WGSL expression (or None)."""
    if dtype.kind == "bool":
        fmt = BOOL_BINARY.get(op)
        if fmt is None and op.is_comparison:  # order false < true through u32
            a, b = f"u32({a})", f"u32({b})"
            fmt = WGSL_BINARY[op]
        return None if fmt is None else fmt.format(a=a, b=b)
    if dtype.name == "f16" and op in _F16_THROUGH_F32:
        return through_f32(binary(op, _F32, f"f32({a})", f"f32({b})"))
    if dtype.is_float:
        return _float_binary(op, dtype, a, b)
    if op in _SHIFT:
        return narrow(_shift(op, dtype, a, b), dtype)
    if op in (B.div, B.mod):
        return _guarded_division(op, dtype, a, b)
    fmt = WGSL_BINARY.get(op)
    if fmt is None:
        return None
    expr = fmt.format(a=a, b=b)
    return narrow(expr, dtype) if op in _WRAPS else expr


def _shift(op: B, dtype: PrimitiveType, a: str, b: str) -> str:
    """Shift by `b mod bits` (the contract); `bit_shr` is logical even on signed types."""
    constant = re.fullmatch(r"(-?\d+)l?[iu]", b)
    if constant:
        amount = f"{int(constant[1]) % dtype.bits}u"
    else:
        amount = f"(u32({b}) & {dtype.bits - 1}u)"
    if op is B.bit_shr and dtype.kind == "int":
        reg = WGSL_TYPE[dtype.name]
        unsigned = "u64" if reg == "i64" else "u32"
        pattern = f"{unsigned}({a})" if not is_narrow(dtype) else narrow_unsigned(a, dtype)
        return f"{reg}({pattern} >> {amount})"
    return f"({a} {_SHIFT[op]} {amount})"


def narrow_unsigned(expr: str, dtype: PrimitiveType) -> str:
    """The bit pattern of a narrow signed value as a zero-extended u32."""
    return f"(u32({expr}) & {hex((1 << dtype.bits) - 1)}u)"


def _guarded_division(op: B, dtype: PrimitiveType, a: str, b: str) -> str:
    """C division that gives 0 for `x / 0`, `x % 0` and `INT_MIN / -1` (the contract). Signed
    integers go through `ti_div_<t>` / `ti_mod_<t>` (see `_signed_division`)."""
    if dtype.kind == "int":
        positive = re.fullmatch(r"(\d+)l?i", b)
        if positive and int(positive[1]) > 0:
            return _by_positive_constant(op, dtype, a, int(positive[1]))
        return f"ti_{'div' if op is B.div else 'mod'}_{dtype.name}({a}, {b})"
    z = zero(dtype)
    symbol = "/" if op is B.div else "%"
    constant = re.fullmatch(r"(-?\d+)l?[iu]", b)
    if constant and int(constant[1]) != 0:
        return f"({a} {symbol} {b})"  # nothing to guard, and drivers see the constant divisor
    bad = f"({b} == {z})"
    return f"select({a} {symbol} select({b}, {literal(1, dtype)}, {bad}), {z}, {bad})"


def _by_positive_constant(op: B, dtype: PrimitiveType, a: str, divisor: int) -> str:
    """`_signed_division` by a positive literal, inline: nothing to guard, and the driver sees
    an unsigned division by a constant (a shift, a mask, a multiply) hidden by the zero guard."""
    reg, z = WGSL_TYPE[dtype.name], zero(dtype)
    u, uz = ("u64", "0lu") if reg == "i64" else ("u32", "0u")
    c = literal(divisor, _unsigned(u))
    m = f"(select({u}({a}), {uz} - {u}({a}), {a} < {z}) {'/' if op is B.div else '%'} {c})"
    return f"select({reg}({m}), {reg}({uz} - {m}), {a} < {z})"


def _signed_division(op: B, name: str) -> str:
    """WGSL function `ti_div_<name>` or `ti_mod_<name>` (C's: the quotient truncated, the
    remainder with the sign of `a`; 0 for a zero divisor and `INT_MIN / -1`), through unsigned
    division of the magnitudes. Drivers need not agree on signed division: NVIDIA's Vulkan
    driver (580, H100 and H200) computed WGSL's signed `%` as if both operands were unsigned
    (`-1 % 3` gave 0, `7 % -2` gave 7), where unsigned `/` and `%` mean one thing everywhere.
    The magnitude of INT_MIN, 2**(bits-1), is its own unsigned bit pattern."""
    dtype = PrimitiveType(name, int(name[1:]), "int")
    reg, fn = WGSL_TYPE[name], f"ti_{'div' if op is B.div else 'mod'}_{name}"
    (u, uz), z = ("u64", "0lu") if reg == "i64" else ("u32", "0u"), zero(dtype)
    negative = "(a < z) != (b < z)" if op is B.div else "a < z"
    return f"""fn {fn}(a: {reg}, b: {reg}) -> {reg} {{
    let z = {z};
    let bad = b == z || (a == {int_min(dtype)} && b == {literal(-1, dtype)});
    let ua = select({u}(a), {uz} - {u}(a), a < z);
    let ub = select({u}(b), {uz} - {u}(b), b < z);
    let m = ua {"/" if op is B.div else "%"} select(ub, {literal(1, _unsigned(u))}, bad);
    return select({reg}(select(m, {uz} - m, {negative})), z, bad);
}}"""


def _unsigned(name: str) -> PrimitiveType:
    return PrimitiveType(name, int(name[1:]), "uint")


# --- unary operators ----------------------------------------------------------------------

FLOAT_MATH: dict[U, str] = {
    U.sqrt: "sqrt({x})",
    U.floor: "floor({x})",
    U.ceil: "ceil({x})",
    U.abs: "abs({x})",
    U.sin: "sin({x})",
    U.cos: "cos({x})",
    U.tan: "tan({x})",
    U.asin: "asin({x})",
    U.acos: "acos({x})",
    U.tanh: "tanh({x})",
    U.exp: "exp({x})",
    U.log: "log({x})",
    U.neg: "(-{x})",  # `x` never starts with "-" here: see `unary`
    U.inv: "({one} / {x})",
    U.rcp: "({one} / {x})",
    U.rsqrt: "({one} / sqrt({x}))",  # inverseSqrt is an approximation on some GPUs
    U.sgn: "sign({x})",
    U.round: "ti_round_{t}({x})",  # half away from zero, as ti.round; WGSL rounds to even
}
# GLSL.std.450 (what naga lowers WGSL math to on Vulkan) has these for 16/32-bit floats only;
# for f64 the shader calls the functions of f64math.py
F32_ONLY_MATH = {U.sin, U.cos, U.tan, U.asin, U.acos, U.tanh, U.exp, U.log}


def unary(op: U, src: PrimitiveType, dst: PrimitiveType, x: str) -> str | None:
    """`op x` from `src` to `dst` as one WGSL expression (or None)."""
    if op is U.cast_value:
        return cast_value(src, dst, x)
    if op is U.cast_bits:
        return cast_bits(src, dst, x)
    if op is U.logic_not:
        return cast_value(PrimitiveType("u1", 1, "bool"), dst, f"({x} == {zero(src)})")
    if x.startswith("-"):  # a negative literal: `--x` is WGSL's decrement, not `-(-x)`
        x = f"({x})"
    if src.name == "f16" and op not in _F16_NATIVE_UNARY:
        return through_f32(unary(op, _F32, _F32, f"f32({x})"))
    if src.is_float:
        if (op in F32_ONLY_MATH and src.bits == 64) or op in (U.asin, U.acos):
            return f"ti_{op.value}_{WGSL_TYPE[src.name]}({x})"  # see f64math.py
        fmt = FLOAT_MATH.get(op)
        reg = WGSL_TYPE[src.name]
        return None if fmt is None else fmt.format(x=x, one=literal(1, src), t=reg)
    return _integer_unary(op, src, x)


def _integer_unary(op: U, src: PrimitiveType, x: str) -> str | None:
    if op in (U.round, U.floor, U.ceil):
        return x  # already integral
    if src.kind == "bool":
        # one-bit arithmetic: -x == x, |x| == x, sgn(x) == x (as LLVM's i1)
        return {U.bit_not: f"(!{x})", U.abs: x, U.neg: x, U.sgn: x}.get(op)
    signed = src.kind == "int"
    if op is U.neg:
        return narrow(f"(-{x})" if signed else f"({zero(src)} - {x})", src)
    if op is U.abs:  # not WGSL's abs: NVIDIA's driver takes abs(i32 min) as >= 0 (a % 7
        # of it gave 2, not 5); a negation that wraps keeps i32 min negative, as on the CPU
        if not signed:
            return x
        return narrow(f"select({x}, -{x}, {x} < 0i)" if src.bits <= 32 else f"abs({x})", src)
    if op is U.sgn:
        return f"sign({x})" if signed else f"select({zero(src)}, {literal(1, src)}, {x} != 0u)"
    if op is U.bit_not:
        return narrow(f"(~{x})", src)
    if op in (U.popcnt, U.clz):
        return _bit_count(op, src, x)
    return None


def _bit_count(op: U, src: PrimitiveType, x: str) -> str:
    """popcnt / clz on the unsigned bit pattern; narrow types count within their width."""
    reg = WGSL_TYPE[src.name]
    fn = "countOneBits" if op is U.popcnt else "countLeadingZeros"
    if src.bits == 64:
        return f"{reg}({_bit_count_64(op, x if src.kind == 'uint' else f'bitcast<u64>({x})')})"
    if not is_narrow(src):
        return f"{fn}({x})"
    pattern = narrow_unsigned(x, src)
    result = f"{fn}({pattern})" if op is U.popcnt else f"({fn}({pattern}) - {32 - src.bits}u)"
    return f"{reg}({result})"


def _bit_count_64(op: U, bits: str) -> str:
    """popcnt / clz of a u64 from its two 32-bit halves: naga cannot yet write SPIR-V for the
    64-bit builtins (gfx-rs/wgpu#5276) and panics instead of reporting it."""
    hi, lo = f"u32({bits} >> 32u)", f"u32({bits} & 0xfffffffflu)"
    if op is U.popcnt:
        return f"(countOneBits({hi}) + countOneBits({lo}))"
    return f"select(countLeadingZeros({hi}), 32u + countLeadingZeros({lo}), {hi} == 0u)"


# --- casts --------------------------------------------------------------------------------


def cast_value(src: PrimitiveType, dst: PrimitiveType, x: str) -> str | None:
    """The contract's `cast_value`: float->int truncates toward zero, int->int wraps or
    extends by the source's signedness, anything -> u1 is `!= 0`."""
    if src == dst:
        return x
    if dst.kind == "bool":
        return f"({x} != {zero(src)})"  # NaN != 0 is true, as in C
    dreg = WGSL_TYPE[dst.name]
    if src.kind == "bool" and dst.is_float:  # the integer 0 or 1, converted below
        src, x = _U32, f"select(0u, 1u, {x})"
    if src.kind == "bool":
        return f"select({zero(dst)}, {literal(1, dst)}, {x})"
    if not src.is_float and dst.is_float:
        # an integer no driver can bound (xor ti_zero, wgsl.opaque_bits): lavapipe folded
        # `select(0.0h, 1.0h, c) * x` to 0 for an infinite x, and NVIDIA's took `f32(u64(c))`
        # for a comparison `c` as 0 or 1 and multiplied a NaN by it away (the campaigns'
        # kernels returned -0.0 and 0.0, the CPU NaN)
        x = f"({x} ^ {WGSL_TYPE[src.name]}(ti_zero))"
    if dst.name == "f16" and src.name == "f64":
        # through f32, rounded twice, as the CPU (and Taichi) does; NVIDIA's driver rounded
        # f16(f64) once and dropped a plain f32 step between, not one behind `ti_never`
        return through_f32(f"select(f32({x}), 0.0f, ti_never)")
    if dst.name == "f16":  # exact in f32 below 2^24, and an f16 from 65520 up is inf
        return through_f32(x if src.name == "f32" else f"f32({x})")
    if dst.is_float:  # an f16 source holds an exact f16 value (see through_f32)
        return f"{dreg}({x})"
    if src.is_float:
        return _float_to_int(src, dst, x)
    return resize_int(src, dst, x)


def folded_cast(op: U, src: PrimitiveType, dst: PrimitiveType, value: float) -> float | None:
    """The value of a cast of the constant `value` (to a number), as the IR's semantics
    computes it (f64 -> f16 through f32, as `cast_value`), or None. Drivers fold what they see
    is a constant: lavapipe made `f16(0u) * x` 0 for a NaN x (the H100 float campaign's kernel,
    where the CPU gives NaN); a folded cast goes through the emitter's constants instead. (naga
    also refuses to convert an f64 literal to anything: "Cannot cast scalar components of
    expression `Literal(F64(0.0))` to type `f32`", from `ti.cast(ti.cast(0.0, ti.f64), ti.f16)`.)"""
    if op is not U.cast_value or dst.kind == "bool":
        return None
    if src.kind == "bool":  # a float of a constant condition: 0.0 or 1.0, as constants
        return float(bool(value)) if dst.is_float else None
    if not src.is_float and not dst.is_float:
        return None  # integers: nothing a driver folds wrongly
    if src.name == "f64" and dst.name == "f16":
        value, src = semantics.cast_value(value, src, _F32), _F32
    return semantics.cast_value(value, src, dst)


def resize_int(src: PrimitiveType, dst: PrimitiveType, x: str) -> str:
    """Change width within the source's signedness (extending by it), then reinterpret the
    bits as the destination's signedness, then wrap to a narrow destination."""
    width = 64 if dst.bits == 64 else 32
    sreg = WGSL_TYPE[src.name]
    same_sign = {("int", 32): "i32", ("int", 64): "i64", ("uint", 32): "u32", ("uint", 64): "u64"}
    step = same_sign[src.kind, width]
    if step == "i64" and sreg == "i32":
        # sign-extend by hand: Mesa 22.3's lavapipe compares `i64(x)` as if zero-extended
        value = (
            f"bitcast<i64>(select(0lu, 0xffffffff00000000lu, {x} < 0i) | u64(bitcast<u32>({x})))"
        )
    else:
        value = x if step == sreg else f"{step}({x})"
    dreg = WGSL_TYPE[dst.name]
    if dreg != step:
        value = f"{dreg}({value})"  # same width: a bit reinterpretation
    return narrow(value, dst)


def _float_to_int(src: PrimitiveType, dst: PrimitiveType, x: str) -> str:
    """Truncate toward zero, saturating as the CPU back end does (`ti_cast_<src>_<dst>`):
    narrow types go through i32 and wrap; f16 goes through f32 (exactly: the limits are not
    f16 values, 2^31 is inf there, and lavapipe's i32() of an f16 -inf gave -65504)."""
    if src.name == "f16":
        return _float_to_int(_F32, dst, f"f32({x})")
    sreg = WGSL_TYPE[src.name]
    if is_narrow(dst):
        through = f"ti_cast_{sreg}_i32({x})"
        return narrow(through if dst.kind == "int" else f"u32({through})", dst)
    return f"ti_cast_{sreg}_{WGSL_TYPE[dst.name]}({x})"


def _float_to_int_function(src: PrimitiveType, dst: PrimitiveType) -> str:
    """WGSL `ti_cast_<src>_<dst>(x)`: `x` truncated to a 32- or 64-bit integer as LLVM's
    `fptosi.sat`/`fptoui.sat` (NaN is 0, out of range the nearest end) and u32 as the CPU's
    low 32 bits of a saturated i64. It branches first, so that no WGSL conversion sees a NaN
    or an out-of-range value (SPIR-V leaves the result undefined, and a select of such a
    result, the earlier spelling, left it to the driver to keep it unused), and one function
    per pair keeps a kernel's text short. 64-bit results are made from two exact 32-bit
    halves: NVIDIA's driver (580, H100) converted f32 1e10 to u64 as 2^32 - 1."""
    sreg, dreg = WGSL_TYPE[src.name], WGSL_TYPE[dst.name]
    c = lambda v: literal(v, src)  # noqa: E731
    signed = dst.kind == "int"
    top = 2.0 ** (dst.bits - 1 if signed else dst.bits)
    highest = literal((1 << (dst.bits - 1 if signed else dst.bits)) - 1, dst)
    trunc = "ti_trunc_f64(x)" if src.bits == 64 else "trunc(x)"
    head = f"""fn ti_cast_{sreg}_{dreg}(x: {sreg}) -> {dreg} {{
    if (nan_{sreg}(x)) {{ return {zero(dst)}; }}"""
    if dreg == "u32":  # the low word of the i64 result: all ones from 2^63, 0 below -2^63
        return f"""{head}
    if (x >= {c(2.0**63)}) {{ return 0xffffffffu; }}
    if (x <= {c(-(2.0**63))}) {{ return 0u; }}
    if (abs(x) < {c(2.0**31)}) {{
        if (x < {zero(src)}) {{ return u32(i32(x)); }}
        return u32(x);
    }}
    let t = {trunc};  // a multiple of 256 from 2^31 on: the remainder is exact
    return u32(t - floor(t / {c(2.0**32)}) * {c(2.0**32)});
}}"""
    bottom = c(-top if signed else -1.0)
    lowest = int_min(dst) if signed else zero(dst)
    ends = f"""{head}
    if (x >= {c(top)}) {{ return {highest}; }}
    if (x <= {bottom}) {{ return {lowest}; }}"""
    if dst.bits == 32:
        return f"{ends}\n    return {dreg}(x);\n}}"
    negative = f"\n    if (x < {zero(src)}) {{ return bitcast<i64>(~bits + 1lu); }}"
    return f"""{ends}
    let m = abs({trunc});
    let hi = floor(m * {c(2.0**-32)});
    let bits = (u64(u32(hi)) << 32u) | u64(u32(m - hi * {c(2.0**32)}));{negative if signed else ""}
    return {"i64(bits)" if signed else "bits"};
}}"""


def cast_bits(src: PrimitiveType, dst: PrimitiveType, x: str) -> str | None:
    if src.bits != dst.bits or "bool" in (src.kind, dst.kind):
        return None
    if src.name == "f16":  # its 16 bits, through a u32 (WGSL has no 16-bit integers)
        return narrow(f"{WGSL_TYPE[dst.name]}(pack2x16float(vec2<f32>(f32({x}), 0.0f)))", dst)
    if dst.name == "f16":
        return f"f16(unpack2x16float(u32({x}) & 0xffffu).x)"
    if is_narrow(src):
        return resize_int(src, dst, x)
    return f"bitcast<{WGSL_TYPE[dst.name]}>({x})"


# --- helper functions some expressions call ------------------------------------------------

PRELUDE = {
    "ti_round_f32": """fn ti_round_f32(x: f32) -> f32 {
    let t = trunc(x);
    return select(t, t + sign(x), abs(x - t) >= 0.5f);
}""",
    "ti_round_f64": """fn ti_round_f64(x: f64) -> f64 {
    let t = ti_trunc_f64(x);
    return select(t, t + sign(x), abs(x - t) >= 0.5lf);
}""",
    "ti_pow_f32": """fn ti_pow_f32(x: f32, y: f32) -> f32 {
    // C's pow: x ** 0 == 1, and negative bases with integral exponents (WGSL's pow is
    // undefined for x < 0)
    if (y == 0.0f) { return 1.0f; }
    if (x < 0.0f && y != trunc(y)) { return bitcast<f32>(0x7fc00000u); }
    let r = pow(abs(x), y);
    return select(r, -r, x < 0.0f && abs(y % 2.0f) == 1.0f);
}""",
}
PRELUDE["ti_r16"] = """fn ti_r16(x: f32) -> f32 {
    // x rounded to f16, as an f32: through the bits, xor-ed with a zero no driver can know
    // (ti_zero), so no driver drops the rounding (see through_f32)
    return unpack2x16float(pack2x16float(vec2<f32>(x, 0.0f)) ^ ti_zero).x;
}"""
_MAXNUM = """fn ti_{op}_{t}(a: {t}, b: {t}) -> {t} {{
    // LLVM's maxnum/minnum, as on the CPU: a NaN operand gives the other. WGSL leaves {op} of
    // a NaN undefined, and a reduction's private value starts at NaN (make_thread_local)
    return select(select({op}(a, b), a, nan_{t}(b)), b, nan_{t}(a));
}}"""
PRELUDE |= {
    f"ti_{op}_{t}": _MAXNUM.format(op=op, t=t) for op in ("max", "min") for t in ("f32", "f64")
}
PRELUDE |= {
    f"ti_cast_{src}_{dst}": _float_to_int_function(
        PrimitiveType(src, int(src[1:]), "float"),
        PrimitiveType(dst, int(dst[1:]), "int" if dst[0] == "i" else "uint"),
    )
    for src in ("f32", "f64")
    for dst in ("i32", "u32", "i64", "u64")
}
PRELUDE |= {
    f"ti_{op.value}_{name}": _signed_division(op, name)
    for op in (B.div, B.mod)
    for name in ("i8", "i16", "i32", "i64")
}
