"""IEEE float semantics in WGSL where drivers need not keep them (every kernel).

WGSL lets an implementation assume that no NaN or infinity reaches an operation, and Vulkan
drivers use that freedom: lavapipe's `!=` is ordered (false when an operand is NaN, where C says
true), others fold `x != x` to false, and GLSL's `pow` and `sign` are undefined for NaN, zeros
or infinities. The CPU back end follows IEEE 754 and C's libm (the floating-point contract in
docs/compiler-contract.md), so the emitter asks this module first: float comparisons test their
operands for NaN on the bits (`nan_f32(x)`, which no driver can fold), a cast to `u1` counts NaN
as true, `sign` of NaN is 0, `x * 0.0` and `x - x` are NaN for infinite x and `0.0 / x` for a
zero or NaN x (drivers fold them to 0), other constants are opaque to the driver (`opaque`: it
cannot reassociate them), negation flips the sign bit (so drivers cannot cancel `x + (-x)` or
`(x + 1.0) - x`), `pow` handles C's special cases before it calls the ordinary one, `ti.raw_mod`
of floats is C's exact `fmod` (WGSL's `%` rounds the quotient: 1.0 % 0.1 gave 0), and f32 `sin`,
`cos` and `tan` go through f64 where the adapter has it (without `fast_math` only: an accuracy
choice, not one about NaN). A literal operand is never NaN and gets no test.
"""

from __future__ import annotations

import math
import re

from tistudio.backends.webgpu import wgsl
from tistudio.ir import statements as s
from tistudio.ir.ops import AtomicOpType
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.stmt import Stmt, walk
from tistudio.ir.types import PrimitiveType

_BOOL = PrimitiveType("u1", 1, "bool")
_F32 = PrimitiveType("f32", 32, "float")
_LITERAL = re.compile(r"-?[0-9][0-9.e+-]*(f|lf|h)")  # finite: inf and NaN are bitcasts
_FINITE_LITERAL = re.compile(rf"{_LITERAL.pattern}|c[0-9]+")  # or an `opaque` constant
_ZERO_LITERAL = re.compile(r"-?0\.0(f|lf)")
# per float width: the bits of +0.0, -0.0 and 1.0 (f16's in a u32, for unpack2x16float)
_ZERO_BITS = {
    16: ("0u", "0x8000u", "0x3c00u"),
    32: ("0u", "0x80000000u", "0x3f800000u"),
    64: ("0lu", "0x8000000000000000lu", "0x3ff0000000000000lu"),
}
# per float width: a word of its width that is 0 at run time and unknown to drivers (ti_zero)
_ZERO_WORD = {32: "ti_zero", 64: "u64(ti_zero)"}
# per float width: the unsigned word of its bits, the sign bit, the bits of +infinity
_WORD = {
    32: ("u32", "0x80000000u", "0x7f800000u"),
    64: ("u64", "0x8000000000000000lu", "0x7ff0000000000000lu"),
}


def opaque(literal: str, dtype: PrimitiveType) -> str | None:
    """A finite float constant as a value drivers cannot fold (None: keep the literal).
    They reassociate constants (lavapipe made `(x + 1e30) - 1e30` x and `(x * 1e30) * 1e-30`
    x, where the CPU gives 0 and inf) and fold `x * 0.0` to 0; `ti_never` is false at run
    time (`num_workgroups.y == 0`), which no compiler can know."""
    if not dtype.is_float or not _LITERAL.fullmatch(literal):
        return None
    if re.fullmatch(r"-?0\.0(f|lf|h)", literal):
        # zeros too (lavapipe knew `floor(0.0h)` was 0 and made `0 * inf` 0, not NaN), on the
        # bits: a `select` of two float constants lost the sign of -0.0
        plus, minus, one = _ZERO_BITS[dtype.bits]
        word = f"select({minus if literal.startswith('-') else plus}, {one}, ti_never)"
        if dtype.name == "f16":
            return f"f16(unpack2x16float({word}).x)"
        return f"bitcast<{wgsl.WGSL_TYPE[dtype.name]}>({word})"
    if dtype.name == "f16":
        return None  # f16 constants stay literals: NVIDIA's driver then kept f16's rounding
    return f"select({literal}, {wgsl.zero(dtype)}, ti_never)"


