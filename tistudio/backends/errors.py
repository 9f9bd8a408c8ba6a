"""Errors shared by the back ends.

A back end that meets a statement it cannot express raises `UnsupportedOnBackend`, which names
the statement, the back end and the user's source line. It is never a silent fallback.
"""

from __future__ import annotations

from tistudio.ir.printer import Printer
from tistudio.ir.stmt import Stmt


class UnsupportedOnBackend(NotImplementedError):
    """A statement (or an operator/type combination) that this back end cannot compile."""

    def __init__(self, stmt: Stmt, backend: str, reason: str = "") -> None:
        self.stmt = stmt
        self.backend = backend
        self.reason = reason
        super().__init__(self._message())

    def _message(self) -> str:
        what = _describe(self.stmt)
        where = f" at {self.stmt.loc}" if self.stmt.loc is not None else ""
        text = f"{what} is not supported on the {self.backend} back end{where}"
        if self.reason:
            text += f": {self.reason}"
        if self.stmt.loc is not None and self.stmt.loc.source_line:
            text += f"\n    {self.stmt.loc.source_line.strip()}"
        return text


def _describe(stmt: Stmt) -> str:
    """`BinaryOp 'pow' (<i32> ... = pow $a $b)`: the class, the operator and the printed text."""
    name = type(stmt).__name__
    op = getattr(stmt, "op", None)
    if op is not None:
        name += f" {getattr(op, 'value', op)!r}"
    return f"{name} ({Printer().header(stmt)})"
