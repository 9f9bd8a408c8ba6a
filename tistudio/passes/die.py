"""Dead instruction elimination (die).

A statement whose value nobody reads and which writes nothing can be deleted. We walk the kernel
backwards, so by the time we reach a statement, every statement that could have used it has
already been visited, and one sweep removes whole dead chains. A local variable (`alloca`) that is
only ever written is dead too, together with its stores, and so are an `if` with two empty
branches and a `for` loop with an empty body.
"""

from __future__ import annotations

from tistudio.ir.statements import Alloca, If, LocalStore, RangeFor, StructFor
from tistudio.ir.stmt import Kernel, Stmt, walk_backward
from tistudio.passes.context import PassContext
from tistudio.passes.util import erase_all


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    while _sweep(kernel):  # removing a load can leave its variable write-only: sweep again
        changed = True
    return changed


def _sweep(kernel: Kernel) -> bool:
    uses = kernel.use_counts()
    read = _read_allocas(kernel)
    dead: set[Stmt] = set()
    for stmt in walk_backward(kernel.body):
        if _is_dead(stmt, uses, read, dead):
            dead.add(stmt)
            for op in stmt.operands():
                uses[op] -= 1
    erase_all(dead)
    return bool(dead)


def _read_allocas(kernel: Kernel) -> set[Stmt]:
    """Allocas used by anything other than as the destination of a `local store`."""
    read: set[Stmt] = set()
    for stmt in kernel.walk():
        for op in stmt.operands():
            if isinstance(op, Alloca) and not (isinstance(stmt, LocalStore) and op is stmt.ptr):
                read.add(op)
    return read


def _is_dead(stmt: Stmt, uses: dict[Stmt, int], read: set[Stmt], dead: set[Stmt]) -> bool:
    if isinstance(stmt, LocalStore):  # a store that no load can ever observe
        return isinstance(stmt.ptr, Alloca) and stmt.ptr not in read
    if isinstance(stmt, (If, RangeFor, StructFor)):  # control flow around nothing at all
        return all(s in dead for block in stmt.blocks() for s in block)
    return not stmt.has_side_effects and uses[stmt] == 0