def contractible_products(task: Stmt) -> set[Stmt]:
    """The float products of `task` that an addition or subtraction consumes. Drivers fuse
    such a pair into one fused multiply-add, rounded once: NVIDIA's Vulkan driver (580) did so
    for 15297 of 65536 random f32 `a * b + c` (and f16), whatever `let`s or conversions stood
    between, where the CPU rounds the product first (the contract); `uncontracted` hides them."""
    found = set()
    for stmt in (x for block in task.blocks() for x in walk(block)):
        if isinstance(stmt, s.BinaryOp) and stmt.op in (B.add, B.sub):
            operands = (stmt.lhs, stmt.rhs)
        elif isinstance(stmt, s.AtomicOp) and stmt.op in (AtomicOpType.add, AtomicOpType.sub):
            operands = (stmt.val,)
        else:
            continue
        found.update(
            x
            for x in operands
            if isinstance(x, s.BinaryOp) and x.op is B.mul and x.ret_type.name in ("f32", "f64")
        )
    return found


def uncontracted(product: str, dtype: PrimitiveType) -> str:
    """`product` as a value no driver fuses with the addition that uses it: a `select` on
    `ti_never` (see `opaque`), which NVIDIA's driver did not see through, where a `let`, a
    bit cast there and back and an f16 -> f32 -> f16 round trip did not stop the fusion.
    (f16 products need none: every f16 result is rounded through its bits, wgsl.through_f32.)"""
    return f"select({product}, {wgsl.zero(dtype)}, ti_never)"


def binary(
    op: B, dtype: PrimitiveType, a: str, b: str, f64: bool = False, fast: bool = False
) -> str | None:
    """`a op b` with IEEE semantics, or None where `wgsl.binary` already has them; `f64`: the
    adapter has `shader-f64`, which f32 division rounds through (`rounding.py`); `fast`
    (`fast_math`): a division by a value that is not a literal is the driver's (see
    `_division`)."""
    if not dtype.is_float:
        return None
    if op.is_comparison:
        return _compare(op, dtype, a, b)
    if dtype.name == "f16" and op in (B.add, B.mul, B.sub, B.div, B.truediv):
        return _f16_binary(op, a, b, f64, fast)
    if dtype.name != "f16" and (op is B.mul or (op is B.sub and a == b)):
        return _folded_to_zero(op, dtype, a, b)
    if dtype.name != "f16" and op in (B.div, B.truediv):
        return _division(dtype, a, b, f64, fast)
    if dtype.name != "f16" and op is B.sub and not _LITERAL.fullmatch(b):
        # a + (-b) is a - b in IEEE; with the sign flipped on the bits, drivers cannot cancel
        # `(x + y) - x` to y, or `x + (-x)` to 0
        # (and `x - x` once the driver's CSE finds the operands equal: hidden as for `/`)
        return f"({a} + neg_{wgsl.WGSL_TYPE[dtype.name]}({uncontracted(b, dtype)}))"
    if op in (B.pow, B.mod):
        name = "pow" if op is B.pow else "fmod"
        if dtype.name == "f16":  # through f32, as wgsl.py computes f16 pow
            return wgsl.through_f32(f"ti_{name}_ieee_f32(f32({a}), f32({b}))")
        return f"ti_{name}_ieee_{wgsl.WGSL_TYPE[dtype.name]}({a}, {b})"
    return None


def _f16_binary(op: B, a: str, b: str, f64: bool, fast: bool = False) -> str | None:
    """f16 `+ - * /`: in f32, with the f32 rules for NaN, zeros and signs, rounded back
    (`wgsl.through_f32`: f32 holds the exact result, so the bits are f16's)."""
    a32, b32 = _as_f32(a), _as_f32(b)
    wide = binary(op, _F32, a32, b32, f64, fast) or wgsl.binary(op, _F32, a32, b32)
    return wgsl.through_f32(wide)


