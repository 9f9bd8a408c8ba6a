"""Parse the printer's text back into IR, so tests can write IR as text (see `tests/passes`).

Each statement class's `syntax` becomes a regular expression; the kind of each placeholder
(operand, operand list, enum, SNode, number) comes from the dataclass field's annotation, so the
printer and the parser cannot drift apart. SNodes named in the text are taken from `snodes` (by
id) or made up on the spot as detached nodes when a test does not care about their geometry.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

from tistudio.ir import ops
from tistudio.ir.calls import Callee
from tistudio.ir.schedule import Schedule
from tistudio.ir.snode import SNode
from tistudio.ir.statements import ALL_STATEMENTS, Offloaded, normalize_value
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.ir.types import PrimitiveType, parse_type

_ENUMS = {
    "BinaryOpType": ops.BinaryOpType,
    "UnaryOpType": ops.UnaryOpType,
    "TernaryOpType": ops.TernaryOpType,
    "AtomicOpType": ops.AtomicOpType,
    "TaskType": ops.TaskType,
    "SNodeOpType": ops.SNodeOpType,
}
_SNODE_RE = r"S\d+[a-z]+(?:<\w+>)?"
_HEAD = re.compile(r"^(?:<(?P<type>[^>]+)> )?\$(?P<id>\d+) (?P<sep>[=:]) (?P<body>.*)$")
_OFFLOADED = re.compile(
    r"^offloaded (?P<kind>serial|range_for|struct_for)"
    r"(?:\((?P<a>[^,()]+(?:\([^)]*\))?)(?:, (?P<b>[^()]+(?:\([^)]*\))?))?\))?"
    r"(?: tls_size=(?P<tls>\d+))?(?: block_dim=(?P<block>\d+))?(?P<schedule>(?: \w+\(.*\))*)$"
)


_CAST = re.compile(r"^(cast_value|reinterpret_cast_bits)<\w+> ")


# attributes whose text converts on its own: a number, a flag, a quoted string, a callee
_CONVERTERS: dict[str, Any] = {
    "int": int,
    "bool": lambda text: text == "true",
    "str": json.loads,
    "Callee": Callee,
}


class ParseError(ValueError):
    pass


def _placeholder_regex(annotation: str) -> str:
    annotation = annotation.replace(" ", "")
    if annotation == "Stmt":
        return r"(\$\d+)"
    if annotation == "list[Stmt]":
        return r"((?:\$\d+(?:, \$\d+)*)?)"
    if annotation in _ENUMS:
        values = sorted((m.value for m in _ENUMS[annotation]), key=len, reverse=True)
        return "(" + "|".join(re.escape(v) for v in values) + ")"
    if annotation in ("SNode", "SNode|None"):
        return f"({_SNODE_RE})"
    if annotation == "int":
        return r"(-?\d+)"
    if annotation == "bool":
        return r"(true|false)"
    if annotation == "str":
        return r'("(?:[^"\\]|\\.)*")'
    if annotation == "Callee":
        return r"(\w+)"
    return r"(\S+)"


def _compile(cls: type[Stmt]) -> tuple[re.Pattern[str], list[tuple[str, str]]]:
    types = {f.name: str(f.type) for f in fields(cls)}
    slots: list[tuple[str, str]] = []
    pattern, pos = "", 0
    for m in re.finditer(r"\{(\w+)\}", cls.syntax):
        pattern += re.escape(cls.syntax[pos : m.start()])
        slots.append((m.group(1), types[m.group(1)]))
        pattern += _placeholder_regex(types[m.group(1)])
        pos = m.end()
    pattern += re.escape(cls.syntax[pos:])
    return re.compile(f"^{pattern}$"), slots


_PATTERNS = [(cls, *_compile(cls)) for cls in ALL_STATEMENTS if cls is not Offloaded]


class Parser:
    def __init__(self, snodes: dict[int, SNode] | None = None) -> None:
        self.snodes = dict(snodes or {})
        self.values: dict[int, Stmt] = {}
        self.schedules: dict[Offloaded, str] = {}  # read once the task's statements are

    def snode(self, text: str) -> SNode:
        m = re.fullmatch(r"S(\d+)([a-z_]+)(?:<(\w+)>)?", text)
        if not m:
            raise ParseError(f"bad SNode reference {text!r}")
        sid = int(m.group(1))
        if sid not in self.snodes:
            dtype = parse_type(m.group(3)) if m.group(3) else None
            self.snodes[sid] = SNode(sid, m.group(2), dtype=dtype)  # type: ignore[arg-type]
        return self.snodes[sid]

    def operand(self, text: str) -> Stmt:
        sid = int(text[1:])
        if sid not in self.values:
            raise ParseError(f"operand {text} used before it is defined")
        return self.values[sid]

    def convert(self, text: str, annotation: str, ret_type: Any) -> Any:
        annotation = annotation.replace(" ", "")
        if annotation == "Stmt":
            return self.operand(text)
        if annotation == "list[Stmt]":
            return [self.operand(t) for t in text.split(", ")] if text else []
        if annotation in _ENUMS:
            return _ENUMS[annotation](text)
        if annotation in ("SNode", "SNode|None"):
            return self.snode(text)
        if annotation in _CONVERTERS:
            return _CONVERTERS[annotation](text)
        # a constant's value: interpret by the statement's type
        if isinstance(ret_type, PrimitiveType):
            if ret_type.kind == "bool":
                return text == "true"
            return normalize_value(float(text) if ret_type.is_float else int(text), ret_type)
        raise ParseError(f"cannot parse {text!r} as {annotation}")

    def statement(self, body: str, ret_type: Any) -> Stmt:
        if body.startswith("offloaded"):
            return self.offloaded(body)
        body = _CAST.sub(r"\1 ", body)  # `cast_value<f32> $3`: the type is the statement's
        for cls, pattern, slots in _PATTERNS:
            m = pattern.match(body)
            if not m:
                continue
            kwargs = {
                name: self.convert(text, ann, ret_type)
                for (name, ann), text in zip(slots, m.groups())
            }
            return cls(**kwargs, ret_type=ret_type)
        raise ParseError(f"unknown statement: {body!r}")

    def offloaded(self, body: str) -> Offloaded:
        m = _OFFLOADED.match(body)
        if not m:
            raise ParseError(f"bad offloaded header: {body!r}")
        task = Offloaded(
            ops.TaskType(m.group("kind")),
            tls_size=int(m.group("tls") or 0),
            block_dim=int(m.group("block") or 0),
        )
        if m.group("schedule"):
            self.schedules[task] = m.group("schedule")
        if task.task_type is ops.TaskType.struct_for:
            task.snode = self.snode(m.group("a"))
        elif task.task_type is ops.TaskType.range_for:
            for which, text in (("begin", m.group("a")), ("end", m.group("b"))):
                tmp = re.fullmatch(r"tmp\(offset=(\d+)B\)", text)
                setattr(task, which, int(tmp.group(1)) if tmp else int(text))
                setattr(task, f"const_{which}", tmp is None)
        return task

    def parse_block(self, lines: list[str], pos: int, block: Block) -> int:
        """Parse statements into `block` until a line starting with `}`; return that index."""
        while pos < len(lines):
            line = lines[pos].strip()
            if line.startswith("}"):
                return pos
            pos = self.parse_line(lines, pos, line, block)
        return pos

    def parse_line(self, lines: list[str], pos: int, line: str, block: Block) -> int:
        """Parse one statement (and its nested blocks, if it opens one); return the next line."""
        m = _HEAD.match(line)
        if not m:
            raise ParseError(f"line {pos + 1}: cannot parse {line!r}")
        ret_type = parse_type(m.group("type")) if m.group("type") else None
        body, label, opens = _split_block_opener(m.group("body"))
        stmt = self.statement(body, ret_type)
        self.values[int(m.group("id"))] = stmt
        block.append(stmt)
        pos = self.parse_nested(lines, pos + 1, stmt, label) if opens else pos + 1
        if stmt in self.schedules:  # it names statements of the task
            try:
                stmt.schedule = Schedule.parse(self.schedules.pop(stmt), self.operand)
            except ValueError as e:
                raise ParseError(f"line {pos}: {e}") from None
        return pos

    def parse_nested(self, lines: list[str], pos: int, stmt: Stmt, label: str) -> int:
        """Parse the blocks of `stmt`, separated by `} label {` lines, up to the closing `}`."""
        labels = {lab: name for name, lab in stmt.block_fields}
        current = labels.get(label)
        if current is None:
            raise ParseError(f"line {pos}: {type(stmt).__name__} has no block {label!r}")
        while True:
            pos = self.parse_block(lines, pos, getattr(stmt, current))
            if pos >= len(lines):
                raise ParseError("unterminated block")
            closing = lines[pos].strip()
            pos += 1
            if closing == "}":
                return pos
            nxt = re.fullmatch(r"\} (.+) \{", closing)
            if not nxt or nxt.group(1) not in labels:
                raise ParseError(f"line {pos}: unexpected {closing!r}")
            current = labels[nxt.group(1)]


def _split_block_opener(body: str) -> tuple[str, str, bool]:
    """`for in range($0, $1) {` -> (header, block label, opens a block?)."""
    if not body.endswith("{"):
        return body, "", False
    body = body[:-1].rstrip()
    for lab in ("tls prologue", "body", "tls epilogue"):
        if body.endswith(" " + lab):
            return body[: -len(lab) - 1], lab, True
    return body, "", True


def parse_ir(text: str, snodes: dict[int, SNode] | None = None, name: str = "k") -> Kernel:
    """Parse `kernel { ... }` text (as printed by `print_ir`) into a `Kernel`."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines or lines[0].strip() != "kernel {" or lines[-1].strip() != "}":
        raise ParseError("IR text must be 'kernel {' ... '}'")
    parser = Parser(snodes)
    body = Block()
    end = parser.parse_block(lines[1:-1], 0, body)
    if end != len(lines) - 2:
        raise ParseError(f"unexpected '}}' at line {end + 2}")
    _attach(body)
    return Kernel(name, body)


def _attach(block: Block) -> None:
    for stmt in block:
        for inner in stmt.blocks():
            inner.parent_stmt = stmt
            _attach(inner)
