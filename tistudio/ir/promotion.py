"""Taichi's type rules for operators, shared by the frontend (typing expressions as they are
built) and the `type_check` pass (inserting the casts those types imply).

Measured against Taichi 1.7.4: a float beats an int; two ints promote to the wider one; of equal
width, unsigned wins (`u32 + i32 -> u32`); integer `/` gives `default_fp`; shifts and integer `**`
keep the left operand's type; comparisons give `u1`.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.types import PrimitiveType, TensorType, u1

_FLOAT_RESULT_OPS = {BinaryOpType.truediv, BinaryOpType.atan2}
_INT_ONLY_OPS = {
    BinaryOpType.bit_and,
    BinaryOpType.bit_or,
    BinaryOpType.bit_xor,
    BinaryOpType.bit_shl,
    BinaryOpType.bit_shr,
    BinaryOpType.bit_sar,
}
_FLOAT_ONLY_UNARY = {
    UnaryOpType.sin,
    UnaryOpType.asin,
    UnaryOpType.cos,
    UnaryOpType.acos,
    UnaryOpType.tan,
    UnaryOpType.tanh,
    UnaryOpType.floor,
    UnaryOpType.ceil,
    UnaryOpType.round,
}
_TO_FLOAT_UNARY = {
    UnaryOpType.sqrt,
    UnaryOpType.exp,
    UnaryOpType.log,
    UnaryOpType.rsqrt,
    UnaryOpType.inv,
    UnaryOpType.rcp,
}
_INT_ONLY_UNARY = {UnaryOpType.bit_not, UnaryOpType.popcnt, UnaryOpType.clz}


class OperandTypeError(TypeError):
    """An operator applied to a type it does not take; the frontend adds the user's line."""


def _element(t: PrimitiveType | TensorType) -> PrimitiveType:
    return t.element if isinstance(t, TensorType) else t


def promote(a: PrimitiveType, b: PrimitiveType) -> PrimitiveType:
    """The common type of `a` and `b` (Taichi's `promoted_type`); element-wise for tensors."""
    lifted = _elementwise(promote, a, b)
    if lifted is not None:
        return lifted
    if a == b:
        return a
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    return a if a.is_unsigned else b


def _elementwise(fn, a, b=None):  # noqa: ANN001, ANN202 - lifts a scalar rule to tensors
    """Apply a scalar typing rule to the elements of tensor types (of one shape)."""
    tensors = [t for t in (a, b) if isinstance(t, TensorType)]
    if not tensors:
        return None
    shape = tensors[0].shape
    if any(t.shape != shape for t in tensors):
        raise OperandTypeError(f"shapes {a} and {b} do not match")
    ea = a.element if isinstance(a, TensorType) else a
    eb = b.element if isinstance(b, TensorType) else b
    return TensorType(shape, fn(ea, eb) if b is not None else fn(ea))


def binary_result_type(
    op: BinaryOpType, a: PrimitiveType, b: PrimitiveType, default_fp: PrimitiveType
) -> PrimitiveType:
    """Type of `a op b`; raises `OperandTypeError` for e.g. bit operations on floats.
    Tensor operands (of one shape) give a tensor of the element-wise result type."""
    lifted = _elementwise(lambda x, y: binary_result_type(op, x, y, default_fp), a, b)
    if lifted is not None:
        return lifted
    if op in _INT_ONLY_OPS and (a.is_float or b.is_float):
        raise OperandTypeError(
            f"unsupported operand type(s) for '{_SYMBOL.get(op, op.value)}': '{a}' and '{b}'"
        )
    if op.is_comparison or op in (BinaryOpType.logical_and, BinaryOpType.logical_or):
        return u1
    if op.is_shift:
        return a
    common = promote(a, b)
    if op in _FLOAT_RESULT_OPS:
        return common if common.is_float else default_fp
    if op is BinaryOpType.pow and b.is_integral:
        return a if a.is_integral or a.is_float else common  # the base's type, as in Taichi
    return common


def operand_type(
    op: BinaryOpType, a: PrimitiveType, b: PrimitiveType, result: PrimitiveType
) -> PrimitiveType:
    """The type both operands are cast to before the operation runs."""
    lifted = _elementwise(lambda x, y: operand_type(op, x, y, _element(result)), a, b)
    if lifted is not None:
        return lifted
    if op.is_comparison:
        return promote(a, b)
    if op in (BinaryOpType.logical_and, BinaryOpType.logical_or):
        return u1
    return result


def unary_result_type(
    op: UnaryOpType, a: PrimitiveType, default_fp: PrimitiveType
) -> PrimitiveType:
    """Type of `op a` for non-cast unary operators."""
    lifted = _elementwise(lambda x: unary_result_type(op, x, default_fp), a)
    if lifted is not None:
        return lifted
    if op in _FLOAT_ONLY_UNARY and not a.is_float:
        raise OperandTypeError(f"'{op.value}' takes real inputs only, however '{a}' is provided.")
    if op in _INT_ONLY_UNARY and a.is_float:
        raise OperandTypeError(
            f"'{op.value}' takes integral inputs only, however '{a}' is provided."
        )
    if op in _TO_FLOAT_UNARY and not a.is_float:
        return default_fp
    if op is UnaryOpType.logic_not:
        return u1
    return a


_SYMBOL = {
    BinaryOpType.bit_and: "&",
    BinaryOpType.bit_or: "|",
    BinaryOpType.bit_xor: "^",
    BinaryOpType.bit_shl: "<<",
    BinaryOpType.bit_shr: ">>",
    BinaryOpType.bit_sar: ">>",
}