def _division(dtype: PrimitiveType, a: str, b: str, f64: bool, fast: bool = False) -> str | None:
    """`a / b` where drivers fold: `0.0 / x`, `x / x` and, once NVIDIA's driver's own CSE
    finds two operands equal, any `x / y` (NaN / NaN gave 1): a divisor it cannot see through
    keeps the division. An f32 quotient is rounded once through f64 where the adapter has it
    (`rounding.py`: NVIDIA's was 2.5 ulp off), unless the divisor is a literal power of two;
    a literal zero divisor is `wgsl.py`'s (`x / 0.0` spelled out). With `fast` (`fast_math`,
    Taichi's default) a divisor that is not a literal gets the driver's quotient, within
    WGSL's 2.5 ulp: the f64 route cost n-body, a division per pair, 6x on an H200. A literal
    divisor keeps the rounded quotient (`a / 255.0` stays exact: `u8(255 / 255.0)` is 1)."""
    if _ZERO_LITERAL.fullmatch(a):
        return _zero_divided(dtype, a, b)
    if a == b and not _LITERAL.fullmatch(a):
        return _self_divided(dtype, a)
    rounded = f64 and dtype.name == "f32"
    if not _FINITE_LITERAL.fullmatch(b):
        rounded = rounded and not fast
        by_zero = _divided_by_zero(dtype, a, b)
        hidden = uncontracted(b, dtype)
        quotient = f"ti_div_rn_f32({a}, {hidden})" if rounded else f"{a} / {hidden}"
        return f"select({quotient}, {by_zero}, {is_zero(dtype, b)})"
    if rounded and not _ZERO_LITERAL.fullmatch(b) and not _power_of_two(b):
        return f"ti_div_rn_f32({a}, {b})"
    return None


def _power_of_two(literal: str) -> bool:
    """Whether a float literal is ±2^k (a division by it is exact: the driver's is right)."""
    value = re.fullmatch(r"(-?[0-9][0-9.e+-]*)(f|lf|h)", literal)
    return value is not None and math.frexp(float(value[1]))[0] in (0.5, -0.5)


def _divided_by_zero(dtype: PrimitiveType, a: str, b: str) -> str:
    """`a / b` for a zero `b`, on the bits: an infinity whose sign is the signs' exclusive or,
    NaN for a zero or NaN `a`. lavapipe gave 0 for `f32(x) / f32(x - x)` at run time (the
    divisor a zero it did not see coming), where the CPU gives the infinity."""
    reg = wgsl.WGSL_TYPE[dtype.name]
    u, sign, inf = _WORD[dtype.bits]
    infinity = f"bitcast<{reg}>(((bitcast<{u}>({a}) ^ bitcast<{u}>({b})) & {sign}) | {inf})"
    undefined = f"({is_zero(dtype, a)} || {is_nan(dtype, a)})"
    return f"select({infinity}, {wgsl.literal(math.nan, dtype)}, {undefined})"


def _as_f32(x: str) -> str:
    """An f16 operand as f32: a literal stays a literal (`0.5h` -> `0.5f`), so the f32 rules
    still see a constant zero."""
    literal = re.fullmatch(r"(-?[0-9][0-9.e+-]*)h", x)
    return f"{literal[1]}f" if literal else f"f32({x})"


