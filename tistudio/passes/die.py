"""Dead instruction elimination (die).

A statement whose value nobody reads and which writes nothing can be deleted. We walk the kernel
backwards, so by the time we reach a statement, every statement that could have used it has
already been visited, and one sweep removes whole dead chains. A local variable (`alloca`) that is
only ever written is dead too, together with its stores, and so are an `if` with two empty
branches and a `for` loop with an empty body.
"""

from __future__ import annotations

from tistudio.ir.statements import Alloca, If, LocalStore, RangeFor, StructFor
from tistudio.ir.stmt import Block, Kernel, Stmt, walk_backward
from tistudio.passes.context import PassContext
from tistudio.passes.util import erase_all


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    while True:
        dead, reader_died = _sweep(kernel)
        erase_all(dead)
        changed |= bool(dead)
        if not reader_died:  # else a variable may have become write-only: sweep again
            return changed


def _sweep(kernel: Kernel) -> tuple[set[Stmt], bool]:
    uses: dict[Stmt, int] = {}
    read: set[Stmt] = set()
    _count_uses(kernel.body, uses, read)
    dead: set[Stmt] = set()
    reader_died = False
    for stmt in walk_backward(kernel.body):
        if _is_dead(stmt, uses, read, dead):
            dead.add(stmt)
            for op in stmt.operands():
                uses[op] -= 1
                reader_died |= op in read and not isinstance(stmt, LocalStore)
    return dead, reader_died


def _count_uses(block: Block, uses: dict[Stmt, int], read: set[Stmt]) -> None:
    """Count the uses of every statement, and find the allocas that something reads."""
    for stmt in block.stmts:
        uses.setdefault(stmt, 0)
        for op in stmt.operands():
            uses[op] = uses.get(op, 0) + 1
            if isinstance(op, Alloca) and not (isinstance(stmt, LocalStore) and op is stmt.ptr):
                read.add(op)
        for inner in stmt.blocks():
            _count_uses(inner, uses, read)


def _is_dead(stmt: Stmt, uses: dict[Stmt, int], read: set[Stmt], dead: set[Stmt]) -> bool:
    if isinstance(stmt, LocalStore):  # a store that no load can ever observe
        return isinstance(stmt.ptr, Alloca) and stmt.ptr not in read
    if isinstance(stmt, (If, RangeFor, StructFor)):  # control flow around nothing at all
        return all(s in dead for block in stmt.blocks() for s in block)
    return not stmt.has_side_effects and uses[stmt] == 0
