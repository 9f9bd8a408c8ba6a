"""Printing the serial loops that the `unroll` pass chose, four iterations per step, in WGSL.

The pass (`passes/unroll.py`, where the why is) lists the loops in its task's schedule. The
body is emitted once and its text repeated: each copy sits in its own `{ }` block and declares
the loop index as a `let` of the index's name, so the copies' names shadow each other instead
of clashing; then the remaining iterations run one by one. A body longer than `MAX_LINES` of
WGSL keeps the plain loop (it would be emitted five times). `UnrollingEmitter` is the task
emitter with this `emit_RangeFor`; a device whose `Caps.unroll` is off prints every loop plain.

`emit_grid` does the same for the grid-stride loop of a range_for task (`Caps.grid_unroll`
indices `stride` apart per step). It did not speed up the stencils on an H100, so it is off.
"""

from __future__ import annotations

from tistudio.backends.webgpu import wgsl
from tistudio.backends.webgpu.emitter import TaskEmitter
from tistudio.ir import statements as s
from tistudio.ir.stmt import walk

MAX_LINES = 200  # a longer body would be emitted five times (four copies and the rest loop)


class UnrollingEmitter(TaskEmitter):
    """The task emitter, with the loops of the task's schedule unrolled (unless `Caps.unroll`
    is off); `shader.build_shaders` uses it."""

    def emit_RangeFor(self, stmt: s.RangeFor) -> None:
        if not (self.caps.unroll and stmt in self.task.schedule.unrolled):
            super().emit_RangeFor(stmt)
            return
        reg = self.reg(stmt, stmt.begin.ret_type)
        index = f"{self.name_of(stmt)}_i"
        self.loop_vars[stmt] = index
        self.hoist_loads(stmt)
        mark = len(self.body)
        with self.indent(), self.indent():
            self.block(stmt.body)
        body = self.body[mark:]
        del self.body[mark:]
        if emit(self, stmt, reg, index, body):
            return
        begin, end = self.value(stmt.begin), self.value(stmt.end)  # too long: the plain loop
        self.line(f"for (var {index}: {reg} = {begin}; {index} < {end}; {index} = {index} + 1) {{")
        self.body.extend(line[4:] for line in body)
        self.line("}")


def emit(e: TaskEmitter, loop: s.RangeFor, reg: str, index: str, body: list[str]) -> bool:
    """The loop's WGSL, with `body` (the body emitted once, reading the index as `index`)
    repeated the schedule's `unroll` times per step, then the remaining iterations one by one.
    False (nothing emitted) if the body is too long."""
    if len(body) > MAX_LINES:
        return False
    factor = e.task.schedule.unroll
    begin, end = e.value(loop.begin), e.value(loop.end)
    counter = f"{index}u"
    step = wgsl.literal(factor, loop.begin.ret_type)
    one = wgsl.literal(1, loop.begin.ret_type)
    e.line(f"var {counter}: {reg} = {begin};")
    # end - counter wraps past the type's range only when it is out of reach: the rest loop
    # then runs every iteration, still in order
    e.line(f"for (; {counter} < {end} && {end} - {counter} >= {step}; {counter} += {step}) {{")
    for k in range(factor):
        copy = counter if k == 0 else f"{counter} + {wgsl.literal(k, loop.begin.ret_type)}"
        e.line(f"    {{ let {index}: {reg} = {copy};")
        e.body.extend(body)
        e.line("    }")
    e.line("}")
    trips = None
    if s.is_const(loop.begin) and s.is_const(loop.end):
        trips = loop.end.value - loop.begin.value
    if trips is None or trips % factor:
        e.line(f"for (; {counter} < {end}; {counter} += {one}) {{")
        e.line(f"    let {index}: {reg} = {counter};")
        e.body.extend(body)
        e.line("}")
    return True


def grid_eligible(body: list[str], block: object) -> bool:
    """A range_for body that can be repeated in one step of the grid-stride loop: no jumps
    (a `continue` would skip the other copies), no autodiff stack, not too long."""
    if len(body) > MAX_LINES:
        return False
    jumps = (s.Break, s.Continue, s.Return)
    return not any(isinstance(x, jumps) or x.uses_ad_stack for x in walk(block))


def emit_grid(
    e: TaskEmitter, factor: int, start: str, stride: str, let_index: str, body: list[str]
):
    """The grid-stride loop taking `factor` indices `stride` apart per step (each load still
    coalesced across a warp, more of them in flight per invocation), then the rest one by one.
    `let_index` declares the task's index from `k`."""
    e.line(f"var kk: u32 = {start};")
    step = f"{factor}u * {stride}"
    e.line(f"for (; kk < count && count - kk > {factor - 1}u * {stride}; kk += {step}) {{")
    for u in range(factor):
        e.line(f"    {{ let k: u32 = kk + {u}u * {stride};")
        e.line(f"    {let_index}")
        e.body.extend(body)
        e.line("    }")
    e.line("}")
    e.line(f"for (; kk < count; kk += {stride}) {{")
    e.line("    let k: u32 = kk;")
    e.line(f"    {let_index}")
    e.body.extend(body)
    e.line("}")