def _folded_to_zero(op: B, dtype: PrimitiveType, a: str, b: str) -> str | None:
    """`x * 0.0` and `x - x` as IEEE defines them (NaN for an infinite or NaN x, else a zero):
    drivers fold both to 0 (lavapipe does), so `inf * 0.0` was 0 where the CPU gives NaN."""
    reg = wgsl.WGSL_TYPE[dtype.name]
    if op is B.sub:
        zero_ = _opaque_zero(dtype)
        x = a
    elif _ZERO_LITERAL.fullmatch(b) or _ZERO_LITERAL.fullmatch(a):
        x, c = (a, b) if _ZERO_LITERAL.fullmatch(b) else (b, a)
        zero_ = _signed_zero(dtype, x, flip=c.startswith("-"))  # the product's zero
    else:
        return None
    return f"select({zero_}, {wgsl.literal(math.nan, dtype)}, nonfinite_{reg}({x}))"


def _zero_divided(dtype: PrimitiveType, zero: str, x: str) -> str:
    """`0.0 / x` as IEEE defines it (NaN for a zero or NaN x, else a zero whose sign is the
    two signs' exclusive or): lavapipe folds `0.0 / x` to 0, so `0.0 / 0.0` was 0 where the
    CPU gives NaN (found by `tests.fuzz.campaign --gpu`; `-0.0 / x` was not folded)."""
    signed = _signed_zero(dtype, x, flip=zero.startswith("-"))
    undefined = f"({is_zero(dtype, x)} || {is_nan(dtype, x)})"
    return f"select({signed}, {wgsl.literal(math.nan, dtype)}, {undefined})"


def _signed_zero(dtype: PrimitiveType, x: str, flip: bool) -> str:
    """A zero with the sign of `x` (flipped if `flip`), made on the bits: NVIDIA's driver
    (580) gave -0.0 for `select(0.0f, -0.0f, c)` whatever `c` was (a constant pool where the
    two zeros are one), so `1.0 * 0.0` came out -0.0. Opaque as `_opaque_zero`."""
    u, sign, _ = _WORD[dtype.bits]
    bits = f"(bitcast<{u}>({x}) & {sign})"
    reg = wgsl.WGSL_TYPE[dtype.name]
    hidden = f"{sign} ^ {_ZERO_WORD[dtype.bits]}" if flip else _ZERO_WORD[dtype.bits]
    return f"bitcast<{reg}>({bits} ^ {hidden})"


def _opaque_zero(dtype: PrimitiveType) -> str:
    """+0.0 from `ti_zero`'s bits (0 at run time): a zero result the emitter spells out (of
    `x - x`, `x * 0.0`) must not be a constant the driver sees, or it folds the product that
    uses it: NVIDIA's driver (580, H100) made `(y * -inf) * (a - a)` 0, not NaN, for an
    integer `a` converted to f32 (it proved `a - a`'s NaN arm dead, since such an `a` is
    finite, and then `v * 0.0` 0; findings-2026-11-27/fixed_zero_folds_product.py)."""
    return f"bitcast<{wgsl.WGSL_TYPE[dtype.name]}>({_ZERO_WORD[dtype.bits]})"


def _self_divided(dtype: PrimitiveType, x: str) -> str:
    """`x / x` as IEEE defines it: 1, but NaN for a zero, infinite or NaN x; NVIDIA's driver
    folded it to 1 (NaN / NaN gave 1)."""
    reg = wgsl.WGSL_TYPE[dtype.name]
    undefined = f"(nonfinite_{reg}({x}) || {is_zero(dtype, x)})"
    return f"select({wgsl.literal(1.0, dtype)}, {wgsl.literal(math.nan, dtype)}, {undefined})"


def _compare(op: B, dtype: PrimitiveType, a: str, b: str) -> str:
    """Ordered comparisons are false and `!=` is true when an operand is NaN, as in C."""
    plain = wgsl.WGSL_BINARY[op].format(a=a, b=b)[1:-1]
    nans = [is_nan(dtype, x) for x in (a, b) if not _FINITE_LITERAL.fullmatch(x)]
    if not nans:
        return f"({plain})"
    if op is B.cmp_ne:
        return f"({plain} || {' || '.join(nans)})"
    return f"({plain} && !{' && !'.join(nans)})"


