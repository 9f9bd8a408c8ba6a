"""IR types as LLVM types: the value type in registers and the type in memory.

They differ only for `u1`: an `i1` in registers, one byte (0 or 1) in memory, as NumPy stores
`bool`. `kind_of` folds `u1` into "uint" so operator tables need three kinds, not four.
"""

from __future__ import annotations

from llvmlite import ir

from tistudio.ir.types import DataType, PointerType, PrimitiveType

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

_FLOATS = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}


def value_type(dtype: DataType) -> ir.Type:
    """The LLVM type of a value of `dtype` in registers (pointers are opaque `ptr`)."""
    if isinstance(dtype, PointerType):
        return PTR
    assert isinstance(dtype, PrimitiveType), f"no LLVM type for {dtype}"
    if dtype.is_float:
        return _FLOATS[dtype.bits]
    return ir.IntType(dtype.bits)


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


class _Callee(ir.CastInstr):
    """A function address (an opaque `ptr`) that knows the type of the function behind it."""

    def __init__(self, block: ir.Block, address: ir.Value, fnty: ir.FunctionType) -> None:
        super().__init__(block, "bitcast", address, PTR)
        self._fnty = fnty

    @property
    def function_type(self) -> ir.FunctionType:
        return self._fnty


def callee(b: ir.IRBuilder, address: ir.Value, fnty: ir.FunctionType) -> ir.Value:
    """`address` as something `IRBuilder.call` accepts, for an indirect call of type `fnty`.
    (llvmlite derives a callee's type from a typed pointer; LLVM 22 has only opaque ones.)
    The `bitcast ptr to ptr` it emits is a no-op that LLVM folds away."""
    instr = _Callee(b.block, address, fnty)
    b._insert(instr)
    return instr
