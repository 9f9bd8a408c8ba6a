"""Printing a task that the `jam_rows` pass marked: rows of a 2-D loop per invocation, in WGSL.

The pass (`passes/jam_rows.py`, where the why is) marks a range_for task `jam(R, stride W)`:
its flat index is `row * W + column`, and each invocation takes R rows of one column. The
grid-stride loop runs over `t` in `[0, count / R)`, and copy `r` of the body takes the index
`((t >> L) * R + r) << L | (t & (W - 1))` (W = 2^L): row `R * (t >> L) + r`, column
`t & (W - 1)`, so consecutive invocations still take consecutive columns (coalesced loads).

The code before the inner loop is written once per copy, then one inner loop holding a copy of
its body per row, then the code after it per copy. Each copy has its own values, local
variables and WGSL names (`s5_r3`); a statement whose value is the same in every copy (it
depends only on constants, arguments, the column, the inner loop's index, and loads at such
addresses before anything is stored, such as `b[k, j]`) is written once and read by all of
them: that shared load is the gain. `Caps.jam` off prints the task as written.
"""

from __future__ import annotations

from tistudio.backends.webgpu.emitter import TaskEmitter
from tistudio.backends.webgpu.resources import Caps
from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.stmt import Block, Stmt, walk

# statements whose value follows from their operands alone (same operands, same value)
_PURE = (s.UnaryOp, s.BinaryOp, s.TernaryOp, s.GetCh, s.SNodeLookup, s.ExternalPtr)
_INVARIANT = (s.Const, s.ArgLoad, s.GetRoot, s.GlobalTemporary, s.ExternalTensorShape)


def copies(task: s.Offloaded, caps: Caps) -> int:
    """Loop indices each invocation takes for `task`: the pass's rows, or 1 (not jammed)."""
    schedule = task.schedule
    if caps.jam and schedule.jam > 1 and schedule.jam_stride:
        assert schedule.lanes == 1, "vectorize leaves a task with a loop alone"
        return schedule.jam
    return 1


def emit(e: TaskEmitter, index: str, stride: str) -> None:
    """The task's grid-stride loop, R rows per step (see the module docstring); `index` is
    the task's index variable's name, each copy's with `_r{r}` after it."""
    task = e.task
    rows, width = task.schedule.jam, task.schedule.jam_stride
    shift, mask = width.bit_length() - 1, width - 1
    at = next(k for k, x in enumerate(task.body.stmts) if isinstance(x, s.RangeFor))
    before, inner, after = task.body.stmts[:at], task.body.stmts[at], task.body.stmts[at + 1 :]
    assert isinstance(inner, s.RangeFor) and task.begin == 0
    jammed = _Copies(e, rows, shared_stmts(task, inner, mask))
    e.line(f"for (var k: u32 = gid.x; k < {(task.end - task.begin) // rows}u; k = k + {stride}) {{")
    with e.indent():
        for r, state in enumerate(jammed.states):
            state["loop_vars"][task] = name = f"{index}_r{r}"
            row = f"(((k >> {shift}u) * {rows}u + {r}u) << {shift}u)"
            e.line(f"let {name}: i32 = i32({row} | (k & {mask}u));")
        jammed.block(before)
        jammed.enter(jammed.states[0], "")  # what every copy shares
        begin, end = e.value(inner.begin), e.value(inner.end)  # constants
        loop = f"{e.name_of(inner)}_i"
        for state in jammed.states:
            state["loop_vars"][inner] = loop
        reg = e.reg(inner, inner.begin.ret_type)
        e.line(f"for (var {loop}: {reg} = {begin}; {loop} < {end}; {loop} = {loop} + 1) {{")
        with e.indent():
            jammed.block(inner.body)
        e.line("}")
        jammed.block(after)
    e.line("}")
    jammed.restore()


def shared_stmts(task: s.Offloaded, inner: s.RangeFor, mask: int) -> set[Stmt]:
    """The statements whose value is the same in every copy: invariants, the column
    (`index & c`, c <= mask), the inner loop's index, pure statements of shared operands, and
    loads of shared addresses up to the end of the inner loop (nothing before it stores)."""
    after = set(task.body.stmts[task.body.stmts.index(inner) + 1 :])
    shared: set[Stmt] = set()
    for stmt in walk(task.body):
        if isinstance(stmt, _INVARIANT):
            shared.add(stmt)
        elif isinstance(stmt, s.LoopIndex):
            if stmt.loop is inner:
                shared.add(stmt)
        elif isinstance(stmt, s.BinaryOp) and _is_column(stmt, task, mask):
            shared.add(stmt)
        elif isinstance(stmt, _PURE) or (isinstance(stmt, s.GlobalLoad) and stmt not in after):
            if all(x in shared for x in stmt.operands()):
                shared.add(stmt)
    return shared


def _is_column(stmt: s.BinaryOp, task: s.Offloaded, mask: int) -> bool:
    lhs, rhs = stmt.lhs, stmt.rhs
    if stmt.op is not B.bit_and or not (isinstance(lhs, s.LoopIndex) and lhs.loop is task):
        return False
    return s.is_const(rhs) and 0 <= int(rhs.value) <= mask


_TABLES = ("values", "ptrs", "zeros", "locals", "loop_vars")  # the emitter's maps of a copy
_SHARED_TABLES = ("values", "ptrs", "zeros")  # where a shared statement's names go


class _Copies:
    """Emits blocks statement by statement: a shared statement once (its names reach every
    copy), any other once per copy, each copy in its own maps (`_TABLES`, copies of the
    emitter's) and with its own name suffix."""

    def __init__(self, e: TaskEmitter, count: int, shared: set[Stmt]) -> None:
        self.e, self.shared = e, shared
        self.outer = {table: getattr(e, table) for table in _TABLES}
        self.states = [{t: dict(maps) for t, maps in self.outer.items()} for _ in range(count)]

    def block(self, block: Block | list[Stmt]) -> None:
        for stmt in block:
            if stmt not in self.shared:
                for r, state in enumerate(self.states):
                    self._emit(stmt, state, f"_r{r}")
                continue
            first = self.states[0]
            self._emit(stmt, first, "")
            for state in self.states[1:]:
                for table in _SHARED_TABLES:
                    if stmt in first[table]:
                        state[table][stmt] = first[table][stmt]

    def _emit(self, stmt: Stmt, state: dict[str, dict], suffix: str) -> None:
        self.enter(state, suffix)
        self.e.emit(stmt)

    def enter(self, state: dict[str, dict], suffix: str) -> None:
        """Let the emitter write as the copy of `state` (names ending in `suffix`)."""
        for table, maps in state.items():
            setattr(self.e, table, maps)
        self.e.suffix = suffix

    def restore(self) -> None:
        """The emitter's own maps again, as before the loop."""
        for table, maps in self.outer.items():
            setattr(self.e, table, maps)
        self.e.suffix = ""
