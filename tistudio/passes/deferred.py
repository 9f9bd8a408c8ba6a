"""Pass records whose IR texts are printed only when somebody reads them.

Printing the IR after every pass was half of a first compile in the studio (18 prints of a
small stencil cost more than its passes and LLVM together). So while the studio watches, a
compile notes for each pass only its name, docstring, time, statement count and whether it
changed anything (a `PassMark`), and keeps a way to build the kernel's frontend IR again.
The first time a record's text, source lines or statement ids are read, the pipeline runs once
more on a fresh frontend IR with recording on, off the compile's clock; the passes are
deterministic, so the texts are those of the compile that ran (tests check the last one against
the final IR). Times stay those of the real compile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, overload

if TYPE_CHECKING:
    from tistudio.ir.config import CompileConfig
    from tistudio.ir.stmt import Kernel


class PassMark(NamedTuple):
    """What a pass did, without its IR text (recorded on the compile's clock)."""

    name: str
    doc: str
    ms: float
    stmt_count: int
    changed: bool


class DeferredRecords(Sequence):
    """The `PassRecord`s of one compile, made on first need. Without marks (a kernel loaded
    from the offline cache ran no passes) everything, names included, waits for the rerun."""

    def __init__(
        self,
        rebuild: Callable[[], Kernel],
        config: CompileConfig,
        marks: list[PassMark] | None = None,
    ) -> None:
        self._rebuild, self._config = rebuild, config
        self.marks = marks
        self._records: list[Any] | None = None
        self._lock = threading.Lock()  # the explorer may ask from a comm thread

    def load(self) -> list[Any]:
        """The full records (pipeline rerun on the first call), with the real compile's times."""
        with self._lock:
            if self._records is None:
                self._records = self._rerun()
            return self._records

    @property
    def loaded(self) -> bool:
        return self._records is not None

    def _rerun(self) -> list[Any]:
        from dataclasses import replace

        from tistudio.passes.context import PassContext
        from tistudio.passes.pipeline import compile_to_final_ir

        records = compile_to_final_ir(
            self._rebuild(), PassContext(self._config), record=True, quiet=True
        )
        marks = self.marks
        if marks is None or [m.name for m in marks] != [r.name for r in records]:
            return records
        return [replace(r, ms=m.ms) for r, m in zip(records, marks)]

    def _items(self) -> Sequence[Any]:
        if self._records is not None or self.marks is None:
            return self.load()
        return [LazyRecord(self, i, mark) for i, mark in enumerate(self.marks)]

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: Any) -> Any:
        return self._items()[index]

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


class LazyRecord:
    """One pass's record: name, doc, time, count and `changed` at once; the text, source lines
    and statement ids from the rerun, on first read."""

    __slots__ = ("_owner", "_index", "_mark")

    def __init__(self, owner: DeferredRecords, index: int, mark: PassMark) -> None:
        self._owner, self._index, self._mark = owner, index, mark

    name = property(lambda self: self._mark.name)
    doc = property(lambda self: self._mark.doc)
    ms = property(lambda self: self._mark.ms)
    stmt_count = property(lambda self: self._mark.stmt_count)
    changed = property(lambda self: self._mark.changed)

    def __getattr__(self, name: str) -> Any:  # ir_text, lines, stmt_ids, ...
        return getattr(self._owner.load()[self._index], name)

    def __repr__(self) -> str:
        return f"<pass record {self._mark.name!r} (text not printed yet)>"
