"""Index arithmetic shared by the passes that compute SNode cell indices.

`demote_dense_struct_fors` and `lower_access` both turn field indices into cell indices and back
with division, remainder and multiplication by constants. Indices are never negative, so a
power-of-two divisor becomes a shift (`bit_sar`) and a power-of-two modulus a mask: the cheaper
forms Taichi emits too. Each helper appends the statements it makes to `out` (all `i32`).
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import BinaryOp, Const
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import i32


def is_pow2(n: int) -> bool:
    return n & (n - 1) == 0


def emit(out: list[Stmt], stmt: Stmt) -> Stmt:
    """Append `stmt` (typed `i32` unless it has a type) to `out`."""
    if stmt.ret_type is None:
        stmt.ret_type = i32
    out.append(stmt)
    return stmt


def constant(out: list[Stmt], value: int) -> Stmt:
    return emit(out, Const(value, ret_type=i32))


def binary(out: list[Stmt], op: BinaryOpType, x: Stmt, value: int) -> Stmt:
    return emit(out, BinaryOp(op, x, constant(out, value), ret_type=i32))


def divide(out: list[Stmt], x: Stmt, d: int) -> Stmt:
    """x // d for x >= 0 (a shift right when d is a power of two)."""
    if d == 1:
        return x
    if is_pow2(d):
        return binary(out, BinaryOpType.bit_sar, x, d.bit_length() - 1)
    return binary(out, BinaryOpType.div, x, d)


def remainder(out: list[Stmt], x: Stmt, m: int) -> Stmt:
    """x % m for x >= 0 (a mask when m is a power of two)."""
    if is_pow2(m):
        return binary(out, BinaryOpType.bit_and, x, m - 1)
    return binary(out, BinaryOpType.mod, x, m)


def multiply(out: list[Stmt], x: Stmt, m: int) -> Stmt:
    """x * m (a shift left when m is a power of two)."""
    if m == 1:
        return x
    if is_pow2(m):
        return binary(out, BinaryOpType.bit_shl, x, m.bit_length() - 1)
    return binary(out, BinaryOpType.mul, x, m)
