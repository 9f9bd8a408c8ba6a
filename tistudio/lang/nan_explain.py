"""Where a NaN came from: `explain_nan(field, index)` and the record of which launch wrote what.

A `WriteLog` listens to the "launched" events a kernel call already publishes and keeps, per
field, the last launch that may have written it (kernel, cache entry, run-time arguments): one
dictionary store per written field, nothing on a launch nobody listens to. It starts with the
first field viewer or `record_writes()` and lives on the `Program` (after `ti.init`, on the
next one).

`explain_nan` reruns that launch for one cell in the IR interpreter with value tracing
(`ir/nan_trace.py`), on copies of the fields and arrays (the user's data is never written), and
names the first source line whose expression made the NaN or Inf, with its operands' values.
The rerun reads memory as it is now: a kernel that reads what it writes sees its own output.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.events import Event, bus
from tistudio.ir.interpreter import field_offset
from tistudio.ir.nan_trace import NanTracer, Origin
from tistudio.lang import impl
from tistudio.lang.arg_names import caller_namespaces, variable_name


@dataclass(frozen=True)
class Launch:
    """One kernel launch as the "launched" event told it."""

    kernel: Any
    entry: Any
    args: tuple


class WriteLog:
    """The last launch that wrote each field (by place SNode id) of the current program. After
    `ti.init` it follows the new program: it forgets the old one's launches and files itself
    as the new one's log at its first launch."""

    def __init__(self, program: Any) -> None:
        self.program = program
        self.last: dict[int, tuple] = {}  # place SNode id -> (kernel, entry ref, run-time args)
        self._stop = bus.subscribe("launched", self._launched)

    def _launched(self, event: Event) -> None:
        program = impl.current.program
        if program is not self.program:  # ti.init made a new program
            if program.write_log is not None:  # which has a log of its own: leave it that
                self.stop()
                return
            self.program, self.last = program, {}
            program.write_log = self
        data = event.data
        entry = data["entry"]
        # a plain tuple (~0.5 us less than a dataclass); the entry weakly, so that an instance
        # the kernel's cache drops is freed with its machine code, log or no log
        launch = (data["kernel"], weakref.ref(entry), data["args"])
        last = self.last
        for snode in entry.result.written_snodes:
            last[snode.id] = launch

    def stop(self) -> None:
        self._stop()

    def writer_of(self, field: Any) -> Launch | None:
        found = [self.last.get(snode.id) for snode in _place_snodes(field)]
        launch = next((launch for launch in found if launch is not None), None)
        entry = launch[1]() if launch is not None else None
        return Launch(launch[0], entry, tuple(launch[2])) if entry is not None else None


def record_writes(program: Any = None) -> WriteLog:
    """Start (or return) the log of which launch last wrote each field, from now on."""
    program = program or impl.get_program()
    if program.write_log is None:
        program.write_log = WriteLog(program)
    return program.write_log


@dataclass(frozen=True)
class NanExplanation:
    """Where the non-finite value in `field[index]` came from (`origin` None: the element is
    finite, or the rerun on today's memory stored no NaN or Inf there)."""

    field_name: str
    index: tuple[int, ...]
    kernel_name: str
    origin: Origin | None
    value: Any = None  # the element's value now (a list for a vector field)

    @property
    def filename(self) -> str | None:
        return self.origin.loc.filename if self.origin and self.origin.loc else None

    @property
    def line(self) -> int | None:
        return self.origin.loc.line if self.origin and self.origin.loc else None

    @property
    def expression(self) -> str:
        """The source line's text, stripped."""
        loc = self.origin.loc if self.origin else None
        return loc.source_line.strip() if loc is not None else ""

    @property
    def operation(self) -> str:
        """The operation and its operands' values: `sqrt(-6.0) = nan`."""
        if self.origin is None:
            return ""
        if self.origin.kind == "loaded":
            return f"read {self.origin.value} from memory the kernel did not write"
        operands = ", ".join(repr(_plain(v)) for v in self.origin.operands)
        return f"{self.origin.op}({operands}) = {_plain(self.origin.value)}"

    @property
    def operands(self) -> tuple[Any, ...]:
        return tuple(_plain(v) for v in self.origin.operands) if self.origin else ()

    def __repr__(self) -> str:
        cell = f"{self.field_name}[{', '.join(map(str, self.index))}]"
        if self.origin is None:
            return f"<{cell} = {self.value}: {self.verdict}>"
        where = f"{self.filename}:{self.line}" if self.line is not None else "(no source line)"
        return (
            f"<{cell} = {_plain(self.origin.value)} from kernel {self.kernel_name}, "
            f"{where}: {self.expression}\n  {self.operation}>"
        )

    @property
    def verdict(self) -> str:
        """Why there is no origin: the element is finite, or the rerun found none."""
        if np.isfinite(np.asarray(self.value, dtype=np.float64)).all():
            return f"finite, nothing to explain (last written by {self.kernel_name})"
        return (
            f"rerunning {self.kernel_name} on the memory of now stores no NaN or Inf there "
            "(its inputs changed since?)"
        )

    def to_dict(self) -> dict[str, Any]:
        """What the field viewer shows."""
        return {
            "verdict": self.verdict if self.origin is None else "",
            "cell": list(self.index),
            "kernel": self.kernel_name,
            "file": self.filename,
            "line": self.line,
            "expression": self.expression,
            "operation": self.operation,
            "found": self.origin is not None,
        }