def is_zero(dtype: PrimitiveType, x: str) -> str:
    """A WGSL test for +-0.0 on the bits of `x` (f32, f64): a float `x == 0.0` may hold for a
    NaN `x` where a driver applies WGSL's no-NaN assumption (suspected first for the H200
    campaign's `inf / NaN`, which came from a dropped NaN constant instead: wgsl.opaque_bits)."""
    u, sign, _ = _WORD[dtype.bits]
    return f"((bitcast<{u}>({x}) & ~{sign}) == {_ZERO_BITS[dtype.bits][0]})"


def is_nan(dtype: PrimitiveType, x: str) -> str:
    """A WGSL test for NaN on the bits of `x` (see `NAN_HELPERS`)."""
    return f"nan_{wgsl.WGSL_TYPE[dtype.name]}({x})"


def unary(
    op: U, src: PrimitiveType, dst: PrimitiveType, x: str, f64: bool = False, exact: bool = False
) -> str | None:
    """`op x` with IEEE semantics, or None where `wgsl.unary` already has them; `f64`: the
    adapter has `shader-f64`, which `exact` (without fast_math) f32 `sqrt`, reciprocals
    (rounded: `rounding.py`), `sin`, `cos` and `tan` go through; with fast_math they are the
    driver's, as a division by a variable is (`_division`)."""
    if not src.is_float:
        return None
    if op in (U.sin, U.cos, U.tan) and src.name == "f32" and f64 and exact:
        return f"ti_{op.value}_ieee_f32({x})"
    if op is U.cast_value and dst.kind == "bool":  # NaN is true, as in C
        return f"({x} != {wgsl.zero(src)} || {is_nan(src, x)})"
    if op is U.logic_not:  # `not NaN` is false: NaN is not zero
        test = f"({x} == {wgsl.zero(src)} && !{is_nan(src, x)})"
        return wgsl.cast_value(_BOOL, dst, test)
    if op is U.neg and src.name != "f16":  # see `binary`: a sign flip drivers cannot fold
        return f"neg_{wgsl.WGSL_TYPE[src.name]}({x})"
    if op is U.sgn:
        return f"select(sign({x}), {wgsl.zero(src)}, {is_nan(src, x)})"
    if f64 and exact and op in (U.sqrt, U.rsqrt, U.inv, U.rcp) and src.name in ("f16", "f32"):
        return _rounded_unary(op, src, x)
    return None


def _rounded_unary(op: U, src: PrimitiveType, x: str) -> str:
    """`sqrt`, `1 / sqrt` and `1 / x` rounded once per operation through f64, as the CPU
    computes them (`rounding.py`; f16 through f32, which holds f16's exact root and quotient)."""
    if src.name == "f16":
        return wgsl.through_f32(_rounded_unary(op, _F32, _as_f32(x)))
    root = f"ti_sqrt_rn_f32({x})"
    if op is U.sqrt:
        return root
    quotient = _division(_F32, "1.0f", root if op is U.rsqrt else x, f64=True)
    assert quotient is not None  # the divisor is not a literal
    return quotient


def _to_f32(text: str) -> str:
    """The f64 text of a helper as f32 (its constants are exact in both)."""
    text = text.replace("0x7ff0000000000000lu", "0x7f800000u")
    text = text.replace("0x7ff8000000000000lu", "0x7fc00000u").replace("ti_trunc_f64", "trunc")
    return text.replace("f64", "f32").replace("lf", "f")


_POW_F64 = """fn ti_pow_ieee_f64(x: f64, y: f64) -> f64 {
    // C's pow where WGSL's is undefined: NaN, zeros and infinities (x ** 0 == 1 ** y == 1)
    if (y == 0.0lf || x == 1.0lf) { return 1.0lf; }
    if (nan_f64(x) || nan_f64(y)) { return x + y; }
    let odd = ti_trunc_f64(y) == y && ti_trunc_f64(0.5lf * y) != 0.5lf * y;
    let ax = abs(x);
    let inf = bitcast<f64>(0x7ff0000000000000lu);
    if (inf_f64(y)) {
        if (ax == 1.0lf) { return 1.0lf; }
        return select(0.0lf, inf, (ax > 1.0lf) == (y > 0.0lf));
    }
    if (ax == 0.0lf || inf_f64(x)) {
        let m = select(0.0lf, inf, (ax == 0.0lf) == (y < 0.0lf));
        return select(m, -m, odd && signbit_f64(x));
    }
    return ti_pow_f64(x, y);
}"""

