"""Common subexpression elimination (cse).

When the same pure computation appears twice, say `add $1 $2` in a loop body and again a few lines
later, the second one can reuse the first one's value instead of computing it again. A statement
may reuse an earlier identical one that is visible from it: earlier in its own block or in a block
that encloses it, never in a sibling branch or in another offloaded task. Only pure statements
(arithmetic, constants, addresses) take part; loads are not merged, because memory may change
between them.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import fields

from tistudio.ir.statements import ALL_STATEMENTS, Const, Offloaded
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.passes.context import PassContext
from tistudio.passes.util import erase_all, is_pure, redirect_operands

Table = dict[Hashable, Stmt]


def run(kernel: Kernel, ctx: PassContext) -> bool:
    replaced: dict[Stmt, Stmt] = {}
    _visit(kernel.body, {}, replaced)
    erase_all(replaced)
    return bool(replaced)


def _visit(block: Block, table: Table, replaced: dict[Stmt, Stmt]) -> None:
    """Number the pure statements of `block` in `table`, merging repeats. The table is one
    scoped dictionary: what a block adds is removed when the walk leaves it (a key found in
    an enclosing block is merged, never added again, so removing cannot uncover a shadowed
    entry); a ChainMap per block cost a Python-level loop on every lookup."""
    added: list[Hashable] = []
    for stmt in block.stmts:
        redirect_operands(stmt, replaced)  # so that a repeat of a repeat is found as well
        if is_pure(stmt):
            key = _key(stmt)
            earlier = table.get(key)
            if earlier is not None:
                replaced[stmt] = earlier
                continue
            table[key] = stmt
            added.append(key)
        if stmt.block_fields:
            # a task is compiled on its own: it must not use values of the code around it
            inner_table = {} if isinstance(stmt, Offloaded) else table
            for inner in stmt.blocks():
                _visit(inner, inner_table, replaced)
    for key in added:
        del table[key]


def _key(stmt: Stmt) -> Hashable:
    """Equal for statements that `same_value_as` calls equal, but -0.0 and 0.0 stay apart."""
    if isinstance(stmt, Const):
        return (Const, stmt.ret_type, repr(stmt.value))
    attributes = (getattr(stmt, name) for name in _ATTRIBUTES[type(stmt)])
    return (type(stmt), stmt.ret_type, *attributes, *stmt.operands())


def _attribute_names(cls: type[Stmt]) -> tuple[str, ...]:
    """The names `Stmt.attributes()` returns for `cls` (`op`, `snode`, `offset` ...)."""
    skip = {"ret_type", "loc", "parent", *cls.operand_fields, *(n for n, _ in cls.block_fields)}
    return tuple(f.name for f in fields(cls) if f.name not in skip)


# looked up per statement
_ATTRIBUTES = {cls: _attribute_names(cls) for cls in ALL_STATEMENTS if cls.pure}
