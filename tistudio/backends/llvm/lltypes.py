"""IR types as LLVM types: the value type in registers and the type in memory.

They differ only for `u1`: an `i1` in registers, one byte (0 or 1) in memory, as NumPy stores
`bool`. `kind_of` folds `u1` into "uint" so operator tables need three kinds, not four.
"""

from __future__ import annotations

from tistudio.backends.llvm import llir as ir
from tistudio.ir.types import DataType, PointerType, PrimitiveType

_INTS = {bits: ir.IntType(bits) for bits in (1, 8, 16, 32, 64)}
_FLOATS = {16: ir.HALF, 32: ir.FLOAT, 64: ir.DOUBLE}
I1, I8, I32, I64 = _INTS[1], _INTS[8], _INTS[32], _INTS[64]
PTR = ir.PTR
VOID = ir.VOID


def value_type(dtype: DataType) -> ir.Type:
    """The LLVM type of a value of `dtype` in registers (pointers are opaque `ptr`)."""
    if isinstance(dtype, PointerType):
        return PTR
    assert isinstance(dtype, PrimitiveType), f"no LLVM type for {dtype}"
    if dtype.is_float:
        return _FLOATS[dtype.bits]
    return _INTS[dtype.bits]


def memory_type(dtype: PrimitiveType) -> ir.Type:
    """The LLVM type of `dtype` in memory: like `value_type`, but `u1` is a byte."""
    return I8 if dtype.kind == "bool" else value_type(dtype)


def kind_of(dtype: PrimitiveType) -> str:
    """The column of the operator tables: "int", "uint" or "float" (`u1` is unsigned)."""
    return "uint" if dtype.kind == "bool" else dtype.kind


def constant(dtype: PrimitiveType, value: int | float | bool) -> ir.Constant:
    """An LLVM constant of `dtype`; unsigned values are written in two's complement."""
    if dtype.is_float:
        return ir.Constant(value_type(dtype), float(value))
    v = int(value) & ((1 << dtype.bits) - 1)
    if dtype.bits > 1 and v >= 1 << (dtype.bits - 1):
        v -= 1 << dtype.bits
    return ir.Constant(value_type(dtype), v)
