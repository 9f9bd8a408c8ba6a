"""Typed construction of expressions: Python operators and casts on frontend values.

Values in a kernel are either compile-time Python objects (ints, floats, fields, functions...) or
runtime `Expr` trees. An operator on two Python values is evaluated by Python right away, as in
Taichi; as soon as one side is an `Expr`, the Python side becomes a constant of `default_ip` or
`default_fp` and the result is an `Expr` whose type follows Taichi's promotion rules.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiTypeError
from tistudio.ir import frontend as fe
from tistudio.ir.config import CompileConfig
from tistudio.ir.ops import BinaryOpType, TernaryOpType, UnaryOpType
from tistudio.ir.promotion import (
    OperandTypeError,
    binary_result_type,
    promote,
    unary_result_type,
)
from tistudio.ir.stmt import SourceLoc
from tistudio.ir.types import TYPES_BY_NAME, PrimitiveType, u1

PYTHON_BINARY = {
    BinaryOpType.add: operator.add,
    BinaryOpType.sub: operator.sub,
    BinaryOpType.mul: operator.mul,
    BinaryOpType.truediv: operator.truediv,
    BinaryOpType.floordiv: operator.floordiv,
    BinaryOpType.pow: operator.pow,
    BinaryOpType.bit_and: operator.and_,
    BinaryOpType.bit_or: operator.or_,
    BinaryOpType.bit_xor: operator.xor,
    BinaryOpType.bit_shl: operator.lshift,
    BinaryOpType.bit_sar: operator.rshift,
    BinaryOpType.cmp_lt: operator.lt,
    BinaryOpType.cmp_le: operator.le,
    BinaryOpType.cmp_gt: operator.gt,
    BinaryOpType.cmp_ge: operator.ge,
    BinaryOpType.cmp_eq: operator.eq,
    BinaryOpType.cmp_ne: operator.ne,
    BinaryOpType.max: max,
    BinaryOpType.min: min,
}


def is_runtime(value: Any) -> bool:
    return isinstance(value, fe.Expr)


def numpy_to_primitive(dtype: np.dtype) -> PrimitiveType:
    name = np.dtype(dtype).name
    table = {"bool": "u1", "float16": "f16", "float32": "f32", "float64": "f64"}
    if name in table:
        return TYPES_BY_NAME[table[name]]
    prefix = "u" if name.startswith("uint") else "i"
    return TYPES_BY_NAME[prefix + name.lstrip("uint")]


class Operators:
    """Builds typed expressions; one per compilation (it knows `default_ip`/`default_fp`)."""

    def __init__(self, config: CompileConfig) -> None:
        self.config = config

    def const(
        self, value: Any, loc: SourceLoc | None, dtype: PrimitiveType | None = None
    ) -> fe.Expr:
        if isinstance(value, fe.Expr):
            return value
        if isinstance(value, np.generic):
            dtype = dtype or numpy_to_primitive(value.dtype)
            value = value.item()
        if isinstance(value, bool):
            return fe.ConstExpr(int(value), dtype=dtype or self.config.default_ip, loc=loc)
        if isinstance(value, numbers.Integral):
            dtype = dtype or self.config.default_ip
            if dtype.is_integral and not _fits(int(value), dtype):
                raise TaichiTypeError(
                    f"the integer literal {value} does not fit in {dtype}; write it as "
                    f"{'ti.u64' if value > 0 else 'ti.i64'}({value}) or choose "
                    f"default_ip=ti.i64 in ti.init()",
                    loc,
                )
            return fe.ConstExpr(int(value), dtype=dtype, loc=loc)
        if isinstance(value, numbers.Real):
            return fe.ConstExpr(float(value), dtype=dtype or self.config.default_fp, loc=loc)
        kind = type(value).__name__
        hint = (
            "; index it (x[None], x[i]) to read an element" if hasattr(value, "_ti_leaves") else ""
        )
        raise TaichiTypeError(  # Taichi's phrase: unsupported operand type
            f"a value of type {kind} cannot be used as a number in a kernel (unsupported operand "
            f"type {kind}){hint}",
            loc,
        )

    def binary(self, op: BinaryOpType, a: Any, b: Any, loc: SourceLoc | None) -> Any:
        if not is_runtime(a) and not is_runtime(b):
            return self._python_binary(op, a, b, loc)
        lhs, rhs = self.const(a, loc), self.const(b, loc)
        try:
            result = binary_result_type(op, lhs.dtype, rhs.dtype, self.config.default_fp)
        except OperandTypeError as e:
            raise TaichiTypeError(str(e), loc) from None
        return fe.BinaryOpExpr(op, lhs, rhs, dtype=result, loc=loc)

    def _python_binary(self, op: BinaryOpType, a: Any, b: Any, loc: SourceLoc | None) -> Any:
        if op is BinaryOpType.mod:
            return a % b
        fn = PYTHON_BINARY.get(op)
        if fn is None:
            return self.binary(op, self.const(a, loc), b, loc)
        try:
            return fn(a, b)
        except Exception as e:  # noqa: BLE001 - report Python's own complaint at the user's line
            raise TaichiTypeError(f"{type(e).__name__}: {e}", loc) from None

    def mod(self, a: Any, b: Any, loc: SourceLoc | None) -> Any:
        """Python's `%`: `a - b * (a // b)`, which takes the divisor's sign; for signed
        integers `x % -1` is 0 (the quotient of `INT_MIN // -1` is 0 by the contract, so the
        expansion alone gave INT_MIN, where Python and NumPy give 0)."""
        if not is_runtime(a) and not is_runtime(b):
            return self._python_binary(BinaryOpType.mod, a, b, loc)
        lhs, rhs = self.const(a, loc), self.const(b, loc)
        quotient = self.binary(BinaryOpType.floordiv, lhs, rhs, loc)
        result = self.binary(
            BinaryOpType.sub, lhs, self.binary(BinaryOpType.mul, rhs, quotient, loc), loc
        )
        dtype = getattr(result, "dtype", None)
        if not isinstance(dtype, PrimitiveType) or dtype.kind != "int":
            return result
        if not is_runtime(b):  # a constant divisor: -1 or not is known now
            return self.cast(0, dtype, loc) if b == -1 else result
        by_minus_one = self.binary(BinaryOpType.cmp_eq, rhs, -1, loc)
        return self.select(by_minus_one, self.cast(0, dtype, loc), result, loc)

    def unary(self, op: UnaryOpType, a: Any, loc: SourceLoc | None) -> Any:
        operand = self.const(a, loc)
        try:
            result = unary_result_type(op, operand.dtype, self.config.default_fp)
        except OperandTypeError as e:
            raise TaichiTypeError(str(e), loc) from None
        return fe.UnaryOpExpr(op, operand, dtype=result, loc=loc)

    def cast(self, a: Any, dtype: PrimitiveType, loc: SourceLoc | None, bits: bool = False) -> Any:
        operand = self.const(a, loc)
        if bits:
            if operand.dtype.bits != dtype.bits:
                raise TaichiTypeError(
                    f"cannot bit-cast {operand.dtype} to {dtype}: sizes differ", loc
                )
            return fe.UnaryOpExpr(UnaryOpType.cast_bits, operand, dtype=dtype, loc=loc)
        if operand.dtype == dtype:
            return operand
        return fe.UnaryOpExpr(UnaryOpType.cast_value, operand, dtype=dtype, loc=loc)

    def select(self, cond: Any, a: Any, b: Any, loc: SourceLoc | None) -> fe.Expr:
        c = self.const(cond, loc)
        x, y = self.const(a, loc), self.const(b, loc)
        common = promote(x.dtype, y.dtype)
        return fe.TernaryOpExpr(TernaryOpType.select, c, x, y, dtype=common, loc=loc)

    def logical(self, op: BinaryOpType, a: Any, b: Any, loc: SourceLoc | None) -> fe.Expr:
        lhs, rhs = self.const(a, loc), self.const(b, loc)
        return fe.LogicalExpr(op, lhs, rhs, dtype=u1, loc=loc)

    def truth(self, value: Any, loc: SourceLoc | None) -> Any:
        """`value` as a condition: Python values stay Python; numbers become `u1` via `!= 0`."""
        if not is_runtime(value):
            return value
        if value.dtype == u1:
            return value
        return self.binary(BinaryOpType.cmp_ne, value, 0, loc)


def _fits(value: int, dtype: PrimitiveType) -> bool:
    if dtype.kind == "bool":
        return value in (0, 1)
    if dtype.is_unsigned:
        return 0 <= value < (1 << dtype.bits)
    return -(1 << (dtype.bits - 1)) <= value < (1 << (dtype.bits - 1))
