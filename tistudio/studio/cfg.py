"""The control-flow graph of one pass's IR, as a nested description the explorer draws.

The explorer's CFG tab (static/cfg_view.js) draws, for the IR after any pass, straight-line
blocks of statements inside nested boxes: offloaded tasks, loops (range-for, struct-for, while)
and ifs with their two branches; branch, back and break edges follow from the nesting. We build
that description from the IR *text* the studio records per pass (ir/printer.py nests blocks with
braces, two spaces an indent, `} else {` between a statement's blocks), not from IR objects: a
recorded pass's objects have long moved on by the time someone opens the tab, and the text is
all a saved page has. Each statement keeps its line number in the text (and the user's source
line, when known), so the drawing can link back to the IR pane.

Node shapes (plain dicts, sent to the browser as JSON):
  block: {"kind": "block", "stmts": [stmt...], "exit": None | "break" | "continue" | "return"}
  loop:  {"kind": "loop", "loop": "range" | "struct" | "while", "head", "line", "src", "body"}
  if:    {"kind": "if", "head", "line", "src", "then": [node...], "else": [node...]}
  task:  {"kind": "task", "task": "range_for" | "struct_for" | "serial", "head", "line", "src",
          "parts": [{"label": "tls prologue" | "body" | "tls epilogue", "body": [node...]}]}
  region: any other statement with a block (none today), drawn as a plain box: "head", "body"
where a stmt is {"line": index in the text, "src": source line or None, "text": the statement}.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# `$3 : `, `$3 = ` or `<i32> $3 = ` before a statement; `  # line 12` after it
NAME = re.compile(r"^(?:<[^>]*>\s+)?\$\d+\s*[:=]\s*")
LOCATION = re.compile(r"\s+# line \d+$")
# the label of a statement's first block, printed before its `{` (ir/printer.py)
FIRST_LABEL = re.compile(r"^(.*?)(?: (tls prologue|body|tls epilogue))? \{$")
SEPARATOR = re.compile(r"^\} (.*) \{$")
EXITS = ("break", "continue", "return")


class _Lines:
    """The IR text's lines with a cursor: the parser reads them front to back once."""

    def __init__(self, text: str, sources: Sequence[int | None]) -> None:
        self.lines = text.splitlines()
        self.sources = list(sources) + [None] * (len(self.lines) - len(sources))
        self.at = 0

    def peek(self) -> str | None:
        return self.lines[self.at].strip() if self.at < len(self.lines) else None


def statement_text(line: str) -> str:
    """A printed statement without its location comment."""
    return LOCATION.sub("", line.strip())


def _kind_of(head: str) -> dict:
    """What a statement with blocks is, from its header (the text before `{`)."""
    body = NAME.sub("", head)
    if body.startswith("offloaded "):
        return {"kind": "task", "task": re.split(r"\W", body[len("offloaded ") :])[0]}
    if body.startswith("while"):
        return {"kind": "loop", "loop": "while"}
    if body.startswith("struct for") or (body.startswith("for ") and " in struct " in body):
        return {"kind": "loop", "loop": "struct"}
    if body.startswith("for "):
        return {"kind": "loop", "loop": "range"}
    if body.startswith("if "):
        return {"kind": "if"}
    return {"kind": "region"}


def _sequence(lines: _Lines) -> list[dict]:
    """Nodes until the `}` (or `} label {`) that closes the enclosing block, left unread."""
    nodes: list[dict] = []
    block: list[dict] = []

    def close_block(exit_: str | None = None) -> None:
        if block or exit_:
            nodes.append({"kind": "block", "stmts": list(block), "exit": exit_})
        block.clear()

    while (line := lines.peek()) is not None and not line.startswith("}"):
        index = lines.at
        text = statement_text(line)
        if text.endswith("{"):
            close_block()
            nodes.append(_compound(lines, text))
            continue
        lines.at += 1
        block.append({"line": index, "src": lines.sources[index], "text": text})
        word = NAME.sub("", text).split(" ", 1)[0]
        if word in EXITS:
            close_block(word)
    close_block()
    return nodes


