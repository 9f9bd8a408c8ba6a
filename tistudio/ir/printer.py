"""Deterministic text form of the IR, close to Taichi's `print_ir`.

Statements are renumbered `$0, $1, ...` in visit order on every print, so two prints of the same
IR are identical and a diff between passes shows only what a pass changed. Value statements print
as `<f32> $5 = add $4 $2`, statements without a value as `$6 : global store [$3 <- $5]`, and
nested blocks are indented two spaces, with `} else {`-style separators between a statement's
blocks.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any

from tistudio.ir.snode import SNode
from tistudio.ir.statements import Offloaded, UnaryOp
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.ir.types import OpaqueType, PointerType, PrimitiveType

PLACEHOLDER = re.compile(r"\{(\w+)\}")


class Printer:
    """Prints one kernel; holds the statement numbering for that print."""

    def __init__(self, with_locations: bool = False) -> None:
        self.names: dict[Stmt, int] = {}
        self.lines: list[str] = []
        self.line_stmts: list[Stmt | None] = []
        self.with_locations = with_locations

    def name(self, stmt: Stmt) -> str:
        if stmt not in self.names:  # an operand defined nowhere (a verifier error); still print
            return f"$?{type(stmt).__name__}"
        return f"${self.names[stmt]}"

    def format_value(self, value: Any) -> str:
        if isinstance(value, Stmt):
            return self.name(value)
        if isinstance(value, list):
            return ", ".join(self.format_value(v) for v in value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, Enum):
            return str(value.value)
        if isinstance(value, SNode):
            return value.ref()
        if isinstance(value, float):
            return repr(value)
        if isinstance(value, (PrimitiveType, PointerType, OpaqueType)):
            return str(value)
        return str(value)

    def header(self, stmt: Stmt) -> str:
        if isinstance(stmt, Offloaded):  # then what the back ends' passes chose for it
            body = offloaded_header(stmt) + stmt.schedule.text(self.name)
        else:

            def sub(m: re.Match[str]) -> str:
                attr = getattr(stmt, m.group(1))
                if isinstance(attr, str):  # a string field (a message) prints quoted
                    return json.dumps(attr)
                return self.format_value(attr() if callable(attr) else attr)

            body = PLACEHOLDER.sub(sub, stmt.syntax)
            if isinstance(stmt, UnaryOp) and stmt.op.is_cast:  # Taichi: cast_value<f32> $3
                body = body.replace(" ", f"<{stmt.ret_type}> ", 1)
        name = self.name(stmt)
        if stmt.is_void:
            return f"{name} : {body}"
        prefix = f"<{stmt.ret_type}> " if stmt.ret_type is not None else ""
        return f"{prefix}{name} = {body}"

    def number(self, block: Block) -> None:
        for stmt in block:
            self.names[stmt] = len(self.names)
            for inner in stmt.blocks():
                self.number(inner)

    def emit(self, text: str, depth: int, stmt: Stmt | None) -> None:
        self.lines.append("  " * depth + text)
        self.line_stmts.append(stmt)

    def print_block(self, block: Block, depth: int) -> None:
        for stmt in block:
            head = self.header(stmt)
            if self.with_locations and stmt.loc is not None:
                head += f"  # line {stmt.loc.line}"
            shown = [
                (label, b)
                for (_, label), b in zip(stmt.block_fields, stmt.blocks())
                if len(b) or label in ("", "body")
            ]
            if not shown:
                self.emit(head, depth, stmt)
                continue
            first_label, first_block = shown[0]
            self.emit(f"{head} {first_label} {{" if first_label else f"{head} {{", depth, stmt)
            self.print_block(first_block, depth + 1)
            for label, inner in shown[1:]:
                self.emit(f"}} {label} {{", depth, stmt)
                self.print_block(inner, depth + 1)
            self.emit("}", depth, stmt)

    def print_kernel(self, kernel: Kernel) -> str:
        """The kernel, then each of its IR functions (`ir/calls.py`), numbered on from it."""
        self.number(kernel.body)
        for function in kernel.functions:
            self.number(function.body)
        self.emit("kernel {", 0, None)
        self.print_block(kernel.body, 1)
        self.emit("}", 0, None)
        for function in kernel.functions:
            self.emit(f"function {function.signature()} {{", 0, None)  # type: ignore[attr-defined]
            self.print_block(function.body, 1)
            self.emit("}", 0, None)
        return "\n".join(self.lines)


def offloaded_header(stmt: Offloaded) -> str:
    if stmt.task_type.value == "range_for":
        text = f"offloaded range_for{stmt.range_text()}"
    elif stmt.task_type.value == "struct_for":
        text = f"offloaded struct_for({stmt.snode.ref() if stmt.snode else '?'})"
    else:
        text = "offloaded serial"
    if stmt.tls_size:
        text += f" tls_size={stmt.tls_size}"
    if stmt.block_dim:
        text += f" block_dim={stmt.block_dim}"
    return text


def print_ir(kernel: Kernel) -> str:
    """The text of `kernel`, as the studio and the golden tests show it."""
    return Printer().print_kernel(kernel)


def print_ir_with_lines(kernel: Kernel) -> tuple[str, list[int | None]]:
    """The text of `kernel` plus, per printed line, the user's source line it came from."""
    p = Printer()
    text = p.print_kernel(kernel)
    return text, [s.loc.line if s is not None and s.loc is not None else None for s in p.line_stmts]
