"""Loop-invariant code motion (loop_invariant_code_motion).

A computation inside a loop whose inputs are all defined outside the loop gives the same answer on
every iteration, so it can be done once, just before the loop. We move pure statements
(arithmetic, constants, address computations) out of serial `for` and `while` bodies, innermost
loop first, so a value can climb out of several loops in one run. Loads, atomics and variables stay
where they are (memory may change from one iteration to the next), and nothing leaves an `if`,
whose condition might guard it. The outermost parallel `for` of a kernel is left alone: what runs
before it would have to be handed to its threads through memory.
"""

from __future__ import annotations

from tistudio.ir.statements import LoopIndex, RangeFor, While
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.passes.context import PassContext
from tistudio.passes.util import is_pure


def run(kernel: Kernel, ctx: PassContext) -> bool:
    return _visit(kernel.body)


def _visit(block: Block) -> bool:
    changed = False
    for stmt in list(block.stmts):
        for inner in stmt.blocks():  # inner loops first: what they hoist may climb further
            changed |= _visit(inner)
        if isinstance(stmt, While) or (isinstance(stmt, RangeFor) and _is_serial(stmt)):
            changed |= _hoist(stmt)
    return changed


def _is_serial(loop: RangeFor) -> bool:
    """A range-for runs serially unless it is a top-level loop of the kernel (then parallel)."""
    return loop.serialize or loop.parent.parent_stmt is not None  # type: ignore[union-attr]


def _hoist(loop: Stmt) -> bool:
    """Move the invariant statements of `loop`'s body, in order, to just before `loop`."""
    body = loop.blocks()[0]
    moved: dict[Stmt, None] = {}  # in order; statements using them may move too
    for stmt in body.stmts:
        if _is_invariant(stmt, loop, body, moved):
            moved[stmt] = None
    if not moved:
        return False
    body.stmts = [s for s in body.stmts if s not in moved]
    loop.insert_before(*moved)
    return True


def _is_invariant(stmt: Stmt, loop: Stmt, body: Block, moved: dict[Stmt, None]) -> bool:
    if not is_pure(stmt) or (isinstance(stmt, LoopIndex) and stmt.loop is loop):
        return False
    # an operand is visible here, so it is either earlier in `body` or outside the loop
    return all(op.parent is not body or op in moved for op in stmt.operands())