def _compound(lines: _Lines, head_line: str) -> dict:
    """A statement with blocks, from its header line to its closing `}`."""
    index = lines.at
    lines.at += 1
    match = FIRST_LABEL.match(head_line)
    head, label = (match.group(1), match.group(2) or "") if match else (head_line, "")
    node = {**_kind_of(head), "head": head, "line": index, "src": lines.sources[index]}
    parts = [{"label": label, "body": _sequence(lines)}]
    while (line := lines.peek()) is not None and line != "}":
        separator = SEPARATOR.match(line)
        lines.at += 1
        parts.append({"label": separator.group(1) if separator else line, "body": []})
        parts[-1]["body"] = _sequence(lines)
    lines.at += 1  # the closing brace
    if node["kind"] == "if":
        node["then"] = parts[0]["body"]
        node["else"] = next((p["body"] for p in parts[1:] if p["label"] == "else"), [])
    elif node["kind"] == "task":
        node["parts"] = [{**p, "label": p["label"] or "body"} for p in parts]
    else:
        node["body"] = [n for p in parts for n in p["body"]]
    return node


def cfg_of(ir_text: str, sources: Sequence[int | None] = ()) -> dict:
    """The nested control-flow description of one printed kernel (and its IR functions).

    `sources`, if given, holds per line of `ir_text` the user's source line (as `PassRecord.
    lines` does). Returns {"graphs": [{"head": "kernel" | "function ...", "body": [...]}],
    "stmts": number of statements, "blocks": number of straight-line blocks}."""
    lines = _Lines(ir_text, sources)
    graphs = []
    while (line := lines.peek()) is not None:
        lines.at += 1
        if not line.endswith("{"):
            continue  # nothing prints outside `kernel { }` and `function ... { }` today
        graphs.append({"head": line[:-1].strip(), "body": _sequence(lines)})
        lines.at += 1
    blocks = [n for g in graphs for n in walk(g["body"]) if n["kind"] == "block"]
    compound = [n for g in graphs for n in walk(g["body"]) if n["kind"] != "block"]
    return {
        "graphs": graphs,
        "stmts": sum(len(b["stmts"]) for b in blocks) + len(compound),
        "blocks": len(blocks),
    }


def children(node: dict) -> list[dict]:
    """The nodes directly inside `node`, branch by branch."""
    if node["kind"] == "if":
        return [*node["then"], *node["else"]]
    if node["kind"] == "task":
        return [n for part in node["parts"] for n in part["body"]]
    return list(node.get("body", []))


def walk(nodes: list[dict]) -> list[dict]:
    """Every node of a sequence, outer before inner."""
    out: list[dict] = []
    for node in nodes:
        out.append(node)
        out.extend(walk(children(node)))
    return out


def outline(nodes: list[dict], depth: int = 0) -> list[str]:
    """A short indented picture of the nesting (one line per node), for tests and reading:
    `task range_for`, `  loop range`, `    if (then 2, else 1)`, `      block 3 break`."""
    out = []
    pad = "  " * depth
    for node in nodes:
        kind = node["kind"]
        if kind == "block":
            out.append(
                f"{pad}block {len(node['stmts'])}" + (f" {node['exit']}" if node["exit"] else "")
            )
        elif kind == "if":
            out.append(f"{pad}if (then {len(node['then'])}, else {len(node['else'])})")
            out.extend(outline(node["then"], depth + 1))
            if node["else"]:
                out.append(f"{pad}else")
                out.extend(outline(node["else"], depth + 1))
        elif kind == "task":
            out.append(f"{pad}task {node['task']}")
            for part in node["parts"]:
                if part["label"] != "body":
                    out.append(f"{pad} {part['label']}")
                out.extend(outline(part["body"], depth + 1))
        else:
            out.append(f"{pad}{kind} {node.get('loop', '')}".rstrip())
            out.extend(outline(node["body"], depth + 1))
    return out
