"""`ti.types.quant`: the factories of quantized types, `int`, `fixed` and `float`.

They describe numbers stored in a few bits (the types themselves are in `ir/quant.py`, where
the compiler reads them); a field of such a type is placed with `ti.BitpackedFields` or
`snode.quant_array` (`lang/bitpacked.py`). The names shadow Python's `int` and `float` inside
this module, as in Taichi's `taichi.types.quant`, so Python's own are `builtins.int`/`float`.
"""

from __future__ import annotations

import builtins
from typing import Any

from tistudio.ir.quant import QuantFixed, QuantFloat, QuantInt
from tistudio.ir.types import PrimitiveType, i32, unsigned_of
from tistudio.lang import impl
from tistudio.lang.types import to_dtype


def int(bits: builtins.int, signed: bool = True, compute: Any = None) -> QuantInt:  # noqa: A001
    """A `bits`-bit integer, computed with `compute` (default: `ti.init`'s default_ip, or its
    unsigned twin when `signed` is False)."""
    if compute is None:
        ip = impl.current_config().default_ip
        compute = ip if signed else unsigned_of(ip)
    return QuantInt(_bits(bits), builtins.bool(signed), _compute(compute))


def fixed(
    bits: builtins.int,
    signed: bool = True,
    max_value: builtins.float = 1.0,
    compute: Any = None,
    scale: builtins.float | None = None,
) -> QuantFixed:
    """A fixed-point number of `bits` bits: the integer times `scale` (which, when not given,
    makes the range [-max_value, max_value), or [0, max_value) when unsigned)."""
    if compute is None:
        compute = impl.current_config().default_fp
    if scale is None:
        scale = max_value / 2 ** (bits - 1) if signed else max_value / 2**bits
    digits = QuantInt(_bits(bits), builtins.bool(signed), i32)
    return QuantFixed(digits, _compute(compute), builtins.float(scale))


def float(  # noqa: A001
    exp: builtins.int, frac: builtins.int, signed: bool = True, compute: Any = None
) -> QuantFloat:
    """A float of `exp` exponent bits and `frac` digit bits (the sign among them when
    `signed`); it computes as f32."""
    if compute is None:
        compute = impl.current_config().default_fp
    compute = _compute(compute)
    if compute.name != "f32":
        raise NotImplementedError("quant floats compute as f32 only (as in Taichi)")
    exponent = QuantInt(_bits(exp), False, i32)
    return QuantFloat(exponent, QuantInt(_bits(frac), builtins.bool(signed), i32), compute)


def _bits(bits: Any) -> builtins.int:
    if not isinstance(bits, builtins.int) or not 1 <= bits <= 64:
        raise ValueError(f"a quant type has 1 to 64 bits, got {bits!r}")
    return bits


def _compute(dtype: Any) -> PrimitiveType:
    return to_dtype(dtype)
