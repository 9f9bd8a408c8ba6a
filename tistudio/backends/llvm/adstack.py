"""Autodiff stacks on the CPU: `AdStack*` statements as arrays on the task's native stack.

An `AdStackAlloca` of `max_size` entries becomes two entry-block arrays (primal values and
adjoints) and an `i32` count that the statement resets to 0 where it stands, so a stack
declared in a loop body starts empty on every iteration. A push past `max_size` overwrites the
top entry instead of running off the array (`determine_ad_stack_size` makes that rare, and in
debug mode puts a check on `stack count` before each push whose stack size is a guess).
"""

from __future__ import annotations

from dataclasses import dataclass

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32, constant, memory_type
from tistudio.ir import statements as s
from tistudio.ir.types import PrimitiveType


@dataclass
class _Stack:
    count: ir.Value
    primal: ir.Value
    adjoint: ir.Value
    size: int
    dtype: PrimitiveType


class AdStackEmitter:
    """`emit_AdStack*` methods mixed into the CPU `TaskEmitter`."""

    def emit_AdStackAlloca(self, stmt: s.AdStackAlloca) -> None:
        dtype = stmt.ret_type
        assert isinstance(dtype, PrimitiveType)
        size = max(stmt.max_size, 1)
        array = ir.array_type(memory_type(dtype), size)
        name = self.name_of(stmt)
        stack = _Stack(
            self._entry_alloca(I32, f"{name}_count", 4),
            self._entry_alloca(array, f"{name}_primal", 8),
            self._entry_alloca(array, f"{name}_adjoint", 8),
            size,
            dtype,
        )
        self.builder.store(ir.Constant(I32, 0), stack.count)
        self.values[stmt] = stack

    def _slot(self, stack: _Stack, array: ir.Value, index: ir.Value) -> ir.Value:
        return self.builder.gep(
            array, [index], inbounds=True, source_etype=memory_type(stack.dtype)
        )

    def _top(self, stack: _Stack) -> ir.Value:
        """Index of the newest entry (0 when empty, which only a compiler bug would read)."""
        b = self.builder
        top = b.sub(b.load(stack.count, typ=I32), ir.Constant(I32, 1))
        return b.select(b.icmp_signed("<", top, ir.Constant(I32, 0)), ir.Constant(I32, 0), top)

    def emit_AdStackPush(self, stmt: s.AdStackPush) -> None:
        b, stack = self.builder, self.values[stmt.stack]
        count = b.load(stack.count, typ=I32)
        last = ir.Constant(I32, stack.size - 1)
        index = b.select(b.icmp_signed("<", count, last), count, last)
        self.store(self.values[stmt.value], self._slot(stack, stack.primal, index), stack.dtype)
        self.store(constant(stack.dtype, 0), self._slot(stack, stack.adjoint, index), stack.dtype)
        b.store(b.add(index, ir.Constant(I32, 1)), stack.count)

    def emit_AdStackPop(self, stmt: s.AdStackPop) -> None:
        b, stack = self.builder, self.values[stmt.stack]
        b.store(self._top(stack), stack.count)

    def emit_AdStackLoadTop(self, stmt: s.AdStackLoadTop) -> None:
        stack = self.values[stmt.stack]
        slot = self._slot(stack, stack.primal, self._top(stack))
        self.values[stmt] = self.load(slot, stack.dtype, self.name_of(stmt))

    def emit_AdStackLoadTopAdj(self, stmt: s.AdStackLoadTopAdj) -> None:
        stack = self.values[stmt.stack]
        slot = self._slot(stack, stack.adjoint, self._top(stack))
        self.values[stmt] = self.load(slot, stack.dtype, self.name_of(stmt))

    def emit_AdStackCount(self, stmt: s.AdStackCount) -> None:
        stack = self.values[stmt.stack]
        self.values[stmt] = self.builder.load(stack.count, typ=I32, name=self.name_of(stmt))

    def emit_AdStackAccAdjoint(self, stmt: s.AdStackAccAdjoint) -> None:
        stack = self.values[stmt.stack]
        slot = self._slot(stack, stack.adjoint, self._top(stack))
        old = self.load(slot, stack.dtype)
        self.store(self.builder.fadd(old, self.values[stmt.value]), slot, stack.dtype)
