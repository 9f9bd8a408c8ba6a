"""Derivative rules shared by reverse mode (`reverse.py`) and forward mode (`forward.py`).

`partials(b, stmt)` returns, for each operand of an arithmetic statement that a derivative flows
into, the pair `(operand, d stmt / d operand)` as a new statement emitted through the builder
`b`. Reverse mode multiplies each partial by the statement's adjoint and adds it to the
operand's adjoint; forward mode sums partial times the operand's dual. `b.primal(x)` gives the
value of operand `x` where the code is being emitted (the reverse sweep may have to recompute
it or read it back from an autodiff stack).
"""

from __future__ import annotations

from collections.abc import Callable

from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import TernaryOpType
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.statements import BinaryOp, TernaryOp, UnaryOp, const_of
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PrimitiveType, u1


class Builder:
    """Appends new statements to a block; `primal` maps a forward value to one usable here."""

    def __init__(self, emit: Callable[[Stmt], Stmt], primal: Callable[[Stmt], Stmt]) -> None:
        self.emit, self.primal = emit, primal

    def const(self, value: float, dtype: PrimitiveType) -> Stmt:
        return self.emit(const_of(value, dtype))

    def un(self, op: U, x: Stmt) -> Stmt:
        return self.emit(UnaryOp(op, x, ret_type=x.ret_type))

    def bin(self, op: B, x: Stmt, y: Stmt) -> Stmt:
        dtype = u1 if op.is_comparison else x.ret_type
        return self.emit(BinaryOp(op, x, y, ret_type=dtype))

    def mul(self, x: Stmt, y: Stmt) -> Stmt:
        return self.bin(B.mul, x, y)

    def div(self, x: Stmt, y: Stmt) -> Stmt:
        return self.bin(B.div, x, y)  # `type_check` has already turned `/` into `div`

    def select(self, cond: Stmt, x: Stmt, y: Stmt) -> Stmt:
        return self.emit(TernaryOp(TernaryOpType.select, cond, x, y, ret_type=x.ret_type))

    def cast(self, x: Stmt, dtype: PrimitiveType) -> Stmt:
        if x.ret_type == dtype:
            return x
        return self.emit(UnaryOp(U.cast_value, x, ret_type=dtype))


def is_real(stmt: Stmt) -> bool:
    dtype = stmt.ret_type
    return isinstance(dtype, PrimitiveType) and dtype.is_float


Partials = list[tuple[Stmt, Stmt]]


def partials(b: Builder, stmt: Stmt, wanted: Callable[[Stmt], bool]) -> Partials:
    """The local derivatives of `stmt` with respect to the real operands that `wanted`
    accepts (those a derivative can flow into); primal values are fetched only as needed."""
    if isinstance(stmt, UnaryOp):
        x = stmt.operand
        if not (is_real(x) and wanted(x)):
            return []
        if stmt.op is U.cast_value:  # between float types: the derivative is 1
            return [(x, b.const(1.0, x.ret_type))] if is_real(stmt) else []
        return [(x, _UNARY[stmt.op](b, b.primal(x)))] if stmt.op in _UNARY else []
    if isinstance(stmt, BinaryOp) and stmt.op in _BINARY and is_real(stmt):
        x, y = stmt.lhs, stmt.rhs
        rules = _BINARY[stmt.op]
        return [
            (op, rule(b, x, y))
            for op, rule in zip((x, y), rules)
            if rule is not None and is_real(op) and wanted(op)
        ]
    if isinstance(stmt, TernaryOp) and is_real(stmt):
        found = [op for op in (stmt.a, stmt.b) if wanted(op)]
        if not found:
            return []
        cond = b.primal(stmt.cond)
        one, zero = b.const(1.0, stmt.ret_type), b.const(0.0, stmt.ret_type)
        picks = {stmt.a: b.select(cond, one, zero), stmt.b: b.select(cond, zero, one)}
        return [(op, picks[op]) for op in found]
    return []


# --- d f(x) / dx, from the primal x ----------------------------------------------------------


def _one_minus_square(b: Builder, y: Stmt) -> Stmt:
    return b.bin(B.sub, b.const(1.0, y.ret_type), b.mul(y, y))


