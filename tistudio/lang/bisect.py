"""Which pass broke it: run the IR after every pass in the interpreter and find the first pass
whose results differ from those of the IR before it.

`bisect(kernel, args)` compiles the instantiation for `args` again and, as each pass finishes
(the "pass_ran" event; the passes rewrite one `Kernel` object in place), runs the IR as it
stands in the reference interpreter (`ir/interpreter.py`) on copies of the program's fields and
of the array arguments: the user's data is never written. The reference is the IR after
`type_check`, the first with the types the interpreter's operations read (before it, `i * 0.5`
has no float type yet). The first later pass whose fields, arrays or return values differ from the
reference's is the one named. Every pass runs the whole kernel, so bisect on small inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tistudio.events import Event, bus
from tistudio.ir.interpreter import interpret
from tistudio.lang import impl
from tistudio.lang import kernel_args as args_

TYPED_FROM = "type_check"  # the first pass after which the IR has the types the interpreter uses
UNTYPED = "untyped IR (the interpreter runs the IR from type_check on)"


@dataclass(frozen=True)
class Outcome:
    """What running the IR after one pass gave: memory and returns, or why it could not run."""

    pass_name: str
    trees: tuple[bytes, ...] = ()
    arrays: tuple[np.ndarray, ...] = ()
    returned: tuple[Any, ...] = ()
    error: str = ""

    def differences(self, other: Outcome) -> list[str]:
        """How this outcome differs from `other` (an empty list: it does not)."""
        found = []
        for n, (mine, theirs) in enumerate(zip(self.trees, other.trees)):
            if mine != theirs:
                a, b = np.frombuffer(mine, np.uint8), np.frombuffer(theirs, np.uint8)
                where = np.flatnonzero(a != b)
                found.append(f"field memory (tree {n}): {where.size} bytes differ from {where[0]}")
        for n, (mine, theirs) in enumerate(zip(self.arrays, other.arrays)):
            if mine.tobytes() != theirs.tobytes():
                found.append(f"array argument {n}: {_first_difference(mine, theirs)}")
        if not _same_values(self.returned, other.returned):
            found.append(f"returned {list(self.returned)} instead of {list(other.returned)}")
        return found


@dataclass
class Bisection:
    """The outcome after each pass and the first pass that changed the kernel's results."""

    kernel_name: str
    outcomes: list[Outcome] = field(default_factory=list)
    reference: str | None = None  # the first pass whose IR the interpreter ran
    first_bad: str | None = None  # the first pass whose results differ from the reference's
    differences: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[tuple[str, str]]:
        """(pass, "same" | "differs" | "not run: why") for each pass, in order."""
        return [(o.pass_name, self._status(o)) for o in self.outcomes]

    def _status(self, outcome: Outcome) -> str:
        if outcome.error:
            return f"not run: {outcome.error}"
        base = next(o for o in self.outcomes if o.pass_name == self.reference)
        return "differs" if outcome.differences(base) else "same"

    def __repr__(self) -> str:
        if self.reference is None:
            return f"<bisect {self.kernel_name}: the interpreter ran the IR after no pass>"
        if self.first_bad is None:
            return (
                f"<bisect {self.kernel_name}: every pass after {self.reference!r} gives the "
                f"same results ({len(self.outcomes)} passes)>"
            )
        return (
            f"<bisect {self.kernel_name}: {self.first_bad!r} is the first pass whose results "
            f"differ from {self.reference!r}'s: " + "; ".join(self.differences) + ">"
        )


def bisect(kernel: Any, args: Sequence[Any]) -> Bisection:
    """Compile `kernel` for `args` again, run the IR after each pass on copies of the inputs
    and name the first pass whose results differ from those of the first IR that runs."""
    args = tuple(args)
    program = impl.get_program()
    program.materialize()
    name = kernel._instance_name("bisect")
    ir = kernel.frontend_ir(args, name)
    inputs = _Inputs(program, kernel.param_specs(), args)
    found = Bisection(name)

    def after_pass(event: Event) -> None:
        if event.data["kernel_name"] != name:
            return
        pass_name = event.data["record"].name
        typed = pass_name == TYPED_FROM or any(o.error != UNTYPED for o in found.outcomes)
        found.outcomes.append(
            inputs.run(ir, pass_name) if typed else Outcome(pass_name, error=UNTYPED)
        )

    stop = bus.subscribe("pass_ran", after_pass)
    try:
        program.compile(ir, record=True)
    finally:
        stop()
    _judge(found)
    return found


def _judge(found: Bisection) -> None:
    reference = None
    for outcome in found.outcomes:
        if outcome.error:
            continue
        if reference is None:
            reference = outcome
            found.reference = outcome.pass_name
            continue
        differences = outcome.differences(reference)
        if differences:
            found.first_bad, found.differences = outcome.pass_name, differences
            return


class _Inputs:
    """The program's fields and the call's run-time arguments, copied afresh for every run."""

    def __init__(self, program: Any, specs: list[Any], args: tuple) -> None:
        if program.gpu is not None:  # the device's copy back to the host first
            for tree in program.trees:
                program.gpu.before_host_access(tree.id)
        self.trees = [tree.buffer.copy() for tree in program.trees]
        positions = tuple(i for i, s in enumerate(specs) if s.kind != "template")
        if all(specs[i].kind in ("scalar", "ndarray") for i in positions):
            self.args = [args_.runtime_arg(args[i], specs[i]) for i in positions]
        else:
            self.args = list(args_.flatten_args(args, specs, positions))
        self.args = [np.array(a) if isinstance(a, np.ndarray) else a for a in self.args]

    def run(self, ir: Any, pass_name: str) -> Outcome:
        trees = [t.copy() for t in self.trees]
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in self.args]
        try:
            returned = interpret(ir, args, trees)
        except Exception as e:  # noqa: BLE001 - IR the interpreter cannot run yet, or a crash
            return Outcome(pass_name, error=f"{type(e).__name__}: {e}")
        arrays = tuple(a for a in args if isinstance(a, np.ndarray))
        return Outcome(pass_name, tuple(t.tobytes() for t in trees), arrays, tuple(returned))


def _same_values(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x == y or (x != x and y != y) for x, y in zip(a, b))


def _first_difference(mine: np.ndarray, theirs: np.ndarray) -> str:
    differs = mine != theirs
    if np.issubdtype(mine.dtype, np.floating):
        differs &= ~(np.isnan(mine) & np.isnan(theirs))
    where = np.argwhere(differs)
    if where.size == 0:
        return "the same values, other bits"
    index = tuple(int(i) for i in where[0])
    count = int(differs.sum())
    return f"{count} elements differ, first at {list(index)}: {mine[index]} vs {theirs[index]}"
