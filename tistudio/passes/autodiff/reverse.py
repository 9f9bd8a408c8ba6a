"""Reverse mode for one independent block (IB): the body of a parallel loop, or a serial kernel.

The forward code stays where it is and computes the primal values again; the adjoint code is
appended after it and visits the forward statements last to first. A value defined at the top
of the IB is still in scope there. One defined inside an `if` or a serial loop is not: a
reversed loop runs its iterations last to first in a new loop, so such values are either
recomputed (constants, addresses, field loads: the global data access rules keep fields from
changing) or recorded on an autodiff stack (`stack push` after the definition, `stack load top`
in the adjoint code, `stack pop` once the adjoint code has passed the definition).
"""

from __future__ import annotations

from collections import ChainMap

from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import (
    AdStackAlloca,
    AdStackLoadTop,
    AdStackPop,
    AdStackPush,
    Alloca,
    ArgLoad,
    BinaryOp,
    Const,
    ExternalPtr,
    ExternalTensorShape,
    GlobalLoad,
    GlobalPtr,
    If,
    LocalLoad,
    LocalStore,
    LoopIndex,
    RangeFor,
    TernaryOp,
    UnaryOp,
)
from tistudio.ir.stmt import Block, Stmt, pointee, walk
from tistudio.ir.types import PointerType
from tistudio.passes.autodiff.common import (
    forbid,
    forbid_at_adjoint,
    missing_rule,
    scalarized,
    shallow_copy,
)
from tistudio.passes.autodiff.memory import MemoryAdjoints
from tistudio.passes.autodiff.rules import Builder, is_real, partials

_RECOMPUTED = (Const, ArgLoad, ExternalTensorShape)
_DIFFERENTIABLE = (UnaryOp, BinaryOp, TernaryOp, GlobalLoad, LocalLoad)