_FMOD_F64 = """fn ti_fmod_ieee_f64(x: f64, y: f64) -> f64 {
    // C's fmod, exact (WGSL's % is x - y trunc(x / y), with a rounded quotient): subtract
    // |y| 2^k for k from the largest with |y| 2^k <= |x| down to 0; t <= r < 2t each time, so
    // every r - t is exact (Sterbenz), and doubling and halving t are too
    let ay = abs(y);
    if (nan_f64(x) || nan_f64(y) || inf_f64(x) || ay == 0.0lf) {
        return bitcast<f64>(0x7ff8000000000000lu);
    }
    var r = abs(x);
    if (!(r >= ay)) { return x; }  // also for an infinite y
    var t = ay;
    while (t * 2.0lf <= r) { t = t * 2.0lf; }
    loop {
        if (r >= t) { r = r - t; }
        if (t == ay) { break; }
        t = t * 0.5lf;
    }
    return select(r, -r, signbit_f64(x));
}"""

_CLASSIFY_F64 = {
    "nan_f64": """fn nan_f64(x: f64) -> bool {
    // on the bits: drivers may fold `x != x` to false
    return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}""",
    "inf_f64": """fn inf_f64(x: f64) -> bool {
    return (bitcast<u64>(x) & 0x7ffffffffffffffflu) == 0x7ff0000000000000lu;
}""",
    "nonfinite_f64": """fn nonfinite_f64(x: f64) -> bool {
    return (bitcast<u64>(x) & 0x7ff0000000000000lu) == 0x7ff0000000000000lu;
}""",
    "neg_f64": """fn neg_f64(x: f64) -> f64 {
    return bitcast<f64>(bitcast<u64>(x) ^ 0x8000000000000000lu);
}""",
    "signbit_f64": """fn signbit_f64(x: f64) -> bool {
    return (bitcast<u64>(x) >> 63u) == 1lu;
}""",
}
_CLASSIFY_F32 = {
    "nan_f32": """fn nan_f32(x: f32) -> bool {
    // on the bits: drivers may fold `x != x` to false
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}""",
    "inf_f32": """fn inf_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}""",
    "nonfinite_f32": """fn nonfinite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}""",
    "neg_f32": """fn neg_f32(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u);
}""",
    "signbit_f32": """fn signbit_f32(x: f32) -> bool {
    return (bitcast<u32>(x) >> 31u) == 1u;
}""",
    "nan_f16": """fn nan_f16(x: f16) -> bool {
    return nan_f32(f32(x));
}""",
}

# WGSL promises sin, cos and tan only on [-pi, pi]; lavapipe's are off by up to 2 from 2^20 on
# and NVIDIA's by more than 2e-7 well below it, where libm is exact: without fast_math the f64
# functions (with their exact reduction) serve every argument
_TRIG_F32 = """fn ti_FN_ieee_f32(x: f32) -> f32 {
    return f32(ti_FN_f64(f64(x)));
}"""

# helper functions by name; the emitter adds those an expression calls
IEEE_HELPERS = {
    **_CLASSIFY_F32,
    **_CLASSIFY_F64,
    "ti_pow_ieee_f64": _POW_F64,
    "ti_pow_ieee_f32": _to_f32(_POW_F64),
    "ti_fmod_ieee_f64": _FMOD_F64,
    "ti_fmod_ieee_f32": _to_f32(_FMOD_F64),
    **{f"ti_{fn}_ieee_f32": _TRIG_F32.replace("FN", fn) for fn in ("sin", "cos", "tan")},
}
