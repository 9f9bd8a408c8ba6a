"""Quantized values as bit operations on their container word (used by `lower_quant`).

A quant place is a slice of bits of an unsigned word (`ir/quant.py`). `Codec` appends to a list
the statements that take such a slice out of a word (`decode`) and that make the bits to put
back (`encode`), following Taichi 1.7's LLVM code generation bit for bit:

- int: shift the slice to the top of the word, then shift it down (arithmetically when
  signed), so the sign bit spreads; storing keeps the low bits (wrapping on overflow);
- fixed: the int times `scale`; storing rounds `value / scale` half away from zero;
- float: the exponent and the digits assemble an f32 (exponent re-biased, flushed to zero when
  it is 0); storing rounds the f32's mantissa to the digits kept, which may carry into the
  exponent. With a shared exponent, every member is stored with the largest exponent and
  digits shifted right to match (`encode_shared`).
"""

from __future__ import annotations

import numpy as np

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import TernaryOpType, UnaryOpType
from tistudio.ir.quant import QuantFixed, QuantFloat, QuantInt, QuantType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import BinaryOp, Const, TernaryOp, UnaryOp
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PrimitiveType, f32, i32, u1, u32


class Codec:
    """Builds statements into `out` for one container word of physical type `word_type`."""

    def __init__(self, out: list[Stmt], word_type: PrimitiveType) -> None:
        self.out, self.word = out, word_type

    # --- one statement each -----------------------------------------------------------------

    def emit(self, stmt: Stmt) -> Stmt:
        self.out.append(stmt)
        return stmt

    def const(self, value: int | float, dtype: PrimitiveType) -> Stmt:
        if dtype.is_float:
            value = float(np.dtype(dtype.numpy_name).type(value))
        return self.emit(Const(value, ret_type=dtype))

    def op(self, op: B, a: Stmt, b: Stmt | int) -> Stmt:
        if not isinstance(b, Stmt):
            b = self.const(b, a.ret_type)
        is_cmp = op.value.startswith("cmp_")
        return self.emit(BinaryOp(op, a, b, ret_type=u1 if is_cmp else a.ret_type))

    def cast(self, value: Stmt, dtype: PrimitiveType, bits: bool = False) -> Stmt:
        if value.ret_type == dtype:
            return value
        kind = UnaryOpType.cast_bits if bits else UnaryOpType.cast_value
        return self.emit(UnaryOp(kind, value, ret_type=dtype))

    def bit_not(self, value: Stmt) -> Stmt:
        return self.emit(UnaryOp(UnaryOpType.bit_not, value, ret_type=value.ret_type))

    def select(self, cond: Stmt, a: Stmt, b: Stmt) -> Stmt:
        return self.emit(TernaryOp(TernaryOpType.select, cond, a, b, ret_type=a.ret_type))

    # --- ints: the slice of bits ------------------------------------------------------------

    def extract(self, word: Stmt, offset: Stmt, q: QuantInt, to: PrimitiveType) -> Stmt:
        """Bits [offset, offset + q.bits) of `word` as an integer of type `to`."""
        width = self.word.bits
        left = self.op(B.sub, self.const(width - q.bits, self.word), offset)
        top = self.op(B.bit_shl, word, left)  # the slice's last bit is now the word's last
        if q.signed:
            signed = self.cast(top, _int(width), bits=True)
            value = self.op(B.bit_sar, signed, width - q.bits)
        else:
            value = self.op(B.bit_shr, top, width - q.bits)
        return self.cast(value, to)

    def place(self, value: Stmt, offset: Stmt, bits: int) -> Stmt:
        """The low `bits` bits of integer `value`, moved to `offset` in a word."""
        word = self.op(B.bit_and, self.cast(value, self.word), (1 << bits) - 1)
        return self.op(B.bit_shl, word, offset)

    def merge(self, old: Stmt, bits: Stmt, mask: Stmt) -> Stmt:
        """Word `old` outside `mask`, `bits` inside it."""
        kept = self.op(B.bit_and, old, self.bit_not(mask))
        return self.op(B.bit_or, kept, self.op(B.bit_and, bits, mask))

    def mask(self, offset: Stmt, bits: int) -> Stmt:
        return self.op(B.bit_shl, self.const((1 << bits) - 1, self.word), offset)

    # --- decode: word -> compute value ------------------------------------------------------

    def decode(self, word: Stmt, snode: SNode, offset: Stmt) -> Stmt:
        q = snode.quant
        if isinstance(q, QuantInt):
            return self.extract(word, offset, q, q.compute)
        if isinstance(q, QuantFixed):
            digits = self.extract(word, offset, q.digits, i32 if q.signed else u32)
            real = self.cast(digits, q.compute)
            return self.op(B.mul, real, self.const(q.scale, q.compute))
        assert isinstance(q, QuantFloat), f"{snode.ref()} has no quant type"
        exponent = self.extract(word, self.at(snode.exponent_bit_offset), q.exponent, u32)
        digits = self.extract(word, offset, q.digits, u32)
        return self.assemble_f32(digits, exponent, q, snode.shared_exponent)

    def at(self, bit: int) -> Stmt:
        return self.const(bit, self.word)

    def assemble_f32(self, digits: Stmt, exponent: Stmt, q: QuantFloat, shared: bool) -> Stmt:
        """Taichi's `reconstruct_quant_float`: an f32 from stored digits and exponent."""
        bias = self.const(q.exponent_offset, u32)
        exponent_is_zero = self.op(B.cmp_eq, exponent, 0)
        if q.exponent.bits < 8:  # a zero exponent stays zero (it was flushed when stored)
            bias = self.select(exponent_is_zero, self.const(0, u32), bias)
        digits = self.op(B.bit_and, digits, (1 << q.digits.bits) - 1)
        sign = None
        if shared:  # no implicit leading 1: normalise by the digits' own leading zeros
            if q.signed:
                sign = self.op(B.bit_and, digits, 1 << q.digit_bits)
                digits = self.op(B.bit_xor, digits, sign)
                sign = self.op(B.bit_shl, sign, 31 - q.digit_bits)
                digits = self.op(B.bit_shl, digits, 1)
            leading = self.emit(UnaryOp(UnaryOpType.clz, digits, ret_type=u32))
            extra = self.op(B.sub, self.const(31 - q.digit_bits, u32), leading)
            bias = self.op(B.add, bias, extra)
            if not q.signed:
                bias = self.op(B.add, bias, 1)
            shift = self.op(B.sub, self.const(23 - q.digit_bits, u32), extra)
            digits = self.op(B.bit_shl, digits, shift)
        else:
            digits = self.op(B.bit_shl, digits, 23 - q.digit_bits)
        fraction = self.op(B.bit_and, digits, (1 << 23) - 1)
        biased = self.op(B.bit_shl, self.op(B.add, exponent, bias), 23)
        bits = self.op(B.bit_or, biased, fraction)
        if shared:  # a zero exponent or zero digits: the value is 0
            zero = self.op(B.bit_or, exponent_is_zero, self.op(B.cmp_eq, digits, 0))
            bits = self.select(zero, self.const(0, u32), bits)
        if q.signed:
            if sign is None:
                sign = self.op(B.bit_shl, self.op(B.bit_and, digits, 1 << 23), 8)
            bits = self.op(B.bit_or, bits, sign)
        return self.cast(bits, f32, bits=True)

    # --- encode: compute value -> bits in place, with the mask of the bits they own ---------

    def encode(self, value: Stmt, snode: SNode, offset: Stmt) -> tuple[Stmt, Stmt]:
        """(bits at their place in the word, mask of the bits they replace)."""
        q = snode.quant
        if isinstance(q, QuantInt | QuantFixed):
            digits = self.digits_of(value, q)
            return self.place(digits, offset, q.bits), self.mask(offset, q.bits)
        assert isinstance(q, QuantFloat) and not snode.shared_exponent
        exp_at = self.at(snode.exponent_bit_offset)
        exponent, digits = self.split_f32(value, q)
        placed = self.op(B.bit_shl, self.cast(exponent, self.word), exp_at)  # not masked: Taichi
        placed = self.op(B.bit_or, placed, self.place(digits, offset, q.bits))
        mask = self.op(B.bit_or, self.mask(exp_at, q.exponent.bits), self.mask(offset, q.bits))
        return self.op(B.bit_and, placed, mask), mask

    def digits_of(self, value: Stmt, q: QuantInt | QuantFixed) -> Stmt:
        """The integer a quant int or fixed stores for compute value `value`."""
        if isinstance(q, QuantInt):
            return value
        scaled = self.op(B.mul, self.cast(value, q.compute), self.const(1.0 / q.scale, q.compute))
        negative = self.op(B.cmp_lt, scaled, self.const(0.0, q.compute))
        half = self.select(negative, self.const(-0.5, q.compute), self.const(0.5, q.compute))
        return self.cast(self.op(B.add, scaled, half), i32 if q.signed else u32)

    def f32_exponent(self, bits: Stmt) -> Stmt:
        return self.op(B.bit_and, self.op(B.bit_shr, bits, 23), 0xFF)

    def stored_exponent(self, exponent: Stmt, q: QuantFloat) -> Stmt:
        """An f32's biased exponent re-biased for `q`, at least 0 (Taichi's `max_i32`)."""
        nonzero = self.op(B.cmp_ne, exponent, 0)
        bias = self.select(nonzero, self.const(q.exponent_offset, i32), self.const(0, i32))
        stored = self.op(B.sub, self.cast(exponent, i32, bits=True), bias)
        return self.op(B.max, stored, self.const(0, i32))

    def split_f32(self, value: Stmt, q: QuantFloat) -> tuple[Stmt, Stmt]:
        """(stored exponent, digits) of f32 `value`, rounded to the nearest, zero flushed."""
        bits = self.cast(value, u32, bits=True)
        if q.digit_bits < 23:  # a carry out of the digits bumps the exponent, as it should
            bits = self.op(B.add, bits, 1 << (22 - q.digit_bits))
        exponent = self.stored_exponent(self.f32_exponent(bits), q)
        digits = self.op(B.bit_shr, bits, 23 - q.digit_bits)
        digits = self.op(B.bit_and, digits, (1 << q.digit_bits) - 1)
        if q.signed:
            sign = self.op(B.bit_and, bits, 0x80000000)
            digits = self.op(B.bit_or, digits, self.op(B.bit_shr, sign, 31 - q.digit_bits))
        nonzero = self.op(B.cmp_ne, exponent, self.const(0, i32))
        return exponent, self.select(nonzero, digits, self.const(0, u32))


def _int(bits: int) -> PrimitiveType:
    from tistudio.ir.types import TYPES_BY_NAME

    return TYPES_BY_NAME[f"i{bits}"]


def quant_of(snode: SNode) -> QuantType:
    assert snode.quant is not None, f"{snode.ref()} is not a quant place"
    return snode.quant