_UNARY: dict[U, Callable[[Builder, Stmt], Stmt]] = {
    U.neg: lambda b, x: b.const(-1.0, x.ret_type),  # -x
    U.sin: lambda b, x: b.un(U.cos, x),  # sin' = cos
    U.cos: lambda b, x: b.un(U.neg, b.un(U.sin, x)),  # cos' = -sin
    U.tan: lambda b, x: b.bin(  # tan' = 1 + tan^2
        B.add, b.const(1.0, x.ret_type), b.mul(b.un(U.tan, x), b.un(U.tan, x))
    ),
    U.tanh: lambda b, x: _one_minus_square(b, b.un(U.tanh, x)),  # tanh' = 1 - tanh^2
    U.exp: lambda b, x: b.un(U.exp, x),  # exp' = exp
    U.log: lambda b, x: b.div(b.const(1.0, x.ret_type), x),  # log' = 1/x
    U.sqrt: lambda b, x: b.div(b.const(0.5, x.ret_type), b.un(U.sqrt, x)),  # 1/(2 sqrt x)
    U.rsqrt: lambda b, x: b.mul(  # (x^-1/2)' = -1/2 x^-3/2
        b.const(-0.5, x.ret_type), b.div(b.un(U.rsqrt, x), x)
    ),
    U.asin: lambda b, x: b.un(U.rsqrt, _one_minus_square(b, x)),  # 1/sqrt(1-x^2)
    U.acos: lambda b, x: b.un(U.neg, b.un(U.rsqrt, _one_minus_square(b, x))),
    U.abs: lambda b, x: b.un(U.sgn, x),  # |x|' = sgn x
    U.inv: lambda b, x: b.un(U.neg, b.div(b.const(1.0, x.ret_type), b.mul(x, x))),
    U.rcp: lambda b, x: b.un(U.neg, b.div(b.const(1.0, x.ret_type), b.mul(x, x))),
}

# d(x op y)/dx and d(x op y)/dy from the *forward* operands; each rule asks `b.primal` for
# the values it needs, so a derivative nobody wants costs no recorded value.
Rule = Callable[[Builder, Stmt, Stmt], Stmt]


def _one(b: Builder, x: Stmt, y: Stmt) -> Stmt:
    return b.const(1.0, x.ret_type)


def _minus_one(b: Builder, x: Stmt, y: Stmt) -> Stmt:
    return b.const(-1.0, x.ret_type)


def _div_dx(b: Builder, x: Stmt, y: Stmt) -> Stmt:  # (x/y)' = 1/y dx
    return b.div(b.const(1.0, x.ret_type), b.primal(y))


def _div_dy(b: Builder, x: Stmt, y: Stmt) -> Stmt:  # (x/y)' = -x/y^2 dy
    py = b.primal(y)
    return b.un(U.neg, b.div(b.primal(x), b.mul(py, py)))


def _pow_dx(b: Builder, x: Stmt, y: Stmt) -> Stmt:  # (x^y)' = y x^(y-1) dx
    px, py = b.primal(x), b.cast(b.primal(y), x.ret_type)
    return b.mul(py, b.bin(B.pow, px, b.bin(B.sub, py, b.const(1.0, x.ret_type))))


def _pow_dy(b: Builder, x: Stmt, y: Stmt) -> Stmt:  # (x^y)' = ln(x) x^y dy
    px, py = b.primal(x), b.primal(y)
    return b.mul(b.un(U.log, px), b.bin(B.pow, px, py))


def _atan2_norm(b: Builder, y: Stmt, x: Stmt) -> tuple[Stmt, Stmt, Stmt]:
    py, px = b.primal(y), b.primal(x)
    return py, px, b.bin(B.add, b.mul(px, px), b.mul(py, py))


def _atan2_dy(b: Builder, y: Stmt, x: Stmt) -> Stmt:  # atan2(y, x)' = x/(x^2+y^2) dy
    _, px, norm = _atan2_norm(b, y, x)
    return b.div(px, norm)


def _atan2_dx(b: Builder, y: Stmt, x: Stmt) -> Stmt:  # ... - y/(x^2+y^2) dx
    py, _, norm = _atan2_norm(b, y, x)
    return b.un(U.neg, b.div(py, norm))


def _pick(cmp: B, first: bool) -> Rule:
    """max/min: the derivative goes to the operand that was picked (`y` on a tie)."""

    def rule(b: Builder, x: Stmt, y: Stmt) -> Stmt:
        took_x = b.bin(cmp, b.primal(x), b.primal(y))
        one, zero = b.const(1.0, x.ret_type), b.const(0.0, x.ret_type)
        return b.select(took_x, one, zero) if first else b.select(took_x, zero, one)

    return rule


_BINARY: dict[B, tuple[Rule | None, Rule | None]] = {
    B.add: (_one, _one),
    B.sub: (_one, _minus_one),
    B.mul: (lambda b, x, y: b.primal(y), lambda b, x, y: b.primal(x)),
    B.truediv: (_div_dx, _div_dy),
    B.div: (_div_dx, _div_dy),  # float division after `type_check`
    B.pow: (_pow_dx, _pow_dy),
    B.atan2: (_atan2_dy, _atan2_dx),
    B.max: (_pick(B.cmp_gt, True), _pick(B.cmp_gt, False)),
    B.min: (_pick(B.cmp_lt, True), _pick(B.cmp_lt, False)),
}
