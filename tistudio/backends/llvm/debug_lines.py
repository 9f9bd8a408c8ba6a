"""Source lines in the assembly: LLVM's line table, added for the studio's assembly tab only.

The kernels' code carries no debug information (it would cost every compile). To show which
Python line each machine instruction came from, `with_lines` gives a copy of a kernel's module
text (as emitted, before optimisation) a DILocation per instruction: the source line, and in
the column the final-IR statement (its id + 1). LLVM keeps both through its passes, vectorised
loops included. Optimised and emitted again as the kernel was, the assembly holds `.loc`
directives, which `split_lines` turns into a source line and statement per line of assembly,
dropping the directives and the DWARF sections so that the text is the kernel's assembly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

INSTRUCTION = re.compile(r"^  [^\s;\]]")  # a label has no indent; `]` ends a switch
METADATA_ID = re.compile(r"!(\d+)\b")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+(\d+)")  # .loc FILE LINE COLUMN [prologue_end ...]
SECTION = re.compile(r"^\s*\.section\s+\"?\.?([\w.]+)")
DEBUG_LABEL = re.compile(r"^\.L(tmp|func_begin)\d+:$")  # labels only the debug sections use
MAX_COLUMN = 1 << 15  # statement ids above it get no column


class _Nodes:
    """The metadata nodes `with_lines` adds, numbered after the module's own."""

    def __init__(self, first: int) -> None:
        self.next = first
        self.text: list[str] = []
        self.locations: dict[tuple[int, int, int], int] = {}

    def add(self, body: str) -> int:
        number, self.next = self.next, self.next + 1
        self.text.append(f"!{number} = {body}")
        return number

    def location(self, line: int, column: int, scope: int) -> int:
        key = (line, column, scope)
        if key not in self.locations:
            self.locations[key] = self.add(
                f"!DILocation(line: {line}, column: {column}, scope: !{scope})"
            )
        return self.locations[key]


def with_lines(
    text: str, lines: Sequence[int | None], ids: Sequence[int | None], file: str = "kernel.py"
) -> str:
    """`text` (LLVM IR, one instruction per line, no debug information) with the instruction
    on its line k at source line `lines[k]` and statement `ids[k]` (line 0, LLVM's "no line",
    where the line is None); each defined function gets a DISubprogram."""
    nodes = _Nodes(1 + max((int(n) for n in METADATA_ID.findall(text)), default=-1))
    source = nodes.add(f'!DIFile(filename: "{file}", directory: "")')
    unit = nodes.add(
        f'distinct !DICompileUnit(language: DW_LANG_C, file: !{source}, producer: "tistudio", '
        "isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)"
    )
    flag = nodes.add('!{i32 2, !"Debug Info Version", i32 3}')
    signature = nodes.add("!DISubroutineType(types: !{})")
    scope = -1  # the DISubprogram of the function being read
    out = []
    for k, line in enumerate(text.split("\n")):
        if line.startswith("define "):
            name = re.search(r"@\"?([\w.$-]+)", line)
            scope = nodes.add(
                f'distinct !DISubprogram(name: "{name[1] if name else "f"}", scope: !{source}, '
                f"file: !{source}, type: !{signature}, "
                f"spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !{unit})"
            )
            head, brace = (line[:-1].rstrip(), " {") if line.endswith("{") else (line, "")
            line = f"{head} !dbg !{scope}{brace}"
        elif scope >= 0 and INSTRUCTION.match(line) and not line.endswith("["):
            src = lines[k] if k < len(lines) else None
            sid = ids[k] if k < len(ids) else None
            column = sid + 1 if src and sid is not None and sid < MAX_COLUMN else 0
            line += f", !dbg !{nodes.location(src or 0, column, scope)}"
        elif line == "}":
            scope = -1
        out.append(line)
    named = [f"!llvm.dbg.cu = !{{!{unit}}}", f"!llvm.module.flags = !{{!{flag}}}"]
    return "\n".join([*out, "", *named, *nodes.text, ""])


def split_lines(assembly: str) -> tuple[str, list[int | None], list[int | None]]:
    """The assembly without its line-table directives, labels and DWARF sections, and per
    remaining line the source line and statement of the instruction on it (None for
    directives, labels and instructions of no line)."""
    kept: list[str] = []
    lines: list[int | None] = []
    ids: list[int | None] = []
    line = sid = None
    in_debug = False
    for text in assembly.split("\n"):
        section = SECTION.match(text)
        if section:
            in_debug = section[1].startswith("debug_")
        directive = text.lstrip().startswith((".file", ".cfi_sections"))
        if in_debug or directive or DEBUG_LABEL.match(text):
            continue
        loc = LOC.match(text)
        if loc:
            line = int(loc[1]) or None
            sid = int(loc[2]) - 1 if line and int(loc[2]) else None
            continue
        instruction = text.startswith(("\t", " ")) and not text.lstrip().startswith(".")
        kept.append(text)
        lines.append(line if instruction else None)
        ids.append(sid if instruction else None)
    return "\n".join(kept), lines, ids
