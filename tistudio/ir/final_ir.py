"""The final-IR contract (docs/compiler-contract.md), checked at the end of every compile.

The back ends trust the passes: a `GlobalPtr` that `lower_access` missed would reach the CPU
back end, which would answer "not supported on the cpu back end", blaming the user's kernel for
a compiler bug. So `compile_to_final_ir` always ends with this check, one walk over the kernel
(tens of microseconds), not only in debug mode as the full verifier does. What it refuses is
derived from the statements themselves: a class that declares `removed_by` never reaches a back
end, and neither does a statement of the frontend IR (`ir/frontend.py`), which `lower_ast`
removes.
"""

from __future__ import annotations

from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, TaskType
from tistudio.ir.printer import Printer
from tistudio.ir.statements import BinaryOp, Offloaded, Return
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.ir.verifier import IRVerifyError

# Operators the final IR has no `BinaryOp` of, and the pass that rewrites each one away.
_REMOVED_OPERATORS = {
    BinaryOpType.truediv: "type_check",  # -> div (on floats: operands cast first)
    BinaryOpType.logical_and: "lower_ast",  # -> branches that short-circuit
    BinaryOpType.logical_or: "lower_ast",
    BinaryOpType.floordiv: "demote_operations",  # -> div and a sign fix, or floor(div)
}


class FinalIRError(IRVerifyError):
    """The final IR breaks the contract the back ends rely on: a tistudio bug."""


def removing_pass(cls: type[Stmt]) -> str:
    """The pass after which no statement of class `cls` is left ("" if it may stay)."""
    if cls.__module__ == fe.__name__:
        return "lower_ast"
    return cls.removed_by


def check_final_ir(kernel: Kernel) -> None:
    """Raise `FinalIRError` if `kernel` is not final IR: a statement outside an `Offloaded`
    task, or one that a pass should have removed (see docs/compiler-contract.md)."""
    for task in kernel.body:
        if not isinstance(task, Offloaded):
            _fail(
                kernel,
                task,
                "is outside any offloaded task; pass 'offload' should have put it in one",
            )
        for block in task.blocks():
            _check_block(kernel, task, block)
    for function in kernel.functions:  # a function's body runs inside the task that calls it
        _check_block(function, None, function.body)


def _check_block(kernel: Kernel, task: Offloaded | None, block: Block) -> None:
    for stmt in block:
        cls = type(stmt)
        removed_by = removing_pass(cls)
        if removed_by:
            _fail(kernel, stmt, f"is still in the IR; pass {removed_by!r} should have removed it")
        if cls is BinaryOp and stmt.op in _REMOVED_OPERATORS:
            removed_by = _REMOVED_OPERATORS[stmt.op]
            _fail(
                kernel,
                stmt,
                f"{stmt.op.value} is still in the IR; pass {removed_by!r} should have removed it",
            )
        if cls is Offloaded:
            _fail(kernel, stmt, "is inside another offloaded task; tasks do not nest")
        if cls is Return and task is not None and task.task_type is not TaskType.serial:
            _fail(kernel, stmt, f"is in a {task.task_type.value} task; only serial tasks return")
        if stmt.block_fields:
            for inner in stmt.blocks():
                _check_block(kernel, task, inner)


def _fail(kernel: Kernel, stmt: Stmt, message: str) -> None:
    printer = Printer()
    printer.number(kernel.body)
    where = f"\n  from: {stmt.loc}" if stmt.loc is not None else ""
    raise FinalIRError(
        f"final IR of kernel {kernel.name!r}: {type(stmt).__name__} {message}.\n"
        f"  at: {printer.header(stmt)}{where}\n"
        "This is a tistudio bug, not a mistake in your kernel: please report it, with the kernel."
    )
