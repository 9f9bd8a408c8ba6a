"""IR functions and calls: how a recursive `ti.real_func` exists in the IR.

A real function that is not part of a call cycle is compiled in place at each call, like a
`ti.func`. One that calls itself (directly or through other functions) cannot be: it becomes
a `Function`, a body of its own with typed parameters (read with `argload[k]`, as a kernel reads
its arguments) that ends in `return`, and each call of it becomes a `FuncCall` statement. The
kernel keeps its functions in `Kernel.functions`; every pass that works inside a task runs on
them too (`passes/pipeline.py`), and the printed IR shows each one after the kernel.

A call is opaque to the passes: it may read and write any field, so it has side effects (never
dead, never merged by cse, never hoisted out of a loop), and no load of global memory is
forwarded across it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tistudio.ir.stmt import Kernel, SourceLoc, Stmt


@dataclass(frozen=True)
class Callee:
    """The name of the IR function a `FuncCall` calls; prints bare (`call sum_0(...)`)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class FuncCall(Stmt):
    """Call IR function `func` with scalar `args`; its value is the function's one return
    value (a void function's call has no type)."""

    func: Callee
    args: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("args",)
    syntax: ClassVar = "call {func}({args})"
    has_side_effects: ClassVar = True  # the callee may write memory: an opaque call


@dataclass(eq=False)
class Function(Kernel):
    """One instantiation of a recursive real function: `params` are its scalar parameters
    (each a `Param` of kind "scalar"), `ret_types` its return value's type (none or one), and
    `loc` the line of its `def`, for errors that name it."""

    loc: SourceLoc | None = None

    def signature(self) -> str:
        """`sum_0(i32 n, i32 m) -> i32`, as the printed IR heads the function."""
        params = ", ".join(f"{p.dtype} {p.name}" for p in self.params)
        ret = f" -> {', '.join(str(t) for t in self.ret_types)}" if self.ret_types else ""
        return f"{self.name}({params}){ret}"
