"""Helpers shared by the simplification passes: purity, batch editing, and the rule driver.

Rewriting passes record replacements in a dictionary and redirect operands as they walk the kernel
in program order, instead of calling `Kernel.replace_all_uses` (a whole-kernel walk) once per
replaced statement. Every use of a statement comes after it in program order, so one walk is enough.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tistudio.ir.stmt import Block, Kernel, Stmt


def is_pure(stmt: Stmt) -> bool:
    """True if `stmt` computes a value from its operands alone (the `pure` trait): it reads no
    memory that can change and writes nothing, so two equal ones compute the same value (cse) and
    one whose operands do not change inside a loop can be computed once before it (licm)."""
    return stmt.pure


def redirect_operands(stmt: Stmt, replacements: dict[Stmt, Stmt]) -> None:
    """Make `stmt` use `replacements[op]` instead of each replaced operand `op`."""
    if not replacements:
        return
    for op in stmt.operands():
        new = replacements.get(op)
        if new is not None:
            stmt.replace_operand(op, new)


def erase_all(stmts: Iterable[Stmt]) -> None:
    """Erase many statements at once, rebuilding each affected block's list a single time."""
    dead = set(stmts)
    blocks = {id(s.parent): s.parent for s in dead if s.parent is not None}
    for block in blocks.values():
        block.stmts = [s for s in block.stmts if s not in dead]
    for s in dead:
        s.parent = None


Rewrite = Callable[[Stmt], "Stmt | None"]


def rewrite_in_order(kernel: Kernel, rewrite: Rewrite) -> bool:
    """Replace every statement for which `rewrite` returns a value; True if any was replaced.

    `rewrite(stmt)` sees `stmt` with its operands already redirected to their replacements, so
    chains like `(x + 0) * 1` collapse in one walk. It returns an existing statement that
    dominates `stmt`, or a new unplaced one (whose unplaced operands are placed before it too),
    which is offered to `rewrite` again in case another rule applies to it.
    """
    replaced: dict[Stmt, Stmt] = {}
    _rewrite_block(kernel.body, rewrite, replaced)
    return bool(replaced)


def _rewrite_block(block: Block, rewrite: Rewrite, replaced: dict[Stmt, Stmt]) -> None:
    out: list[Stmt] = []
    for stmt in block.stmts:
        redirect_operands(stmt, replaced)
        for inner in stmt.blocks():
            _rewrite_block(inner, rewrite, replaced)
        new = rewrite(stmt)
        if new is None:
            out.append(stmt)
            continue
        while new.parent is None and (again := rewrite(new)) is not None:
            new = again
        _place(new, out, block, stmt)
        replaced[stmt] = new
        stmt.parent = None
    block.stmts = out


def _place(stmt: Stmt, out: list[Stmt], block: Block, origin: Stmt) -> None:
    """Append `stmt` (and its unplaced operands first) to `out`, at the user's line of `origin`."""
    if stmt.parent is not None:
        return
    for op in stmt.operands():
        _place(op, out, block, origin)
    stmt.parent = block
    stmt.loc = stmt.loc or origin.loc
    out.append(stmt)
