"""f16 <-> f32 conversions for CPUs without F16C: the two functions LLVM calls there.

On an x86-64 CPU without F16C (or a target made without it, `JitEngine(features=...)`), LLVM
does f16 arithmetic in f32 and rounds after every operation by calling `__extendhfsf2` and
`__truncsfhf2`, which libgcc (GCC 12 and later) and compiler-rt provide but which this process
need not have loaded: the JIT linked the calls to address 0, and the first f16 kernel crashed.
So the engine defines them itself (`JitEngine.__init__`), with integer operations only. They
give what F16C's `vcvtph2ps` / `vcvtps2ph` give: exact widening, narrowing rounded to nearest
even, overflow to infinity, and NaNs quieted with the top of their payload kept.
"""

from __future__ import annotations

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32

EXTEND, TRUNCATE = "__extendhfsf2", "__truncsfhf2"
FUNCTIONS = [EXTEND, TRUNCATE]
I16 = ir.IntType(16)


def build_half_module() -> ir.Module:
    """A module defining `__extendhfsf2(half) -> float` and `__truncsfhf2(float) -> half`."""
    module = ir.Module(name="tistudio_half")
    _extend(_function(module, EXTEND, ir.FLOAT, ir.HALF))
    _truncate(_function(module, TRUNCATE, ir.HALF, ir.FLOAT))
    return module


def _function(module: ir.Module, name: str, ret: ir.Type, arg: ir.Type) -> ir.IRBuilder:
    function = ir.Function(module, ir.FunctionType(ret, [arg]), name)
    function.attributes.append("nounwind")
    return ir.IRBuilder(function.append_basic_block("entry"))


def _c(value: int) -> ir.Constant:
    return ir.Constant(I32, value)


def _extend(b: ir.IRBuilder) -> None:
    """Every f16 is an f32: rebias the exponent (15 -> 127), move the fraction up 13 bits."""
    h = b.zext(b.bitcast(b.block.function.args[0], I16), I32)
    sign = b.shl(b.and_(h, _c(0x8000)), _c(16))
    exponent = b.and_(b.lshr(h, _c(10)), _c(0x1F))
    fraction = b.and_(h, _c(0x3FF))
    normal = b.or_(b.shl(b.add(exponent, _c(127 - 15)), _c(23)), b.shl(fraction, _c(13)))
    # a subnormal is fraction * 2**-24, exact in f32 (zero included)
    tiny = b.fmul(b.uitofp(fraction, ir.FLOAT), ir.Constant(ir.FLOAT, 2.0**-24))
    is_nan = b.icmp_unsigned("!=", fraction, _c(0))
    quiet = b.select(is_nan, _c(0x400000), _c(0))
    special = b.or_(b.or_(_c(0x7F800000), b.shl(fraction, _c(13))), quiet)  # inf, NaN
    magnitude = b.select(b.icmp_unsigned("==", exponent, _c(0x1F)), special, normal)
    magnitude = b.select(b.icmp_unsigned("==", exponent, _c(0)), b.bitcast(tiny, I32), magnitude)
    b.ret(b.bitcast(b.or_(sign, magnitude), ir.FLOAT))


def _truncate(b: ir.IRBuilder) -> None:
    """Round an f32 to the nearest f16, ties to even."""
    x = b.bitcast(b.block.function.args[0], I32)
    sign = b.and_(b.lshr(x, _c(16)), _c(0x8000))
    a = b.and_(x, _c(0x7FFFFFFF))
    # normal f16: rebias, then add just under half an f16 unit (plus one if the kept bit is odd,
    # which makes a tie round to even) and drop 13 bits; a carry moves into the exponent
    rebiased = b.sub(a, _c((127 - 15) << 23))
    odd = b.and_(b.lshr(rebiased, _c(13)), _c(1))
    normal = b.lshr(b.add(b.add(rebiased, _c(0xFFF)), odd), _c(13))
    subnormal = _round_subnormal(b, a)
    nan = b.or_(_c(0x7E00), b.and_(b.lshr(a, _c(13)), _c(0x3FF)))  # quiet, top of the payload
    result = b.select(b.icmp_unsigned(">=", a, _c(0x38800000)), normal, subnormal)  # >= 2**-14
    result = b.select(b.icmp_unsigned(">=", a, _c(0x477FF000)), _c(0x7C00), result)  # >= 65520
    result = b.select(b.icmp_unsigned(">", a, _c(0x7F800000)), nan, result)
    b.ret(b.bitcast(b.trunc(b.or_(sign, result), I16), ir.HALF))


def _round_subnormal(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """|x| < 2**-14 as a multiple of 2**-24, rounded to nearest even: the f32 significand
    (implicit bit included) shifted right by 126 - exponent, at most 25 (which gives 0)."""
    exponent = b.lshr(a, _c(23))
    significand = b.or_(b.and_(a, _c(0x7FFFFF)), _c(0x800000))
    shift = b.sub(_c(126), exponent)
    shift = b.select(b.icmp_unsigned(">", shift, _c(25)), _c(25), shift)
    kept = b.lshr(significand, shift)
    dropped = b.sub(significand, b.shl(kept, shift))
    half = b.shl(_c(1), b.sub(shift, _c(1)))
    above = b.icmp_unsigned(">", dropped, half)
    tie_to_odd = b.and_(b.icmp_unsigned("==", dropped, half), b.trunc(kept, ir.IntType(1)))
    return b.add(kept, b.zext(b.or_(above, tie_to_odd), I32))