class ReverseBlock(MemoryAdjoints):
    """Builds the adjoint code of the IB `ib` and appends it to `ib`."""

    def __init__(self, ib: Block, grad_args: dict[int, int] | None = None) -> None:
        self.ib, self.grad_args = ib, grad_args or {}
        self.nested = {s for stmt in ib for inner in stmt.blocks() for s in walk(inner)}
        self.stacks: dict[Stmt, AdStackAlloca] = {}
        self.adjoints: dict[Stmt, Alloca] = {}  # value or local variable -> its adjoint
        self.reverse_of: dict[Block, Block] = {}  # forward block -> the block of its adjoint
        self.scope: ChainMap[Stmt, Stmt] = ChainMap()  # forward value -> its value here
        self.out = Block()
        self.erased: list[Stmt] = []
        self.builder = Builder(self.emit, self.primal)
        self.used = {op for stmt in walk(ib) for op in stmt.operands()}

    def run(self) -> None:
        self.reverse_block(self.ib, self.out)
        for stmt in self.erased:
            stmt.erase()
        self.ib.extend(self.out.take_all())

    # --- emitting -------------------------------------------------------------------------

    def emit(self, stmt: Stmt) -> Stmt:
        return self.out.append(stmt)

    def reverse_block(self, forward: Block, out: Block) -> None:
        saved_out, saved_scope = self.out, self.scope
        self.out, self.scope = out, self.scope.new_child()
        self.reverse_of[forward] = out
        for stmt in reversed(list(forward.stmts)):
            self.reverse_stmt(stmt)
            if stmt in self.stacks:
                self.emit(AdStackPop(self.stacks[stmt]))
        self.out, self.scope = saved_out, saved_scope

    # --- primal values in the adjoint code --------------------------------------------------

    def primal(self, value: Stmt) -> Stmt:
        """`value` (a forward statement) as a statement usable where adjoint code goes now."""
        if value in self.scope:
            return self.scope[value]
        if value not in self.nested:
            return value
        if isinstance(value, _RECOMPUTED):
            new = self.emit(shallow_copy(value))
        elif isinstance(value, (GlobalPtr, ExternalPtr)):
            new = self.emit(shallow_copy(value))
            new.indices = [self.primal(i) for i in value.indices]
        elif isinstance(value, GlobalLoad) and isinstance(value.ptr, (GlobalPtr, ExternalPtr)):
            new = self.emit(GlobalLoad(self.primal(value.ptr), ret_type=value.ret_type))
        else:
            new = self.emit(AdStackLoadTop(self.tape(value), ret_type=value.ret_type))
        self.scope[value] = new
        return new

    def tape(self, value: Stmt) -> AdStackAlloca:
        """The autodiff stack recording `value` each time the forward code computes it."""
        stack = self.stacks.get(value)
        if stack is None:
            stack = AdStackAlloca(ret_type=value.ret_type, loc=value.loc)
            self.ib.insert(0, stack)
            value.insert_after(AdStackPush(stack, value, loc=value.loc))
            self.stacks[value] = stack
        return stack

    # --- adjoints -------------------------------------------------------------------------

    def adjoint(self, key: Stmt, create: bool) -> Alloca | None:
        """The local variable holding the adjoint of value or variable `key`, made zero at the
        top of the adjoint block of the block that defines `key`."""
        slot = self.adjoints.get(key)
        if slot is None and create:
            dtype = pointee(key) if isinstance(key, Alloca) else key.ret_type
            slot = Alloca(ret_type=PointerType(dtype), loc=key.loc)
            self.reverse_of[key.parent].insert(0, slot)
            self.adjoints[key] = slot
        return slot

    def wanted(self, target: Stmt) -> bool:
        """Can an adjoint flow into `target`? Not into constants, indices or values computed
        before the IB (they depend on no field)."""
        if not isinstance(target, (*_DIFFERENTIABLE, Alloca)) or target.parent is None:
            return False
        return target in self.nested or target.parent is self.ib

    def accumulate(self, target: Stmt, value: Stmt) -> None:
        if not self.wanted(target):
            return
        slot = self.adjoint(target, create=True)
        dtype = pointee(slot)
        value = self.builder.cast(value, dtype)  # across a cast between float types
        old = self.emit(LocalLoad(slot, ret_type=dtype))
        self.emit(LocalStore(slot, self.builder.bin(BinaryOpType.add, old, value)))

    def read_adjoint(self, key: Stmt) -> Stmt | None:
        slot = self.adjoint(key, create=False)
        return None if slot is None else self.emit(LocalLoad(slot, ret_type=pointee(slot)))

    # --- one forward statement ---------------------------------------------------------------

    def reverse_stmt(self, stmt: Stmt) -> None:
        """Dispatch to `reverse_<Class>`. A statement without one is passed over only where its
        class says no derivative flows through it (`carries_derivative = False`): otherwise a
        float value would get a zero gradient in silence."""
        method = getattr(self, f"reverse_{type(stmt).__name__}", None)
        if method is not None:
            method(stmt)
        elif stmt.carries_derivative and is_real(stmt):
            raise missing_rule(stmt, "reverse")

    def refuse(self, stmt: Stmt) -> None:
        forbid(stmt, f"'{type(stmt).__name__}' cannot be differentiated (reverse mode)")

    reverse_StructFor = reverse_While = reverse_Offloaded = refuse
    reverse_Break = reverse_Continue = reverse_Return = refuse
    reverse_FuncCall = refuse  # a recursive real function: the pipeline refuses it first
    reverse_SharedLoad = reverse_SharedStore = reverse_SharedAtomic = refuse  # ir/simt.py

    def reverse_Rand(self, stmt: Stmt) -> None:
        # the adjoint kernel would draw again and get other numbers than the forward run did
        forbid_at_adjoint(
            stmt,
            "RandStmt not supported in AutoDiff: ti.random() has no derivative, and the "
            "gradient kernel would draw other numbers than the forward run; draw into a field "
            "in a kernel of its own, then differentiate the kernel that reads it",
        )

    reverse_MatrixInit = reverse_GetElement = scalarized

    def reverse_arithmetic(self, stmt: Stmt) -> None:
        if not is_real(stmt):
            return
        adj = self.read_adjoint(stmt)
        if adj is None:
            return
        for operand, partial in partials(self.builder, stmt, self.wanted):
            self.accumulate(
                operand, self.builder.mul(adj, self.builder.cast(partial, adj.ret_type))
            )

    reverse_UnaryOp = reverse_BinaryOp = reverse_TernaryOp = reverse_arithmetic

    def reverse_LocalLoad(self, stmt: LocalLoad) -> None:
        adj = self.read_adjoint(stmt) if is_real(stmt) else None
        if adj is not None and isinstance(stmt.ptr, Alloca):
            self.accumulate(stmt.ptr, adj)

    def reverse_LocalStore(self, stmt: LocalStore) -> None:
        if not is_real(stmt.value) or not isinstance(stmt.ptr, Alloca):
            return
        adj = self.read_adjoint(stmt.ptr)
        if adj is not None:  # the stored value takes the variable's adjoint, which restarts
            self.accumulate(stmt.value, adj)
            self.emit(
                LocalStore(self.adjoint(stmt.ptr, False), self.builder.const(0.0, adj.ret_type))
            )

    def reverse_If(self, stmt: If) -> None:
        new = self.emit(If(self.primal(stmt.cond), loc=stmt.loc))
        self.reverse_block(stmt.true_block, new.true_block)
        self.reverse_block(stmt.false_block, new.false_block)

    def reverse_RangeFor(self, stmt: RangeFor) -> None:
        begin, end = self.primal(stmt.begin), self.primal(stmt.end)
        new = self.emit(
            RangeFor(begin, end, reversed=not stmt.reversed, serialize=True, loc=stmt.loc)
        )
        body_scope = self.scope.new_child()
        for index in (s for s in walk(stmt.body) if isinstance(s, LoopIndex) and s.loop is stmt):
            body_scope[index] = new.body.append(
                LoopIndex(new, index.index, ret_type=index.ret_type)
            )
        saved, self.scope = self.scope, body_scope
        self.reverse_block(stmt.body, new.body)
        self.scope = saved
