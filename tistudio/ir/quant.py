"""Quantized types: numbers stored in fewer bits than a machine type, as in Taichi's QuanTaichi.

A quantized value lives in a few bits of a bigger unsigned word (the *container*, an SNode of
kind `bit_struct` or `quant_array`, see `ir/snode.py`), and is computed with in an ordinary
*compute* type. Three kinds, Taichi's:

- `QuantInt(bits, signed)`: a two's-complement (or unsigned) integer of `bits` bits;
- `QuantFixed(digits, scale)`: a quant int `d` meaning the real number `d * scale`;
- `QuantFloat(exponent, digits)`: an unsigned exponent field and a digits field (sign bit
  included when signed) that assemble into an f32. Several floats may share one exponent.

These are plain descriptions; `passes/lower_quant.py` turns accesses into bit operations.
"""

from __future__ import annotations

from dataclasses import dataclass

from tistudio.ir.types import PrimitiveType, f32


@dataclass(frozen=True)
class QuantInt:
    """An integer of `bits` bits (`ti.types.quant.int(bits, signed, compute)`)."""

    bits: int
    signed: bool
    compute: PrimitiveType

    def __str__(self) -> str:
        return f"q{'i' if self.signed else 'u'}{self.bits}"

    @property
    def digits(self) -> QuantInt:
        return self


@dataclass(frozen=True)
class QuantFixed:
    """A fixed-point number: the quant int `digits` times `scale`."""

    digits: QuantInt
    compute: PrimitiveType
    scale: float

    def __str__(self) -> str:
        return f"qfx{'i' if self.digits.signed else 'u'}{self.digits.bits}<{self.scale:g}>"

    @property
    def bits(self) -> int:
        return self.digits.bits

    @property
    def signed(self) -> bool:
        return self.digits.signed


@dataclass(frozen=True)
class QuantFloat:
    """A float of `exponent.bits` exponent bits and `digits.bits` digit bits (one of them the
    sign when signed); it computes as f32."""

    exponent: QuantInt
    digits: QuantInt
    compute: PrimitiveType = f32

    def __str__(self) -> str:
        sign = "" if self.signed else "u"
        return f"qfl{sign}<e{self.exponent.bits},f{self.digits.bits}>"

    @property
    def signed(self) -> bool:
        return self.digits.signed

    @property
    def digit_bits(self) -> int:
        """Bits of the mantissa proper (the digits less the sign bit)."""
        return self.digits.bits - int(self.signed)

    @property
    def exponent_offset(self) -> int:
        """What to add to a stored exponent to get an f32's biased exponent (Taichi's
        `exponent_conversion_offset`: f32's bias 127 less this type's bias)."""
        return 127 - (1 << (self.exponent.bits - 1)) + 1

    @property
    def bits(self) -> int:
        return self.digits.bits


QuantType = QuantInt | QuantFixed | QuantFloat


def is_quant(dtype: object) -> bool:
    return isinstance(dtype, QuantInt | QuantFixed | QuantFloat)
