"""What the pass explorer needs to follow a line of Python through the compiler.

For one instantiation: per source line, how many of its statements each pass created, rewrote
and deleted (the pass list marks those passes when the line is clicked); per statement id, its
source line and the passes that created, rewrote and deleted it (shown when an IR statement is
clicked); and per line of the final LLVM IR and WGSL, the statement and source line it came
from. The back ends name values after the final IR's print numbers (`%s5` and `s5` are `$5`),
so a line that defines such a value maps to that statement (and a store, which defines none,
to the line of the values it stores); the WGSL emitter also writes a `// file:line` comment
before each new source line, which maps the lines after it that define nothing. Assembly has
neither: the CPU back end makes it again from the IR as emitted, with a line table built from
the same mapping (`backends/llvm/debug_lines.py`), which LLVM carries through its passes (so
vectorised loops, which lose the value names, are mapped too). Computed here, in Python, so
tests check it without a browser.
"""

from __future__ import annotations

import re
from typing import Any

from tistudio.ir.lineage import KINDS, Statements, history, origins_of

# %s12 = ..., %s3_i = phi, %s9.us = (as emitted, before optimisation: %"s12" = ...)
LLVM_DEFINES = re.compile(r'^\s*%"?s(\d+)(?:[._][\w.]*)?"? = ')
LLVM_USES = re.compile(r'%"?s(\d+)\b(?![._\w])')  # a use of %s12 (not of %s12.i, LLVM's copy)
WGSL_DEFINES = re.compile(r"^\s*(?:let|var) s(\d+)(?:_\w+)?\s*[:=]")  # let s9: f32 = ...
WGSL_SOURCE = re.compile(r"^\s*// [^:\s]+:(\d+)(?::|$)")  # // heat.py:12: dst[I] = ...
WGSL_BREAKS = re.compile(r"^\s*(//.*)?$|[{}]\s*$")  # blank, another comment, a brace


def lineage_data(records: list[Any], code: dict[str, str | None]) -> dict:
    """The explorer's `lineage` entry: `by_line`, `origins` and `links` (see the module)."""
    steps = history(records)
    by_line: dict[str, list[list[int]]] = {}
    before: Statements | None = None
    for index, (after, found) in enumerate(steps):
        for k, kind in enumerate(KINDS):
            for sid in found[kind]:
                line = after.lines[sid] if sid in after.lines else before and before.lines[sid]
                if line is not None:
                    counts = by_line.setdefault(str(line), [[0, 0, 0] for _ in steps])
                    counts[index][k] += 1
        before = after
    origins = {
        str(sid): [o.line, o.created, list(o.rewritten), o.deleted]
        for sid, o in origins_of(steps).items()
    }
    links = {}
    if steps:
        final = steps[-1][0]
        for tab, read in (("llvm", llvm_links), ("wgsl", wgsl_links)):
            text = code.get(tab)
            if text:
                links[tab] = read(text, final)
    return {"by_line": by_line, "origins": origins, "links": links}


def located_assembly(compiled: Any, records: list[Any]) -> tuple[str, dict[str, list]] | None:
    """The assembly of `compiled` (a CPU kernel's `CompiledModule`) with, per line, the source
    line and final-IR statement it came from; None where it cannot be made (no IR: loaded from
    the offline cache; not a CPU kernel)."""
    steps = history(records)
    made = getattr(compiled, "located_assembly", None)
    if not steps or made is None:
        return None
    emitted = llvm_links(compiled.llvm_ir, steps[-1][0], first_use=True)
    located = made(emitted["src"], emitted["ids"])
    if located is None:
        return None
    text, lines, ids = located
    return text, {"ids": ids, "src": lines}


def llvm_links(text: str, final: Statements, first_use: bool = False) -> dict[str, list]:
    """Per line of LLVM IR, the id and source line of the final-IR statement it defines; a line
    that defines none (a store, a branch) gets the source line of the values it uses when they
    all come from one line, and with `first_use` otherwise that of the first value it uses (a
    store's: the value stored; the assembly's line table needs a line for every instruction)."""
    ids: list[int | None] = []
    src: list[int | None] = []
    for line in text.split("\n"):
        match = LLVM_DEFINES.match(line)
        sid = final.numbers.get(int(match.group(1))) if match else None
        ids.append(sid)
        if sid is not None:
            src.append(final.lines.get(sid))
            continue
        uses = [final.lines.get(final.numbers.get(int(n), -1)) for n in LLVM_USES.findall(line)]
        used = set(uses) - {None}
        if len(used) == 1:
            src.append(used.pop())
        else:
            src.append(uses[0] if first_use and uses else None)
    return {"ids": ids, "src": src}


def wgsl_links(text: str, final: Statements) -> dict[str, list]:
    """Per line of WGSL, the statement it defines (`let s9`) and the source line: that
    statement's, else the one a `// file:line` comment just above it names."""
    ids: list[int | None] = []
    src: list[int | None] = []
    current: int | None = None
    for line in text.split("\n"):
        comment = WGSL_SOURCE.match(line)
        if comment:
            current = int(comment.group(1))
        elif WGSL_BREAKS.search(line):
            current = None
        match = WGSL_DEFINES.match(line)
        sid = final.numbers.get(int(match.group(1))) if match else None
        ids.append(sid)
        src.append(final.lines.get(sid) if sid is not None else current)
    return {"ids": ids, "src": src}