def explain_nan(field: Any, index: Sequence[int] | int, log: WriteLog | None = None) -> Any:
    """Rerun, for `field[index]`, the last launch that wrote `field`, in the IR interpreter with
    value tracing, and say which source line made the NaN or Inf stored there."""
    index = (index,) if isinstance(index, int | np.integer) else tuple(int(i) for i in index)
    program = impl.get_program()
    log = log or program.write_log
    launch = log.writer_of(field) if log is not None else None
    if launch is None:
        raise LookupError(
            f"no recorded launch wrote {_name(field)}: the log of writes starts with the first "
            "field viewer or tistudio.studio.record_writes(); launch the kernel again"
        )
    shape = tuple(field.shape)
    if len(index) != len(shape) or not all(0 <= i < n for i, n in zip(index, shape)):
        raise IndexError(f"index {list(index)} is outside {_name(field)} of shape {list(shape)}")
    value = np.asarray(field[index if len(index) > 1 else index[0]], dtype=np.float64)
    if np.isfinite(value).all():  # nothing to explain: no rerun (a finite cell runs them all)
        return NanExplanation(_name(field), index, launch.entry.name, None, _plain(value))
    final_ir = _final_ir(launch, program)
    if program.gpu is not None:  # the device's copy back to the host first
        for tree in program.trees:
            program.gpu.before_host_access(tree.id)
    trees = [tree.buffer.copy() for tree in program.trees]
    raw = tuple(i - o for i, o in zip(index, field.offset))
    targets = [(p.tree_id, field_offset(p, raw)) for p in _place_snodes(field)]
    args = [_copy(a) for a in launch.args]
    origin = NanTracer(final_ir, args, trees, targets, _guesses(raw, field)).trace()
    return NanExplanation(_name(field), index, launch.entry.name, origin, _plain(value))


def _final_ir(launch: Launch, program: Any) -> Any:
    """The launch's final IR; for a kernel the offline cache loaded (machine code, no IR), the
    instantiation compiled again from the call's arguments, rebuilt from its cache key."""
    if launch.entry.result.final_ir is not None:
        return launch.entry.result.final_ir
    args = _call_args(launch, program)
    if args is None:
        raise RuntimeError(
            f"{launch.entry.name} came from the offline cache without its IR, and its "
            "arguments cannot be rebuilt: run with ti.init(offline_cache=False) to explain it"
        )
    return launch.kernel.compile_report(*args).result.final_ir


def _call_args(launch: Launch, program: Any) -> list[Any] | None:
    """The call's arguments: its run-time ones as launched, its template ones from the cache
    key (`kernel_args.template_key`: fields by identity, values as they are); None where that
    cannot be done (vector arguments spread into scalars, an object no longer known)."""
    kernel, entry = launch.kernel, launch.entry
    specs = kernel.param_specs()
    if not entry.flat_args or len(entry.runtime_positions) > len(launch.args):
        return None
    args: list[Any] = [None] * len(specs)
    for position, value in zip(entry.runtime_positions, launch.args):
        args[position] = value
    known = {id(f): f for f in program.fields_by_snode.values()}
    known.update((i, obj) for i, (obj, _) in kernel._namer._given.items())
    try:
        for position, spec in enumerate(specs):
            if spec.kind == "template":
                args[position] = _from_key(entry.signature[position], known)
    except LookupError:
        return None
    return args


def _from_key(key: Any, known: dict[int, Any]) -> Any:
    """The template argument behind `template_key(arg)`."""
    kind = key[0]
    if kind == "field":
        return known[key[1]]
    if kind == "value":
        return key[2]
    if kind == "object":
        return key[1].obj
    if kind in ("list", "tuple"):
        items = [_from_key(k, known) for k in key[1]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {_from_key(k, known): _from_key(v, known) for k, v in key[1]}
    if kind == "ndarray":
        return np.frombuffer(key[3], dtype=key[1]).reshape(key[2])
    raise LookupError(kind)


def _guesses(index: tuple[int, ...], field: Any) -> list[Any]:
    """Iteration numbers likely to write the cell: its row-major number in the field's shape
    (a range-for or a demoted struct-for over it) and the index itself (a struct-for)."""
    shape = tuple(field.shape)
    flat = int(np.ravel_multi_index(index, shape)) if shape else 0
    return [flat, index]


def _place_snodes(field: Any) -> list[Any]:
    parts = getattr(field, "components", None) or [field]
    return [part._ti_place_snode for part in parts]


def _copy(arg: Any) -> Any:
    arg = getattr(arg, "_ti_numpy_storage", arg)
    return arg.copy() if isinstance(arg, np.ndarray) else arg


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim else float(value)
    return float(value) if isinstance(value, np.floating) else value


def _name(field: Any) -> str:
    """The field's `name=`, else the one variable holding it where explain_nan was called."""
    return getattr(field, "name", "") or variable_name(field, caller_namespaces()) or "field"
