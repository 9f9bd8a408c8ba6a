"""Storing a quant float that shares its exponent with its siblings (`shared_exponent=True`).

Floats placed together with `BitpackedFields.place(a, b, shared_exponent=True)` keep one
exponent: the largest of theirs. Storing one of them therefore re-encodes all of them: the
others are decoded from the word, the exponent becomes the largest of the new values', and
each value's digits (with its leading 1 written out) are shifted right by how much smaller its
own exponent is, then rounded to the digits kept. Small values lose precision, or flush to
zero. This follows Taichi 1.7's `store_quant_floats_with_shared_exponents`.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.quant import QuantFloat
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import u32
from tistudio.passes.quant_codec import Codec


def exponent_users(snode: SNode) -> list[SNode]:
    """The quant floats that share `snode`'s exponent (itself included), in placing order."""
    assert snode.parent is not None
    return [
        c
        for c in snode.parent.children
        if c.shared_exponent and c.exponent_bit_offset == snode.exponent_bit_offset
    ]


def encode_shared(codec: Codec, old: Stmt, snode: SNode, value: Stmt) -> Stmt:
    """Word `old` with `snode` set to `value` and its exponent's users re-encoded."""
    users = exponent_users(snode)
    floats = [value if u is snode else codec.decode(old, u, codec.at(u.bit_offset)) for u in users]
    bits = [codec.cast(f, u32, bits=True) for f in floats]
    exponents = [codec.f32_exponent(b) for b in bits]
    largest = exponents[0]
    for e in exponents[1:]:
        largest = codec.op(B.max, largest, e)
    first = users[0].quant
    assert isinstance(first, QuantFloat)
    exp_at = codec.at(snode.exponent_bit_offset)
    stored = codec.cast(codec.stored_exponent(largest, first), codec.word)
    word = codec.op(B.bit_shl, stored, exp_at)
    mask = codec.mask(exp_at, first.exponent.bits)
    for user, f32_bits, exponent in zip(users, bits, exponents):
        q = user.quant
        assert isinstance(q, QuantFloat)
        digits = _digits(codec, f32_bits, exponent, largest, q)
        at = codec.at(user.bit_offset)
        word = codec.op(B.bit_or, word, codec.op(B.bit_shl, codec.cast(digits, codec.word), at))
        mask = codec.op(B.bit_or, mask, codec.mask(at, q.bits))
    return codec.merge(old, word, mask)


def _digits(codec: Codec, f32_bits: Stmt, exponent: Stmt, largest: Stmt, q: QuantFloat) -> Stmt:
    """The digits of one float under the shared exponent `largest`, rounded to nearest."""
    shift = codec.op(B.min, codec.op(B.sub, largest, exponent), 31)
    full = codec.op(B.bit_or, codec.op(B.bit_and, f32_bits, (1 << 23) - 1), 1 << 23)
    digits = codec.op(B.bit_shr, full, shift)
    right = 24 - q.digit_bits  # the leading 1 is kept: 24 bits, not 23
    digits = codec.op(B.add, digits, 1 << (right - 1))
    digits = codec.op(B.min, digits, (1 << 24) - 1)  # no overflow
    digits = codec.op(B.bit_shr, digits, right)
    if q.signed:
        sign = codec.op(B.bit_and, f32_bits, 0x80000000)
        digits = codec.op(B.bit_or, digits, codec.op(B.bit_shr, sign, 31 - q.digit_bits))
    return digits
