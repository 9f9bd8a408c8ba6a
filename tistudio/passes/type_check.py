"""Type checking and implicit casts (type_check).

The frontend already knows the type of every value; this pass makes the conversions between
types explicit, so back ends never guess. Operands of an arithmetic operation are cast to its
result type (`i32 + f32` casts the `i32`), integer `/` becomes a float `div`, conditions become
`u1`, and values stored into a variable, a field or returned from the kernel are cast to the
destination's type, with Taichi's warning when that may lose precision.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.promotion import operand_type, unary_result_type
from tistudio.ir.statements import (
    AtomicOp,
    BinaryOp,
    ExternalPtr,
    GlobalPtr,
    GlobalStore,
    If,
    LocalStore,
    RangeFor,
    Return,
    TernaryOp,
    UnaryOp,
)
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.ir.types import PointerType, PrimitiveType, i32, u1
from tistudio.passes.context import PassContext


def _cast(value: Stmt, to: PrimitiveType, user: Stmt) -> Stmt:
    """A `cast_value` of `value` to `to`, placed just before `user`."""
    cast = UnaryOp(UnaryOpType.cast_value, value, ret_type=to, loc=user.loc)
    user.insert_before(cast)
    return cast


def _coerce(user: Stmt, field_name: str, to: PrimitiveType) -> bool:
    value = getattr(user, field_name)
    if value.ret_type == to:
        return False
    setattr(user, field_name, _cast(value, to, user))
    return True


def _loses_precision(src: PrimitiveType, dst: PrimitiveType) -> bool:
    if src.is_float and not dst.is_float:
        return True
    if src.is_float and dst.is_float:
        return dst.bits < src.bits
    return not dst.is_float and dst.bits < src.bits


def _check_store(user: Stmt, ptr: Stmt, field_name: str, ctx: PassContext) -> bool:
    assert isinstance(ptr.ret_type, PointerType)
    target = ptr.ret_type.pointee
    value_type = getattr(user, field_name).ret_type
    scalars = isinstance(value_type, PrimitiveType) and isinstance(target, PrimitiveType)
    if scalars and value_type != target and _loses_precision(value_type, target):
        ctx.warn(f"Assign may lose precision: {target} <- {value_type}", user.loc)
    return _coerce(user, field_name, target)


def _binary(stmt: BinaryOp) -> bool:
    changed = False
    if stmt.op is BinaryOpType.truediv:
        stmt.op = BinaryOpType.div
        changed = True
    if stmt.op.is_shift:
        return _coerce(stmt, "rhs", stmt.lhs.ret_type) or changed
    want = operand_type(stmt.op, stmt.lhs.ret_type, stmt.rhs.ret_type, stmt.ret_type)
    if stmt.op is BinaryOpType.pow and _is_integral(stmt.rhs.ret_type):
        # an integer exponent stays one (demote_operations multiplies), as in Taichi
        return _coerce(stmt, "lhs", stmt.ret_type) or changed
    changed |= _coerce(stmt, "lhs", want)
    changed |= _coerce(stmt, "rhs", want)
    return changed


def _is_integral(t: object) -> bool:
    return isinstance(t, PrimitiveType) and t.is_integral


def _unary(stmt: UnaryOp, ctx: PassContext) -> bool:
    if stmt.op.is_cast or stmt.op is UnaryOpType.logic_not:
        return False
    expected = unary_result_type(stmt.op, stmt.operand.ret_type, ctx.config.default_fp)
    stmt.ret_type = expected
    return _coerce(stmt, "operand", expected)


def _statement(stmt: Stmt, kernel: Kernel, ctx: PassContext) -> bool:
    if isinstance(stmt, BinaryOp):
        return _binary(stmt)
    if isinstance(stmt, UnaryOp):
        return _unary(stmt, ctx)
    if isinstance(stmt, TernaryOp):
        return (
            _coerce(stmt, "cond", u1)
            | _coerce(stmt, "a", stmt.ret_type)
            | _coerce(stmt, "b", stmt.ret_type)
        )
    if isinstance(stmt, (LocalStore, GlobalStore)):
        return _check_store(stmt, stmt.ptr, "value", ctx)
    if isinstance(stmt, AtomicOp):
        return _check_store(stmt, stmt.dest, "val", ctx)
    if isinstance(stmt, If):
        return _coerce(stmt, "cond", u1)
    if isinstance(stmt, RangeFor):
        return _coerce(stmt, "begin", i32) | _coerce(stmt, "end", i32)
    if isinstance(stmt, (GlobalPtr, ExternalPtr)):
        return _indices(stmt)
    if isinstance(stmt, Return):
        return _returns(stmt, kernel)
    return False


def _indices(stmt: GlobalPtr | ExternalPtr) -> bool:
    changed = False
    for k, index in enumerate(stmt.indices):
        if index.ret_type != i32:
            stmt.indices[k] = _cast(index, i32, stmt)
            changed = True
    return changed


def _returns(stmt: Return, kernel: Kernel) -> bool:
    changed = False
    for k, (value, want) in enumerate(zip(stmt.values, kernel.ret_types)):
        if value.ret_type != want:
            stmt.values[k] = _cast(value, want, stmt)
            changed = True
    return changed


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for stmt in walk(kernel.body):
        changed |= _statement(stmt, kernel, ctx)
    return changed
