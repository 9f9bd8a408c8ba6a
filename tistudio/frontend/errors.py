"""User-facing compile errors, named as Taichi names them, pointing at the user's line.

A message looks like Taichi's: the file and line, the source line, a caret under the column, and
what is wrong. These are the user's mistakes; broken compiler invariants raise
`InternalCompilerError` from `tistudio.ir` instead.
"""

from __future__ import annotations

from tistudio.ir.stmt import SourceLoc


class TaichiCompilationError(Exception):
    """Base of the errors raised while compiling a kernel."""

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.raw_message = message
        self.loc = loc
        super().__init__(format_error(message, loc))


class TaichiSyntaxError(TaichiCompilationError, SyntaxError):
    """Python syntax that kernels do not support, or a misuse of a Taichi construct."""

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


class TaichiTypeError(TaichiCompilationError, TypeError):
    """An operation on values of types it does not accept."""


class TaichiNameError(TaichiCompilationError, NameError):
    """A name that is not defined where the kernel uses it."""


class TaichiRuntimeError(RuntimeError):
    """A failure while running a compiled kernel or touching runtime objects."""


def format_error(message: str, loc: SourceLoc | None) -> str:
    if loc is None:
        return message
    lines = [f'File "{loc.filename}", line {loc.line}:']
    if loc.source_line:
        stripped = loc.source_line.rstrip()
        indent = len(stripped) - len(stripped.lstrip())
        lines.append("    " + stripped.lstrip())
        lines.append("    " + " " * max(0, loc.col - indent) + "^")
    lines.append(message)
    return "\n".join(lines)
