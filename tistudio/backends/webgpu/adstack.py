"""Autodiff stacks in WGSL: `AdStack*` statements as function-scope arrays.

An `AdStackAlloca` of `max_size` entries declares two arrays (primal values and adjoints) and a
count where it stands; WGSL zero-initialises a `var` each time its declaration runs, so a stack
declared in a loop body starts empty on every iteration. A push past `max_size` overwrites the
top entry instead of indexing out of the array (in debug mode a check before it stops first).
"""

from __future__ import annotations

from tistudio.backends.webgpu import wgsl
from tistudio.ir import statements as s


class AdStackEmitter:
    """`emit_AdStack*` methods mixed into the WGSL `TaskEmitter`."""

    def emit_AdStackAlloca(self, stmt: s.AdStackAlloca) -> None:
        name = self.name_of(stmt)
        reg = self.reg(stmt, stmt.ret_type)
        size = max(stmt.max_size, 1)
        self.line(f"var {name}_p: array<{reg}, {size}>;")
        self.line(f"var {name}_a: array<{reg}, {size}>;")
        self.line(f"var {name}_c: i32 = 0;")
        self.locals[stmt] = name

    def _top(self, stack: s.Stmt) -> str:
        return f"max({self.locals[stack]}_c - 1, 0)"

    def emit_AdStackPush(self, stmt: s.AdStackPush) -> None:
        name = self.locals[stmt.stack]
        index = self.fresh("top")
        last = max(stmt.stack.max_size, 1) - 1
        self.line(f"let {index} = min({name}_c, {last});")
        self.line(f"{name}_p[{index}] = {self.value(stmt.value)};")
        self.line(f"{name}_a[{index}] = {wgsl.zero(stmt.stack.ret_type)};")
        self.line(f"{name}_c = {index} + 1;")

    def emit_AdStackPop(self, stmt: s.AdStackPop) -> None:
        self.line(f"{self.locals[stmt.stack]}_c = {self._top(stmt.stack)};")

    def emit_AdStackLoadTop(self, stmt: s.AdStackLoadTop) -> None:
        self.let(stmt, f"{self.locals[stmt.stack]}_p[{self._top(stmt.stack)}]")

    def emit_AdStackLoadTopAdj(self, stmt: s.AdStackLoadTopAdj) -> None:
        self.let(stmt, f"{self.locals[stmt.stack]}_a[{self._top(stmt.stack)}]")

    def emit_AdStackCount(self, stmt: s.AdStackCount) -> None:
        self.let(stmt, f"{self.locals[stmt.stack]}_c")

    def emit_AdStackAccAdjoint(self, stmt: s.AdStackAccAdjoint) -> None:
        slot = f"{self.locals[stmt.stack]}_a[{self._top(stmt.stack)}]"
        self.line(f"{slot} = {slot} + {self.value(stmt.value)};")
