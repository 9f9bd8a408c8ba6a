"""Small helpers shared by reverse and forward mode."""

from __future__ import annotations

import dataclasses
from typing import NoReturn

from tistudio.ir.errors import InternalCompilerError
from tistudio.ir.snode import SNode
from tistudio.ir.statements import GlobalPtr
from tistudio.ir.stmt import Stmt


def shallow_copy(stmt: Stmt) -> Stmt:
    """A detached copy of a statement without blocks (same operands and attributes)."""
    lists = {
        n: list(getattr(stmt, n)) for n in stmt.operand_fields if isinstance(getattr(stmt, n), list)
    }
    return dataclasses.replace(stmt, parent=None, **lists)  # type: ignore[arg-type]


def companion(ptr: Stmt, kind: str) -> SNode | None:
    """The place SNode of `x.grad` (`kind="adjoint"`) or `x.dual` (`"dual"`) for a pointer
    into field `x`, or None when `x` has none (an integer field, a field without
    `needs_grad`, an ndarray)."""
    if not isinstance(ptr, GlobalPtr):
        return None
    return getattr(ptr.snode, kind)


def missing_rule(stmt: Stmt, mode: str) -> InternalCompilerError:
    """The error for a float statement that autodiff has no rule for (a tistudio bug)."""
    name = type(stmt).__name__
    return InternalCompilerError(
        f"auto_diff ({mode} mode) has no rule for '{name}' at {stmt.loc}: give it one in "
        f"passes/autodiff/, or declare `carries_derivative = False` on {name} if no derivative "
        "flows through its value"
    )


def scalarized(_self: object, stmt: Stmt) -> NoReturn:
    """A tensor statement, which `scalarize` removes before `auto_diff` runs."""
    raise InternalCompilerError(f"'{type(stmt).__name__}' reached auto_diff: scalarize runs first")


def forbid_at_adjoint(stmt: Stmt, message: str) -> NoReturn:
    """Raise the user's error for a statement that has no adjoint (Taichi's RuntimeError)."""
    from tistudio.frontend.errors import TaichiAutodiffError

    raise TaichiAutodiffError(message, stmt.loc)


def forbid(stmt: Stmt, message: str) -> NoReturn:
    """Raise the user's error for a kernel that autodiff cannot handle, at its line."""
    from tistudio.frontend.errors import TaichiSyntaxError

    raise TaichiSyntaxError(message, stmt.loc)
