"""Forward mode for one block: a dual value (the derivative along the seed) after every value.

Each real value `v` computed from operands gets `dual(v) = sum of d v / d operand * dual(operand)`
right after it; loads of a field with `needs_dual` read `x.dual`, stores and atomics write it,
and each real local variable gets a companion variable holding its dual.
"""

from __future__ import annotations

from tistudio.ir.ops import AtomicOpType, BinaryOpType
from tistudio.ir.statements import (
    Alloca,
    AtomicOp,
    BinaryOp,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    LocalLoad,
    LocalStore,
    TernaryOp,
    UnaryOp,
)
from tistudio.ir.stmt import Block, Stmt, pointee
from tistudio.ir.types import PointerType
from tistudio.passes.autodiff.common import companion, forbid, missing_rule
from tistudio.passes.autodiff.rules import Builder, is_real, partials


class ForwardBlock:
    """Adds dual computations to `block` and the blocks inside it."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.duals: dict[Stmt, Stmt] = {}  # value -> its dual; real Alloca -> its dual Alloca
        self.cursor: Stmt | None = None
        self.builder = Builder(self.emit, lambda value: value)

    def run(self) -> None:
        self.visit(self.block)

    def emit(self, stmt: Stmt) -> Stmt:
        assert self.cursor is not None
        self.cursor.insert_after(stmt)
        self.cursor = stmt
        return stmt

    def visit(self, block: Block) -> None:
        for stmt in list(block.stmts):
            self.cursor = stmt
            method = getattr(self, f"dual_{type(stmt).__name__}", None)
            if method is not None:
                method(stmt)
            elif isinstance(stmt, (UnaryOp, BinaryOp, TernaryOp)):
                if is_real(stmt):
                    self.dual_arithmetic(stmt)
            elif stmt.carries_derivative and is_real(stmt):  # a zero dual in silence otherwise
                raise missing_rule(stmt, "forward")
            for inner in stmt.blocks():
                self.visit(inner)

    def dual_arithmetic(self, stmt: Stmt) -> None:
        if not any(op in self.duals for op in stmt.operands()):
            return
        total = None
        for operand, partial in partials(self.builder, stmt, self.duals.__contains__):
            if operand in self.duals:
                dual = self.builder.cast(self.duals[operand], stmt.ret_type)
                term = self.builder.mul(self.builder.cast(partial, stmt.ret_type), dual)
                total = term if total is None else self.builder.bin(BinaryOpType.add, total, term)
        if total is not None:
            self.duals[stmt] = total

    def _dual_ptr(self, ptr: Stmt) -> Stmt | None:
        snode = companion(ptr, "dual")
        if snode is None:
            return None
        return self.emit(GlobalPtr(snode, list(ptr.indices), ret_type=ptr.ret_type))

    def _dual_or_zero(self, value: Stmt) -> Stmt:
        return self.duals.get(value) or self.builder.const(0.0, value.ret_type)

    def dual_GlobalLoad(self, stmt: GlobalLoad) -> None:
        ptr = self._dual_ptr(stmt.ptr) if is_real(stmt) else None
        if ptr is not None:
            self.duals[stmt] = self.emit(GlobalLoad(ptr, ret_type=stmt.ret_type))

    def dual_GlobalStore(self, stmt: GlobalStore) -> None:
        ptr = self._dual_ptr(stmt.ptr) if is_real(stmt.value) else None
        if ptr is not None:
            self.emit(GlobalStore(ptr, self._dual_or_zero(stmt.value)))

    def dual_AtomicOp(self, stmt: AtomicOp) -> None:
        if not is_real(stmt.val) or stmt.val not in self.duals:
            return
        if stmt.op not in (AtomicOpType.add, AtomicOpType.sub):
            forbid(stmt, f"atomic {stmt.op.value} cannot be differentiated (forward mode)")
        dest = self.duals.get(stmt.dest) if isinstance(stmt.dest, Alloca) else None
        dest = dest or self._dual_ptr(stmt.dest)
        if dest is not None:
            val = self.duals[stmt.val]
            self.emit(AtomicOp(stmt.op, dest, val, ret_type=val.ret_type))

    def dual_Alloca(self, stmt: Alloca) -> None:
        dtype = pointee(stmt) if isinstance(stmt.ret_type, PointerType) else None
        if dtype is not None and dtype.is_float:
            self.duals[stmt] = self.emit(Alloca(ret_type=PointerType(dtype), loc=stmt.loc))

    def dual_LocalStore(self, stmt: LocalStore) -> None:
        if stmt.ptr in self.duals:
            self.emit(LocalStore(self.duals[stmt.ptr], self._dual_or_zero(stmt.value)))

    def dual_LocalLoad(self, stmt: LocalLoad) -> None:
        if stmt.ptr in self.duals:
            self.duals[stmt] = self.emit(LocalLoad(self.duals[stmt.ptr], ret_type=stmt.ret_type))
