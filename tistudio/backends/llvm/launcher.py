"""The kernel launcher: one native function that runs all of a kernel's tasks in order.

`void launch(ptr ctx)` calls each serial task, and hands each range_for task to the native
thread pool's `tistudio_pool_run` (found through the state block whose address is in the
argument buffer), reading non-constant bounds from the global temporaries that earlier tasks
wrote. Python then makes one ctypes call per launch, however many tasks the kernel has.
"""

from __future__ import annotations

import math

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.context import GTMP_SLOT, POOL_SLOT
from tistudio.backends.llvm.debug_checks import stop_if_failed
from tistudio.backends.llvm.lltypes import I8, I32, I64, PTR, VOID
from tistudio.ir.ops import TaskType
from tistudio.ir.statements import Const, If, Offloaded, RangeFor, While
from tistudio.ir.stmt import Block, Kernel

# Iterations assumed for an inner loop whose trip count is known only at launch (or a `while`).
UNKNOWN_TRIPS = 256

# Iterations (`bounded_work`) up to which a launch keeps Python's GIL: one chunk of the pool
# (never split over threads), well under a millisecond in which other Python threads wait,
# against the ~0.1 us it costs to let the GIL go and take it back (see `executable.py`).
SHORT_WORK_LIMIT = 4096


def build_launcher(
    module: ir.Module, kernel: Kernel, functions: list[str], threads: int, grain: int
) -> str:
    """Add `<prefix>_launch` to `module` (after the tasks' functions); return its name. Each
    range_for task is split into chunks of at least `task_grain(task, grain)` iterations."""
    name = f"{module.name}_launch"
    launcher = ir.Function(module, ir.FunctionType(VOID, [PTR]), name)
    launcher.attributes.append("nounwind")
    b = ir.IRBuilder(launcher.append_basic_block("entry"))
    ctx = launcher.args[0]
    ctx.name = "ctx"
    for index, (task, function) in enumerate(zip(kernel.body, functions)):
        assert isinstance(task, Offloaded)
        task_fn = module.globals[function]
        if index:
            stop_if_failed(b, ctx, kernel)  # a debug check of an earlier task failed
        if task.task_type is not TaskType.range_for:
            b.call(task_fn, [ctx])
            continue
        begin = _bound(b, ctx, task.const_begin, task.begin)
        end = _bound(b, ctx, task.const_end, task.end)
        state = _slot(b, ctx, POOL_SLOT)
        address = b.gep(state, [ir.Constant(I64, rt.RUN_ADDRESS)], source_etype=I8)
        run = ir.callee(b.load(address, typ=PTR), rt.RUN_TYPE)
        chunk = ir.Constant(I32, task_grain(task, grain))
        b.call(run, [state, task_fn, ctx, begin, end, ir.Constant(I32, threads), chunk])
    b.ret_void()
    return name


def _slot(b: ir.IRBuilder, ctx: ir.Value, slot: int) -> ir.Value:
    return b.load(b.gep(ctx, [ir.Constant(I64, slot)], source_etype=I64), typ=PTR)


def _bound(b: ir.IRBuilder, ctx: ir.Value, const: bool, value: int) -> ir.Value:
    if const:
        return ir.Constant(I32, value)
    gtmp = _slot(b, ctx, GTMP_SLOT)
    return b.load(b.gep(gtmp, [ir.Constant(I64, value)], source_etype=I8), typ=I32)


def task_grain(task: Offloaded, grain: int) -> int:
    """Fewest iterations per chunk for range_for `task`: the pool's `grain`, which is tuned for
    a light loop body, divided by the iterations of the inner loops of one iteration (a row
    loop over a 2D ndrange, a `while` escape loop), so that heavy iterations still split."""
    return max(1, grain // int(min(_inner_work(task.body), grain)))


def estimated_work(kernel: Kernel) -> float:
    """Iterations of a launch of `kernel`, inner loops counted as in `task_grain` (infinite
    where a range is known only at launch): what decides whether its first launches may run
    the quick tier's code (`tiering.QUICK_WORK_LIMIT`)."""
    return _kernel_work(kernel, UNKNOWN_TRIPS)


def bounded_work(kernel: Kernel) -> float:
    """Iterations of a launch of `kernel` where every loop, inner ones included, has constant
    bounds; infinite where some loop's trips are known only at launch or a `while` loops: an
    upper bound on what a launch can do, which decides whether it may keep Python's GIL
    (`SHORT_WORK_LIMIT`)."""
    return _kernel_work(kernel, math.inf)


def _kernel_work(kernel: Kernel, unknown: float) -> float:
    work = 0.0
    for task in kernel.body:
        assert isinstance(task, Offloaded)
        inner = _inner_work(task.body, unknown)
        if task.task_type is not TaskType.range_for:
            work += inner
        elif not (task.const_begin and task.const_end):
            return math.inf
        else:
            work += max(task.end - task.begin, 0) * inner
    return work


def _inner_work(block: Block, unknown: float = UNKNOWN_TRIPS) -> float:
    """Iterations of the inner loops of one iteration of `block`'s loop; a loop whose trips are
    known only at launch, or a `while`, counts as `unknown` trips."""
    work = 1.0
    for stmt in block:
        if isinstance(stmt, RangeFor):
            begin, end = stmt.begin, stmt.end
            trips = unknown
            if isinstance(begin, Const) and isinstance(end, Const):
                trips = max(int(end.value) - int(begin.value), 1)
            work = max(work, trips * _inner_work(stmt.body, unknown))
        elif isinstance(stmt, While):
            work = max(work, unknown * _inner_work(stmt.body, unknown))
        elif isinstance(stmt, If):
            work = max(
                work,
                _inner_work(stmt.true_block, unknown),
                _inner_work(stmt.false_block, unknown),
            )
    return work
