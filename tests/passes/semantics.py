"""Same meaning before and after a pass: `check_pass`'s second check, by running the IR.

A golden compares printed text, so a pass that rewrites `x + y` into `x - y` with the right
shape of output would pass it if the golden had been written wrong. Here the golden's IR before
the pass and the IR the pass made both run in the reference interpreter (`tistudio.ir.interpreter`)
on the same generated inputs: scalar arguments drawn from a seeded generator with edge values
(0, -1, the extremes, -0.0, NaN, infinities), ndarrays and SNode trees of random contents, global
temporaries of random bytes. The two runs must agree bit for bit on what they return, print or
assert, on every tree buffer and ndarray afterwards, and on the global temporaries the IR before
the pass wrote to (the outputs of a fragment); a NaN matches any NaN (the compiler contract does
not fix NaN payloads), -0.0 does not match 0.0.

An input set on which the IR before the pass fails (an index out of bounds, a loop that does not
end within `STEPS` statements) has no meaning to keep and is not compared. Where the IR cannot run
at all (frontend or tensor statements, a detached SNode the golden gives no tree for), the
`Verdict` says why, so that `check_pass` can count and report it.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, fields

import numpy as np

from tistudio.ir import statements as s
from tistudio.ir.assertions import TaichiAssertionError
from tistudio.ir.interpreter import Interpreter, InterpreterError, field_offset, load, store
from tistudio.ir.interpreter_ops import normalize
from tistudio.ir.snode import SNode, finalize_layout
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PointerType, PrimitiveType

INPUT_SETS = 12  # generated inputs per golden
STEPS = 50_000  # statements one run may execute before it counts as not ending
FIELD_SIDE = 4  # cells per axis of the tree made for a field the golden gives no tree for
TENSOR_STATEMENTS = (s.MatrixInit, s.GetElement, s.MatrixPtr)
# passes that combine a parallel reduction's terms in another order, as docs/compiler-contract.md
# allows: their goldens run on floats from `EXACT_SUMS`
REORDER_REDUCTIONS = ("tistudio.passes.make_thread_local", "tistudio.passes.privatize_fields")


@dataclass(frozen=True)
class Verdict:
    """What the semantic check did: on how many input sets the two runs agreed, or why the IR
    could not be run (`reason`, empty when `compared` > 0)."""

    compared: int
    reason: str = ""


class _OutOfSteps(Exception):
    """A run executed more than `STEPS` statements."""


def complete_snodes(kernel: Kernel, snodes: dict[int, SNode] | None) -> dict[int, SNode]:
    """`snodes`, plus a tree (root -> dense -> place) for each detached place that `kernel`
    addresses with `global ptr`: the parser makes such places up when a golden does not care
    about geometry, and the interpreter needs memory behind them. Each axis is as long as
    `_side` says."""
    done = dict(snodes or {})
    arity: dict[int, tuple[SNode, int]] = {}
    for stmt in kernel.walk():
        if isinstance(stmt, s.GlobalPtr) and stmt.snode.parent is None:
            if stmt.snode.type == "place" and stmt.snode.id not in done:
                arity[stmt.snode.id] = (stmt.snode, len(stmt.indices))
    trees = {n.tree_id for n in done.values()}
    fresh = itertools.count(max([*done, *(n.id for n, _ in arity.values()), 0]) + 1)
    for tree_id, (place, n) in zip(itertools.count(max(trees, default=-1) + 1), arity.values()):
        root = SNode(next(fresh), "root", tree_id=tree_id)
        parent = root.dense(tuple(range(n)), (_side(kernel, n),) * n, next(fresh)) if n else root
        done[place.id] = parent.place(place.dtype, place.id)  # type: ignore[arg-type]
        finalize_layout(root)
    return done


def _side(kernel: Kernel, ndim: int) -> int:
    """Cells per axis of a made-up field or ndarray: enough for the largest index-like number
    in the IR (a constant, a task's bound or a field's last index, at most 1024) and at least
    4, within 4096 cells."""
    bounds = [st.value for st in kernel.walk() if isinstance(st, s.Const)]
    bounds += [b for t in kernel.walk() if isinstance(t, s.Offloaded) for b in _bounds(t)]
    bounds += [n - 1 for t in kernel.walk() for node in _snodes_of(t) for n in node.shape]
    largest = max([3, *(b for b in bounds if isinstance(b, int) and 0 <= b <= 1024)])
    return min(largest + 1, round(4096 ** (1 / ndim))) if ndim else 1


def _bounds(task: s.Offloaded) -> list[int]:
    return [task.begin] * task.const_begin + [task.end] * task.const_end


# --- what the IR needs: arguments, trees, temporaries ------------------------------------------


@dataclass
class _Needs:
    """What inputs the two kernels read, and where their outputs are."""

    scalars: dict[int, PrimitiveType] = field(default_factory=dict)  # argument id -> type
    arrays: dict[int, tuple[int, PrimitiveType]] = field(default_factory=dict)  # id -> ndim, type
    roots: dict[int, SNode] = field(default_factory=dict)  # tree id -> root
    gtmp_bytes: int = 8
    gtmp_slots: dict[int, PrimitiveType] = field(default_factory=dict)  # offset -> type
    outputs: dict[int, PrimitiveType] = field(default_factory=dict)  # the slots `before` names
    side: dict[int, int] = field(default_factory=dict)  # ndim -> ndarray cells per axis

    def add(self, stmt: Stmt, before: bool) -> None:
        """Note what `stmt` reads; raise `ValueError` if the interpreter cannot run it."""
        if type(stmt) not in s.ALL_STATEMENTS:
            raise ValueError(f"frontend statement {type(stmt).__name__}: lower_ast not run")
        if isinstance(stmt, TENSOR_STATEMENTS):
            raise ValueError(f"tensor statement {type(stmt).__name__}: scalarize not run")
        for node in _snodes_of(stmt):
            top = node.path()[0]
            if top.type != "root":
                raise ValueError(f"{node.ref()} is detached: the golden gives no SNode tree")
            self.roots[top.tree_id] = top
        if isinstance(stmt, s.ArgLoad):
            _agree(self.scalars, stmt.arg_id, stmt.ret_type, "argload")
        elif isinstance(stmt, s.ExternalPtr):
            _agree(self.arrays, stmt.arg_id, (len(stmt.indices), _pointee(stmt)), "ndarray")
        elif isinstance(stmt, s.GetRoot) and stmt.tree_id not in self.roots:
            raise ValueError(f"get root [tree {stmt.tree_id}]: the golden gives no tree")
        elif isinstance(stmt, s.GlobalTemporary):
            self.gtmp_slots[stmt.offset] = _pointee(stmt)
            self.outputs.update({stmt.offset: _pointee(stmt)} if before else {})
            self.gtmp_bytes = max(self.gtmp_bytes, stmt.offset + _pointee(stmt).nbytes)
        elif isinstance(stmt, s.Offloaded):
            self.gtmp_bytes = max(self.gtmp_bytes, stmt.begin + 4, stmt.end + 4)


def _needs(before: Kernel, after: Kernel, snodes: dict[int, SNode]) -> _Needs:
    """What the two kernels need; raises `ValueError` saying why they cannot run."""
    needs = _Needs(roots={n.tree_id: n for n in snodes.values() if n.type == "root"})
    needs.gtmp_bytes = max(before.gtmp_size, after.gtmp_size, 8)
    for kernel in (before, after):
        for stmt in kernel.walk():
            needs.add(stmt, kernel is before)
    if set(needs.scalars) & set(needs.arrays):
        raise ValueError("an argument is read both as a scalar and as an ndarray")
    needs.side = {ndim: _side(before, ndim) for ndim, _ in needs.arrays.values()}
    return needs


def _snodes_of(stmt: Stmt) -> Iterator[SNode]:
    for f in fields(stmt):
        value = getattr(stmt, f.name)
        if isinstance(value, SNode):
            yield value


def _agree(table: dict, key: int, value: object, what: str) -> None:
    if table.setdefault(key, value) != value:
        raise ValueError(f"{what} {key} is read as {table[key]} and as {value}")


def _pointee(stmt: Stmt) -> PrimitiveType:
    t = stmt.ret_type
    if not (isinstance(t, PointerType) and isinstance(t.pointee, PrimitiveType)):
        raise ValueError(f"{type(stmt).__name__} of type {t}: untyped IR")
    return t.pointee


# --- inputs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Draw:
    """How input set `number` is drawn. Set 0 holds `small` values (0 to 3: indices in bounds,
    short loops); in the odd sets each scalar argument takes the edge values of its type in
    turn (`_edges`, most telling first), so that every argument meets -0.0, NaN, the infinities
    or the integer extremes; the other sets mix small, edge and random values. Floats come
    only from `EXACT_SUMS` where `exact_sums`."""

    rng: np.random.Generator
    number: int
    exact_sums: bool

    def argument(self, t: PrimitiveType, arg_id: int) -> float | int:
        if self.number % 2 == 0:
            return self.value(t)
        pool = self.pool(t, "edge")
        return normalize(pool[(self.number // 2 + 3 * arg_id) % len(pool)], t)

    def value(self, t: PrimitiveType) -> float | int:
        """A value for an array, a field or a global temporary (and an even set's argument)."""
        kind = "small" if self.number == 0 else ("small", "edge", "random")[self.rng.integers(3)]
        pool = self.pool(t, kind)
        return normalize(pool[int(self.rng.integers(len(pool)))], t)

    def pool(self, t: PrimitiveType, kind: str) -> list[float | int]:
        if t.is_float and self.exact_sums:
            return EXACT_SUMS[:5] if kind == "small" else EXACT_SUMS
        if kind == "small":
            return [0.0, 1.0, 2.0, 0.5, -1.0] if t.is_float else [0, 1, 2, 3]
        if kind == "edge" or t.kind == "bool":
            return _edges(t)
        if t.is_float:
            return [float(self.rng.standard_normal() * 10.0)]
        info = np.iinfo(t.numpy_name)
        return [int(self.rng.integers(info.min, info.max, endpoint=True))]


# floats whose sums and products in any order are exact (docs/compiler-contract.md: a parallel
# reduction's order is free, and gives the same bits where the partial sums are exact)
EXACT_SUMS = [0.0, 1.0, 2.0, 0.5, -1.0, -0.0, 3.0, math.inf, -math.inf, math.nan]


def _edges(t: PrimitiveType) -> list[float | int]:
    """A type's edge values, the ones that most often break a rewrite first."""
    if t.is_float:
        big = float(np.finfo(t.numpy_name).max)
        tiny = float(np.finfo(t.numpy_name).smallest_subnormal)
        return [-0.0, math.nan, math.inf, -math.inf, 0.0, -1.0, 1e30, big, tiny, -big, 1.0,
                0.5, -1.5, 3.0, -1e-3, -1e30, -tiny]  # fmt: skip
    if t.kind == "bool":
        return [0, 1]
    info = np.iinfo(t.numpy_name)
    low, high = int(info.min), int(info.max)
    return [0, -1, low, high, 1, low + 1, high - 1, 2, 3, -2, high // 2 + 1]


def _cells(node: SNode) -> Iterator[tuple[int, ...]]:
    return itertools.product(*(range(n) for n in node.shape))


def _places(root: SNode) -> Iterator[SNode]:
    for child in root.children:
        if child.type == "place":
            yield child
        yield from _places(child)


def _tree_bytes(root: SNode) -> int:
    """Bytes up to the end of the last element of every field in the tree."""
    ends = [field_offset(p, [n - 1 for n in p.shape]) + p.cell_size for p in _places(root)]
    return max([8, root.cell_size, *ends])


@dataclass
class _Inputs:
    args: list[object]
    trees: list[np.ndarray]
    gtmp: np.ndarray

    def copy(self) -> _Inputs:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in self.args]
        return _Inputs(args, [t.copy() for t in self.trees], self.gtmp.copy())


def _inputs(needs: _Needs, draw: _Draw) -> _Inputs:
    count = max([*needs.scalars, *needs.arrays], default=-1) + 1
    args: list[object] = [0] * count
    for arg_id, t in needs.scalars.items():
        args[arg_id] = draw.argument(t, arg_id)
    for arg_id, (ndim, t) in needs.arrays.items():
        shape = (needs.side[ndim],) * ndim
        values = [draw.value(t) for _ in range(math.prod(shape))]
        args[arg_id] = np.array(values, dtype=t.numpy_name).reshape(shape)
    trees = [np.zeros(8, np.uint8) for _ in range(max(needs.roots, default=-1) + 1)]
    for tree_id, root in needs.roots.items():
        trees[tree_id] = draw.rng.integers(0, 256, _tree_bytes(root), dtype=np.uint8)
        for place in _places(root):
            for index in _cells(place):
                where = (trees[tree_id], field_offset(place, index))
                store(where, place.dtype, draw.value(place.dtype))  # type: ignore[arg-type]
    gtmp = draw.rng.integers(0, 256, needs.gtmp_bytes, dtype=np.uint8)
    for offset, t in needs.gtmp_slots.items():
        store((gtmp, offset), t, draw.value(t))
    return _Inputs(args, trees, gtmp)


# --- running and comparing ---------------------------------------------------------------------


@dataclass
class _Outcome:
    returned: list[object]
    printed: str
    failed: str  # the failed assertion's message, or ""
    memory: _Inputs


def _run(kernel: Kernel, inputs: _Inputs) -> _Outcome:
    memory = inputs.copy()
    interpreter = Interpreter(kernel, memory.args, memory.trees)
    interpreter.gtmp = memory.gtmp
    steps = itertools.count()

    def counted(run):  # noqa: ANN001, ANN202 — one of the interpreter's bound `run_*` methods
        def step(stmt: Stmt) -> object:
            if next(steps) >= STEPS:
                raise _OutOfSteps
            return run(stmt)

        return step

    interpreter.dispatch = {cls: counted(run) for cls, run in interpreter.dispatch.items()}
    interpreter.block = counted(interpreter.block)  # an empty `while true {}` counts too
    printed, failed = io.StringIO(), ""
    with contextlib.redirect_stdout(printed), np.errstate(all="ignore"):
        try:
            returned = interpreter.run()
        except TaichiAssertionError as e:
            returned, failed = [], str(e)
    return _Outcome([_key(v) for v in returned], printed.getvalue(), failed, memory)


def _key(value: object) -> object:
    """A returned value, compared by bits: -0.0 is not 0.0, every NaN is the same; a pointer
    by its buffer's size and its offset."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack("<d", value)
    if isinstance(value, tuple):
        buffer, offset = value
        return ("pointer", buffer.nbytes, offset)
    return value


def _float_slots(needs: _Needs) -> Iterator[tuple[int | None, int, PrimitiveType]]:
    """(tree id, or None for the global temporaries; byte offset; type) of every output float."""
    for tree_id, root in needs.roots.items():
        for place in _places(root):
            if place.dtype is not None and place.dtype.is_float:
                for index in _cells(place):
                    yield tree_id, field_offset(place, index), place.dtype
    for offset, t in needs.outputs.items():
        if t.is_float:
            yield None, offset, t


def _differences(needs: _Needs, want: _Outcome, got: _Outcome) -> list[str]:
    """How `got` differs from `want` (empty when they agree); makes their NaNs the same."""
    out = []
    for what in ("returned", "printed", "failed"):
        if getattr(want, what) != getattr(got, what):
            out.append(f"{what}: {getattr(want, what)!r} before, {getattr(got, what)!r} after")
    a, b = want.memory, got.memory
    _same_nans(needs, a, b)
    for tree_id, (x, y) in enumerate(zip(a.trees, b.trees)):
        if not np.array_equal(x, y):
            where = np.flatnonzero(x != y)
            out.append(f"tree {tree_id}: {len(where)} bytes differ, the first at byte {where[0]}")
    for offset, t in needs.outputs.items():
        x, y = (load((buffer, offset), t) for buffer in (a.gtmp, b.gtmp))
        if _key(x) != _key(y):
            out.append(f"global tmp var (offset = {offset} B): {x!r} before, {y!r} after")
    for arg_id, (x, y) in enumerate(zip(a.args, b.args)):
        if isinstance(x, np.ndarray) and not _same_bits(x, y):
            out.append(f"ndarray argument {arg_id}: {x!r} before, {y!r} after")
    return out


def _same_nans(needs: _Needs, a: _Inputs, b: _Inputs) -> None:
    """Where both hold a NaN, make it the same NaN: the contract fixes no NaN payload."""
    for tree_id, offset, t in _float_slots(needs):
        pair = (a.gtmp, b.gtmp) if tree_id is None else (a.trees[tree_id], b.trees[tree_id])
        if all(math.isnan(load((buffer, offset), t)) for buffer in pair):
            for buffer in pair:
                store((buffer, offset), t, math.nan)


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    if x.dtype.kind == "f":
        both = np.isnan(x) & np.isnan(y)
        x, y = np.where(both, 0, x), np.where(both, 0, y)
    return x.tobytes() == y.tobytes()


def _asserts(kernel: Kernel) -> int:
    return sum(isinstance(stmt, s.Assert) for stmt in kernel.walk())


def check_meaning(
    before: Kernel, after: Kernel, snodes: dict[int, SNode], seed: int, exact_sums: bool = False
) -> Verdict:
    """Run `before` and `after` on `INPUT_SETS` generated input sets (see `_Draw`); raise
    `AssertionError` on the first that they disagree on. An input set on which `after` fails
    a check that the pass added (an `assert` that `before` lacks) is one the program is wrong
    on, like one on which `before` fails: it is not compared. `exact_sums`: see `EXACT_SUMS`."""
    try:
        needs = _needs(before, after, snodes)
    except ValueError as e:
        return Verdict(0, str(e))
    rng = np.random.default_rng(seed)
    compared, why = 0, ""
    for number in range(INPUT_SETS):
        inputs = _inputs(needs, _Draw(rng, number, exact_sums))
        try:
            want = _run(before, inputs)
        except (InterpreterError, _OutOfSteps, RecursionError) as e:
            why = f"the IR before the pass fails on every input set ({type(e).__name__}: {e})"
            continue
        except Exception as e:  # noqa: BLE001 — a statement the interpreter gives no meaning
            return Verdict(0, f"the interpreter cannot run it: {type(e).__name__}: {e}")
        got = _run_after(after, inputs)
        if got.failed and not want.failed and _asserts(after) > _asserts(before):
            why = f"every input set fails a check that the pass added ({got.failed})"
            continue
        differences = _differences(needs, want, got)
        assert not differences, (
            f"the IR after the pass computes something else than the IR before it, on "
            f"arguments {inputs.args!r}:\n  " + "\n  ".join(differences)
        )
        compared += 1
    return Verdict(compared, "" if compared else why)


def _run_after(after: Kernel, inputs: _Inputs) -> _Outcome:
    try:
        return _run(after, inputs)
    except (InterpreterError, _OutOfSteps, RecursionError) as e:
        raise AssertionError(
            f"the IR after the pass fails ({type(e).__name__}: {e}) on arguments "
            f"{inputs.args!r}, where the IR before it ran"
        ) from None
