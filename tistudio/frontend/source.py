"""Getting a kernel's or func's Python source and AST, with the offsets that map AST positions
back to the user's file (or notebook cell)."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import weakref
from collections import ChainMap
from collections.abc import Callable
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
    found = _indented_block(fn)
    if found is not None:
        lines, first_line, tree = found
        source = "".join(lines)
        col_offset = _indent_of(source)
    else:
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise TaichiSyntaxError(
                f"cannot read the source of {getattr(fn, '__name__', fn)!r}: {e}. Kernels must "
                "be defined in a file or a notebook cell, not typed at an interactive prompt."
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


_SIGNATURES: weakref.WeakKeyDictionary[Callable[..., Any], inspect.Signature] = (
    weakref.WeakKeyDictionary()
)


def signature_of(fn: Callable[..., Any]) -> inspect.Signature:
    """`inspect.signature(fn)`, kept while `fn` lives: a kernel checks the arguments of every
    builtin and func it calls, and building a signature costs ~20 us each time."""
    try:
        return _SIGNATURES[fn]
    except (KeyError, TypeError):  # TypeError: `fn` takes no weak reference
        pass
    signature = inspect.signature(fn)
    try:
        _SIGNATURES[fn] = signature
    except TypeError:
        pass
    return signature


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


def _indented_block(fn: Any) -> tuple[list[str], int, ast.Module] | None:
    """`fn`'s lines (decorators first), first line number and parsed AST, found by indentation
    alone: from the line `fn.__code__` starts at (its first decorator), past the `def` line, up
    to the first code line indented no deeper. `inspect.getsourcelines` tokenizes instead
    (~1 ms per kernel). A block cut short inside a bracket or a string does not parse, and a
    block that parses to anything but this one function is not trusted: None then, and the
    caller asks `inspect`."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    file_lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    start = code.co_firstlineno - 1
    if not 0 <= start < len(file_lines):
        return None
    indent = _indent_of(file_lines[start])
    lines = file_lines[start : _block_end(file_lines, start, indent)]
    dedented = [
        line[indent:] if line[:indent].isspace() and line[indent:] else line for line in lines
    ]
    try:
        tree = ast.parse("".join(dedented))
    except SyntaxError:
        return None
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != fn.__name__:
        return None
    return lines, start + 1, tree


def _block_end(file_lines: list[str], start: int, indent: int) -> int:
    """One past the last code line of the `def` at or after `start` (skipping decorators):
    blank lines and comments never end the block, any code line indented `indent` or less
    does."""
    header = start
    while header < len(file_lines) and not file_lines[header].lstrip().startswith("def "):
        header += 1
    last_code = header
    for index in range(header + 1, len(file_lines)):
        text = file_lines[index]
        stripped = text.lstrip()
        if stripped and not stripped.startswith("#"):
            if len(text) - len(stripped) <= indent:
                break
            last_code = index
    return last_code + 1


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
