"""`ti.random(dtype)` and `ti.randn(dtype)` inside kernels, built on one IR statement.

The IR has a single random statement, `Rand`, which gives a uniform `u32` (see
`ir/random.py` for how). Everything else is ordinary arithmetic written here, so the back ends
and passes see only operations they already know:

- a float in [0, 1) takes the top `m` bits of one draw (two for `f64`), where `m` is the
  type's significand width, and scales them by `2**-m`: every value is exact and below 1;
- an integer is a draw (two for 64 bits) reinterpreted, so it covers the type's whole range,
  as Taichi's does;
- `randn` is the Box-Muller transform of two uniforms, `sqrt(-2 log(1 - u)) cos(2 pi v)`,
  with `1 - u` in (0, 1] so the logarithm is finite.
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiTypeError
from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.types import PrimitiveType, f64, u32, u64

_SIGNIFICAND_BITS = {16: 11, 32: 24, 64: 53}


def _draw(loc: Any) -> fe.Expr:
    return fe.RandExpr(dtype=u32, loc=loc)


def _top_bits(t: Any, loc: Any, bits: int, dtype: PrimitiveType) -> Any:
    """The top `bits` (at most 32) of a new draw, as a value of `dtype`."""
    shifted = t.ops.binary(BinaryOpType.bit_shr, _draw(loc), t.ops.const(32 - bits, loc, u32), loc)
    return t.ops.cast(shifted, dtype, loc)


def uniform_float(t: Any, loc: Any, dtype: PrimitiveType) -> Any:
    """A uniform value of the float type `dtype` in [0, 1)."""
    bits = _SIGNIFICAND_BITS[dtype.bits]
    if bits <= 32:
        value = _top_bits(t, loc, bits, dtype)
    else:  # f64: 26 high bits, then 27 low bits, of two draws
        high = _top_bits(t, loc, bits - 27, f64)
        low = _top_bits(t, loc, 27, f64)
        value = t.ops.binary(
            BinaryOpType.add, t.ops.binary(BinaryOpType.mul, high, 2.0**27, loc), low, loc
        )
    return t.ops.binary(BinaryOpType.mul, value, t.ops.const(2.0**-bits, loc, dtype), loc)


def uniform_int(t: Any, loc: Any, dtype: PrimitiveType) -> Any:
    """A value of the integer type `dtype`, uniform over all of its values."""
    if dtype.bits < 32:  # the low bits of a draw
        return t.ops.cast(_draw(loc), dtype, loc)
    if dtype.bits == 32:
        return _draw(loc) if dtype == u32 else t.ops.cast(_draw(loc), dtype, loc, bits=True)
    high = t.ops.cast(_draw(loc), u64, loc)
    low = t.ops.cast(_draw(loc), u64, loc)
    shifted = t.ops.binary(BinaryOpType.bit_shl, high, t.ops.const(32, loc, u64), loc)
    value = t.ops.binary(BinaryOpType.bit_or, shifted, low, loc)
    return value if dtype == u64 else t.ops.cast(value, dtype, loc, bits=True)


def random(t: Any, loc: Any, dtype: Any = float) -> Any:
    """`ti.random(dtype)`: uniform in [0, 1) for a float type, over the whole type for an
    integer type."""
    target = t.resolve_dtype(dtype, loc)
    if target.is_float:
        return uniform_float(t, loc, target)
    if target.kind in ("int", "uint"):
        return uniform_int(t, loc, target)
    raise TaichiTypeError(f"ti.random() cannot make a {target}", loc)


def randn(t: Any, loc: Any, dtype: Any = None) -> Any:
    """`ti.randn(dtype)`: a standard normal value of a float type (the default float type
    when none is given)."""
    target = t.resolve_dtype(float if dtype is None else dtype, loc)
    if not target.is_float:
        raise TaichiTypeError(f"ti.randn() makes floats, not {target}", loc)
    ops = t.ops
    u = ops.binary(
        BinaryOpType.sub, ops.const(1.0, loc, target), uniform_float(t, loc, target), loc
    )
    v = uniform_float(t, loc, target)
    log = ops.unary(UnaryOpType.log, u, loc)
    radius = ops.unary(
        UnaryOpType.sqrt, ops.binary(BinaryOpType.mul, log, ops.const(-2.0, loc, target), loc), loc
    )
    angle = ops.binary(BinaryOpType.mul, v, ops.const(math.tau, loc, target), loc)
    return ops.binary(BinaryOpType.mul, radius, ops.unary(UnaryOpType.cos, angle, loc), loc)
