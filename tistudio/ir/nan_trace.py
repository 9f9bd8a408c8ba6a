"""The interpreter with value tracing: where did the NaN (or Inf) stored in one cell come from?

`NanTracer` runs a kernel's IR like `Interpreter` does, and follows every non-finite float: a
statement whose float operands are all finite but whose value is NaN or Inf is an *origin*; a
statement fed a non-finite operand inherits that operand's origin, and so does memory (a local
variable, a field element) that stores such a value and every load that reads it back. When the
kernel stores a non-finite value into one of the target cells, the tracer stops and returns the
origin of that value: the statement, its operands' values and its source location.

Only the iterations that matter run first: a task's iteration numbers that the caller guesses
write the cell (the cell's row-major number, say) go before the others, and the run ends at the
first non-finite store into the cell, so a 512x512 field usually costs a handful of iterations.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.ir import statements as s
from tistudio.ir.interpreter import Interpreter, _Local, load
from tistudio.ir.stmt import Kernel, SourceLoc, Stmt, pointee


@dataclass(frozen=True)
class Origin:
    """A statement that made a non-finite float out of finite operands (`kind` "computed"), or
    a load of a non-finite value already in memory when the kernel started (`kind` "loaded")."""

    stmt: Stmt
    value: float
    operands: tuple[Any, ...]
    kind: str

    @property
    def op(self) -> str:
        """The operation's name as the IR prints it (`div`, `sqrt`, `global load`)."""
        op = getattr(self.stmt, "op", None)
        if op is not None:
            return str(getattr(op, "value", op)).lower()
        return type(self.stmt).__name__

    @property
    def loc(self) -> SourceLoc | None:
        return self.stmt.loc


class _Found(Exception):
    def __init__(self, origin: Origin | None) -> None:
        self.origin = origin


def _bad(value: Any) -> bool:
    return isinstance(value, float | np.floating) and not math.isfinite(value)


class NanTracer(Interpreter):
    """Runs `kernel` on copies of its memory until a non-finite value lands in `targets`
    (pairs of tree number and byte offset) and tells where that value came from."""

    def __init__(
        self,
        kernel: Kernel,
        args: Sequence[Any],
        trees: Sequence[np.ndarray],
        targets: Iterable[tuple[int, int]],
        guesses: Iterable[Any] = (),
    ) -> None:
        super().__init__(kernel, args, trees)
        self.targets = {(id(self.trees[tree]), offset) for tree, offset in targets}
        self.guesses = list(guesses)
        self.origin: dict[Stmt, Origin] = {}
        self.memory: dict[Any, Origin | None] = {}  # where a stored non-finite value came from
        self.finite_store = False  # the kernel wrote a finite value into a target cell

    def trace(self) -> Origin | None:
        """The origin of the first non-finite value stored into a target cell, or None when
        the kernel stores none there."""
        with np.errstate(all="ignore"):
            try:
                self.run()
            except _Found as found:
                return found.origin
        return None

    # --- following values ----------------------------------------------------------------

    def block(self, block: Any) -> None:
        values, dispatch = self.values, self.dispatch
        for stmt in block.stmts:
            result = dispatch[type(stmt)](stmt)
            if result is not None:
                values[stmt] = result
                if _bad(result):
                    self.note(stmt, result)

    def note(self, stmt: Stmt, value: float) -> None:
        if isinstance(stmt, s.LocalLoad | s.GlobalLoad):
            found = self.memory.get(_key(self.values[stmt.ptr]))
            self.origin[stmt] = found or Origin(stmt, value, (), "loaded")
            return
        if isinstance(stmt, s.AtomicOp):  # its value is what the memory held
            found = self.memory.get(_key(self.values[stmt.dest]))
            self.origin[stmt] = found or Origin(stmt, value, (), "loaded")
            return
        for operand in stmt.operands():
            if operand in self.origin and _bad(self.values.get(operand)):
                self.origin[stmt] = self.origin[operand]
                return
        operands = tuple(self.values.get(op) for op in stmt.operands())
        self.origin[stmt] = Origin(stmt, value, operands, "computed")

    def stored(self, ptr: Any, value: Any, origin: Origin | None) -> None:
        key = _key(ptr)
        if _bad(value):
            self.memory[key] = origin
        else:
            self.memory.pop(key, None)
        if key in self.targets:
            if _bad(value):
                raise _Found(origin)
            self.finite_store = True

    def run_LocalStore(self, stmt: s.LocalStore) -> None:
        super().run_LocalStore(stmt)
        self.stored(self.values[stmt.ptr], self.values[stmt.value], self.origin.get(stmt.value))

    def run_GlobalStore(self, stmt: s.GlobalStore) -> None:
        super().run_GlobalStore(stmt)
        value = self.values[stmt.value]
        self.stored(self.values[stmt.ptr], value, self.origin.get(stmt.value))

    def run_AtomicOp(self, stmt: s.AtomicOp) -> Any:
        ptr = self.values[stmt.dest]
        before = self.memory.get(_key(ptr))
        old = super().run_AtomicOp(stmt)
        new = load(ptr, pointee(stmt.dest))
        if _bad(new):
            operands = (old, self.values[stmt.val])
            origin = before if _bad(old) else self.origin.get(stmt.val)
            origin = origin or Origin(stmt, float(new), operands, "computed")
            self.stored(ptr, new, origin)
        else:
            self.stored(ptr, new, None)
        return old

    # --- the iterations that matter first ------------------------------------------------

    def task_indices(self, task: s.Offloaded) -> Any:
        indices = super().task_indices(task)
        if not self.guesses:
            return indices
        pool = indices if isinstance(indices, range) else list(indices)
        first = [g for g in dict.fromkeys(self.guesses) if _contains(pool, g)]
        if not first:
            return pool
        chosen = set(first)
        return itertools.chain(first, (i for i in pool if i not in chosen))


def _contains(pool: Any, guess: Any) -> bool:
    if isinstance(pool, range):
        return isinstance(guess, int) and guess in pool
    return guess in pool


def _key(ptr: Any) -> Any:
    if isinstance(ptr, _Local):
        return id(ptr)
    buffer, offset = ptr
    return (id(buffer), offset)
