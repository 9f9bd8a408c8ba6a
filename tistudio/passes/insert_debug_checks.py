"""Debug checks on indices and integer division (insert_debug_checks; Taichi's
check_out_of_bound).

Only with `ti.init(debug=True)`. Before every field or ndarray access this pass inserts an
`assert` that each index lies in `[0, extent)`, and before every integer division or modulo one
that the divisor is not zero. A failing check stops the kernel before the bad access happens and
the host raises `TaichiAssertionError` with the field or argument, the shape, the indices and
the user's line. Field shapes are known at compile time; ndarray extents are read at run time.
Run-time indices into local vectors are checked by the frontend (`MatrixPtrExpr.check`), since
`scalarize` has turned those accesses into `select`s before this pass runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import (
    Assert,
    BinaryOp,
    Const,
    ExternalPtr,
    ExternalTensorShape,
    GlobalPtr,
    const_of,
)
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.ir.types import PrimitiveType, i32, u1
from tistudio.passes.context import PassContext

_DIVISIONS = (BinaryOpType.div, BinaryOpType.floordiv, BinaryOpType.mod)
_NAME_AT = re.compile(r"[A-Za-z_][\w.]*")
_ACCESS = "Accessing {} of shape {} with indices "
_TAICHI_NDARRAY = ": Out of bound access"  # Taichi's phrase for ndarrays, which its tests match
_DIVIDE = "Integer division by zero: %d divided by 0"
_MESSAGES = ("Accessing ", _DIVIDE)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for stmt in walk(kernel.body):
        if _already_checked(stmt):
            continue
        if isinstance(stmt, GlobalPtr):
            changed |= _check_field(stmt)
        elif isinstance(stmt, ExternalPtr):
            changed |= _check_ndarray(stmt, kernel)
        elif isinstance(stmt, BinaryOp) and _is_integer_division(stmt):
            changed |= _check_divisor(stmt)
    return changed


def _already_checked(stmt: Stmt) -> bool:
    """A check of this pass sits right before what it guards and names the guarded operands
    among its values; finding one there means the pass already ran (it must be idempotent)."""
    position = stmt.parent.index(stmt) if stmt.parent is not None else 0
    if position == 0:
        return False
    before = stmt.parent[position - 1]  # type: ignore[index]
    if not isinstance(before, Assert) or not before.message.startswith(_MESSAGES):
        return False
    guarded = getattr(stmt, "indices", None) or [getattr(stmt, "lhs", None)]
    return all(any(g is a or g is _unshifted(a) for a in before.args) for g in guarded)


def _unshifted(arg: Stmt) -> Stmt:
    """A reported index shifted back by its field's offset is the index itself."""
    if isinstance(arg, BinaryOp) and arg.op is BinaryOpType.add and isinstance(arg.rhs, Const):
        return arg.lhs
    return arg


def _check_field(ptr: GlobalPtr) -> bool:
    shape = ptr.snode.shape
    extents = {
        k: const_of(shape[k], i32)
        for k, index in enumerate(ptr.indices)
        if not (isinstance(index, Const) and 0 <= int(index.value) < shape[k])
    }
    if not extents:  # every index is a constant inside the shape
        return False
    geometry = _tuple_text(map(str, shape))
    offsets = ptr.snode.index_offsets
    if offsets:  # indices count from 0 here; the user's count from the offset (Taichi's words)
        geometry += f" offset {_tuple_text(map(str, offsets))}"
    message = _ACCESS.format(f"field '{_field_name(ptr)}'", geometry)
    _insert_bounds_check(ptr, extents, message + _tuple_text("%d" for _ in shape), [], offsets)
    return True


def _check_ndarray(ptr: ExternalPtr, kernel: Kernel) -> bool:
    axes = range(len(ptr.indices))
    extents = {k: ExternalTensorShape(ptr.arg_id, k, ret_type=i32) for k in axes}
    params = kernel.params
    name = params[ptr.arg_id].name if ptr.arg_id < len(params) else f"arr{ptr.arg_id}"
    shape = _tuple_text("%d" for _ in axes)
    message = _ACCESS.format(f"ndarray argument '{name}'", shape) + shape + _TAICHI_NDARRAY
    _insert_bounds_check(ptr, extents, message, list(extents.values()))
    return True


def _insert_bounds_check(
    ptr: GlobalPtr | ExternalPtr,
    extents: dict[int, Stmt],
    message: str,
    shape_args: list[Stmt],
    offsets: tuple[int, ...] = (),
) -> None:
    """Before `ptr`: `assert 0 <= index < extent` on each axis in `extents`, as one
    condition, reporting `shape_args` and then every index (plus its field's offset)."""
    zero = const_of(0, i32)
    new: list[Stmt] = [*extents.values(), zero]
    cond: Stmt | None = None
    for k, extent in extents.items():
        index = ptr.indices[k]
        low = BinaryOp(BinaryOpType.cmp_ge, index, zero, ret_type=u1)
        high = BinaryOp(BinaryOpType.cmp_lt, index, extent, ret_type=u1)
        axis_ok = BinaryOp(BinaryOpType.bit_and, low, high, ret_type=u1)
        new += [low, high, axis_ok]
        if cond is not None:
            axis_ok = BinaryOp(BinaryOpType.bit_and, cond, axis_ok, ret_type=u1)
            new.append(axis_ok)
        cond = axis_ok
    assert cond is not None
    reported = list(ptr.indices)
    for k, offset in enumerate(offsets):
        if offset:
            amount = const_of(offset, i32)
            reported[k] = BinaryOp(BinaryOpType.add, reported[k], amount, ret_type=i32)
            new += [amount, reported[k]]
    new.append(Assert(cond, message, shape_args + reported))
    for stmt in new:
        stmt.loc = ptr.loc
    ptr.insert_before(*new)


def _is_integer_division(stmt: BinaryOp) -> bool:
    dtype = stmt.rhs.ret_type
    if stmt.op not in _DIVISIONS or not isinstance(dtype, PrimitiveType):
        return False
    return dtype.is_integral and dtype.kind != "bool" and not _nonzero_const(stmt.rhs)


def _nonzero_const(stmt: Stmt) -> bool:
    return isinstance(stmt, Const) and stmt.value != 0


def _check_divisor(stmt: BinaryOp) -> bool:
    assert isinstance(stmt.rhs.ret_type, PrimitiveType)
    zero = const_of(0, stmt.rhs.ret_type)
    cond = BinaryOp(BinaryOpType.cmp_ne, stmt.rhs, zero, ret_type=u1)
    check = Assert(cond, _DIVIDE, [stmt.lhs])
    for new in (zero, cond, check):
        new.loc = stmt.loc
    stmt.insert_before(zero, cond, check)
    return True


def _field_name(ptr: GlobalPtr) -> str:
    """The name the user wrote for the field (`x` in `x[i, j]`), from the access's source
    line; else the name given to `ti.field`; else the SNode (`S2place<f32>`), as Taichi."""
    loc = ptr.loc
    if loc is not None and loc.source_line:
        found = _NAME_AT.match(loc.source_line, loc.col)
        if found:
            name = found.group(0)
            member = ptr.snode.name
            return f"{name}.{member}" if member and member != name else name
    return ptr.snode.name or ptr.snode.ref()


def _tuple_text(items: Iterable[str]) -> str:
    parts = list(items)
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
