"""Getting a kernel's or func's Python source and AST, with the offsets that map AST positions
back to the user's file (or notebook cell)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections import ChainMap
from dataclasses import dataclass
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError


@dataclass
class ParsedFunction:
    """The `def` node of a function plus what is needed to report positions in the user's file."""

    node: ast.FunctionDef
    filename: str
    line_offset: int  # file line = node line + line_offset
    col_offset: int  # file column = node column + col_offset (the dedent)
    file_lines: list[str]

    def source_line(self, file_line: int) -> str:
        index = file_line - self.line_offset - 1
        return self.file_lines[index] if 0 <= index < len(self.file_lines) else ""


def parse_function(fn: Any) -> ParsedFunction:
    """Parse `fn`'s source (done once per function; the AST is reused by every compile)."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise TaichiSyntaxError(
            f"cannot read the source of {getattr(fn, '__name__', fn)!r}: {e}. Kernels must be "
            "defined in a file or a notebook cell, not typed at an interactive prompt."
        ) from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    col_offset = _indent_of(source) - _indent_of(dedented)
    tree = ast.parse(dedented)
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return ParsedFunction(
        node=node,  # type: ignore[arg-type]
        filename=fn.__code__.co_filename,
        line_offset=first_line - 1,
        col_offset=col_offset,
        file_lines=[ln.rstrip("\n") for ln in lines],
    )


def function_globals(fn: Any) -> ChainMap[str, Any]:
    """Globals and closure variables as they are now: compile-time constants of the kernel
    being compiled, as in Taichi (a later change does not affect compiled kernels)."""
    closure: dict[str, Any] = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is assigned later in the outer scope
                pass
    return ChainMap(closure, fn.__globals__)


def _indent_of(text: str) -> int:
    for line in text.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


def resolve_annotation(fn: Any, annotation: Any) -> Any:
    """Evaluate a string annotation (`from __future__ import annotations`) in `fn`'s scope."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, dict(function_globals(fn)))  # noqa: S307 - the user's own code
    except Exception as e:  # noqa: BLE001 - report which annotation could not be understood
        raise TaichiSyntaxError(
            f"cannot evaluate the annotation {annotation!r} of {fn.__name__}: {e}"
        ) from None
