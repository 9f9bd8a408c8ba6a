"""Lineage: which statements a line of Python became, pass by pass.

The printer numbers statements afresh on every print (`$5` after one pass may be `$3` after the
next), so printed IR alone cannot say that a statement survived a pass. While the pipeline
records, `StmtIds` gives each statement object a stable id the first time a recorded print sees
it; a pass that rewrites a statement in place keeps the object and so its id, and a statement a
pass makes is a new object with a new id. Each `PassRecord` keeps, per printed line, the id of
the statement printed there (`stmt_ids`). Comparing the ids of two consecutive records tells
what a pass *created* (new ids), *deleted* (ids gone) and *rewritten* (same id, different
printed form once operands are named by id instead of by print number). Nothing here runs
unless the pipeline records, so plain compiles pay nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tistudio.ir.printer import Printer
from tistudio.ir.stmt import Kernel, Stmt

OPERAND = re.compile(r"\$(\d+)")
KINDS = ("created", "rewritten", "deleted")


class StmtIds:
    """Stable ids for the statements of one compile, handed out on first sight (in print
    order, so the initial IR's statements are numbered as they print)."""

    def __init__(self) -> None:
        self.ids: dict[Stmt, int] = {}

    def of(self, stmt: Stmt) -> int:
        found = self.ids.get(stmt)
        if found is None:
            found = self.ids[stmt] = len(self.ids)
        return found


def print_with_ids(kernel: Kernel, ids: StmtIds) -> tuple[str, list[int | None], list[int | None]]:
    """The text of `kernel` and, per printed line, its source line and its statement's id."""
    printer = Printer()
    text = printer.print_kernel(kernel)
    stmts = printer.line_stmts
    lines = [s.loc.line if s is not None and s.loc is not None else None for s in stmts]
    return text, lines, [ids.of(s) if s is not None else None for s in stmts]


@dataclass(frozen=True)
class Statements:
    """The statements one record shows: per id, its header as printed, the same with operands
    named by id (`key`, what 'rewritten' compares) and its source line; and per print number
    (`$5` is 5) its id."""

    texts: dict[int, str]
    keys: dict[int, str]
    lines: dict[int, int | None]
    numbers: dict[int, int]


def statements_of(record: Any) -> Statements:
    """Read a `PassRecord`'s statements back from its text, `lines` and `stmt_ids`. The printer
    numbers statements in the order it prints them, so `$n` is the n-th statement met here."""
    texts: dict[int, str] = {}
    lines: dict[int, int | None] = {}
    for text, line, sid in zip(record.ir_text.splitlines(), record.lines, record.stmt_ids):
        if sid is None or sid in texts:  # a block's `} else {` and `}` lines
            continue
        texts[sid] = text.strip()
        lines[sid] = line
    by_number = {str(n): f"%{sid}" for n, sid in enumerate(texts)}
    keys = {}
    for sid, text in texts.items():
        parts = OPERAND.split(text)  # text, number, text, number, ..., text
        parts[1::2] = [by_number.get(n, "%?") for n in parts[1::2]]
        keys[sid] = "".join(parts)
    return Statements(texts, keys, lines, dict(enumerate(texts)))


@dataclass(frozen=True)
class StmtChange:
    """One statement a pass touched: `text` as printed after the pass (before it, if deleted)."""

    stmt_id: int
    kind: str  # created | rewritten | deleted
    text: str
    before: str = ""  # rewritten: as printed before the pass

    def __repr__(self) -> str:
        mark = {"created": "+", "rewritten": "~", "deleted": "-"}[self.kind]
        was = f"   (was: {self.before})" if self.before else ""
        return f"{mark} #{self.stmt_id} {self.text}{was}"


@dataclass(frozen=True)
class PassLineage:
    """What one pass did to the statements of one source line, and what it left."""

    name: str
    created: tuple[StmtChange, ...]
    rewritten: tuple[StmtChange, ...]
    deleted: tuple[StmtChange, ...]
    after: tuple[str, ...]  # the line's statements after the pass, as printed

    @property
    def changed(self) -> bool:
        return bool(self.created or self.rewritten or self.deleted)

    def summary(self) -> str:
        parts = [f"{len(getattr(self, k))} {k}" for k in KINDS if getattr(self, k)]
        return ", ".join(parts) or "unchanged"

    def __repr__(self) -> str:
        changes = [*self.created, *self.rewritten, *self.deleted]
        return "\n".join([f"{self.name}: {self.summary()}", *(f"  {c!r}" for c in changes)])


def changes_between(before: Statements | None, after: Statements) -> dict[str, list[int]]:
    """Ids created, rewritten and deleted going from `before` to `after` (all created if
    there is no `before`), each in print order."""
    if before is None:
        return {"created": list(after.texts), "rewritten": [], "deleted": []}
    return {
        "created": [i for i in after.texts if i not in before.texts],
        "rewritten": [
            i for i in after.texts if i in before.keys and before.keys[i] != after.keys[i]
        ],
        "deleted": [i for i in before.texts if i not in after.texts],
    }


@dataclass(frozen=True)
class Lineage:
    """Per pass, the statements that came from source line `line` (`kernel.compile_report(
    *args).lineage(line)`): index it by pass name or position; `repr` reads as a table."""

    line: int
    source: str
    passes: tuple[PassLineage, ...]

    def __getitem__(self, key: int | str) -> PassLineage:
        if isinstance(key, int):
            return self.passes[key]
        for entry in self.passes:
            if entry.name == key:
                return entry
        raise KeyError(f"no pass named {key!r}; passes: {[p.name for p in self.passes]}")

    def __iter__(self) -> Any:
        return iter(self.passes)

    def __len__(self) -> int:
        return len(self.passes)

    def changed(self) -> list[PassLineage]:
        """The passes that touched this line's statements."""
        return [p for p in self.passes if p.changed]

    def __repr__(self) -> str:
        head = f"lineage of line {self.line}" + (f": {self.source.strip()}" if self.source else "")
        body = [repr(p) for p in self.changed()]
        kept = len(self.passes) - len(body)
        tail = f"({kept} other passes left this line's statements as they were)"
        return "\n".join([head, *body, tail])


def lineage(records: Sequence[Any], line: int, source: str = "") -> Lineage:
    """The `Lineage` of source line `line` through `records` (the pipeline's `PassRecord`s)."""
    passes = []
    before: Statements | None = None
    for record in records:
        after = statements_of(record)
        found = changes_between(before, after)
        mine = {
            kind: [i for i in ids if _line_of(i, before, after) == line]
            for kind, ids in found.items()
        }
        passes.append(
            PassLineage(
                record.name,
                tuple(StmtChange(i, "created", after.texts[i]) for i in mine["created"]),
                tuple(_rewritten(i, before, after) for i in mine["rewritten"]),
                tuple(StmtChange(i, "deleted", before.texts[i]) for i in mine["deleted"] if before),
                tuple(t for i, t in after.texts.items() if after.lines[i] == line),
            )
        )
        before = after
    return Lineage(line, source, tuple(passes))


def _line_of(sid: int, before: Statements | None, after: Statements) -> int | None:
    if sid in after.lines:
        return after.lines[sid]
    return before.lines.get(sid) if before else None


def _rewritten(sid: int, before: Statements | None, after: Statements) -> StmtChange:
    return StmtChange(sid, "rewritten", after.texts[sid], before.texts[sid] if before else "")


@dataclass(frozen=True)
class Origin:
    """Where one statement came from: its source line, the pass that created it (by index into
    the records), the passes that rewrote it and the one that deleted it (or None)."""

    line: int | None
    created: int
    rewritten: tuple[int, ...]
    deleted: int | None


def history(records: Iterable[Any]) -> list[tuple[Statements, dict[str, list[int]]]]:
    """Per record, its statements and the ids its pass created, rewrote and deleted."""
    out = []
    before: Statements | None = None
    for record in records:
        after = statements_of(record)
        out.append((after, changes_between(before, after)))
        before = after
    return out


def origins(records: Iterable[Any]) -> dict[int, Origin]:
    """Every statement id of `records` with its `Origin`."""
    return origins_of(history(records))


def origins_of(steps: list[tuple[Statements, dict[str, list[int]]]]) -> dict[int, Origin]:
    """`origins` from a `history` already read."""
    created: dict[int, int] = {}
    rewritten: dict[int, list[int]] = {}
    deleted: dict[int, int] = {}
    lines: dict[int, int | None] = {}
    for index, (after, found) in enumerate(steps):
        for sid in found["created"]:
            created[sid] = index
        for sid in found["rewritten"]:
            rewritten.setdefault(sid, []).append(index)
        for sid in found["deleted"]:
            deleted[sid] = index
        lines.update(after.lines)
    return {
        sid: Origin(lines.get(sid), at, tuple(rewritten.get(sid, ())), deleted.get(sid))
        for sid, at in created.items()
    }
