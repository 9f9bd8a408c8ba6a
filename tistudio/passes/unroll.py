"""GPU: serial range-for loops written four times per step (unroll).

A serial loop inside a parallel task runs its iterations one after another in each invocation,
so when the grid is small (n-body: 8192 invocations, each walking 8192 bodies) the time is the
latency of one iteration's chain of loads and arithmetic times the trip count. NVIDIA's Vulkan
compiler does not unroll such loops itself; written four times over, the chains of four
iterations overlap (n-body on an H100: 74 -> 109 G pairs/s, `benchmarks/gpu/nbody_probe.py`).

This pass picks the loops and lists them after their task's header: `unroll(4, $5)`. It takes
forward loops that cannot leave early (no break, continue or return), hold no other loop or
autodiff stack, and, with constant bounds, run at least eight times, except the inner loop of a
task that `jam_rows` marked (its copies of the body already overlap). The iterations still run
in their original order, so results are unchanged. The WGSL emitter
(`backends/webgpu/unroll.py`) prints each copy in its own block, then the remaining iterations
one by one; it keeps the plain loop where the body's WGSL is very long.
"""

from __future__ import annotations

from tistudio.ir import statements as s
from tistudio.ir.stmt import Kernel, walk
from tistudio.passes.context import PassContext

FACTOR = 4
_BLOCKERS = (s.Break, s.Continue, s.Return, s.RangeFor, s.While)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = False
    for task in kernel.body:
        if not isinstance(task, s.Offloaded) or task.schedule.unrolled:
            continue
        if task.schedule.jam > 1:  # jam_rows's copies already overlap its one inner loop
            continue
        loops = [x for block in task.blocks() for x in walk(block) if _eligible(x)]
        if loops:
            task.schedule.unroll, task.schedule.unrolled = FACTOR, loops
            changed = True
    return changed


def _eligible(loop: object) -> bool:
    """A forward loop without jumps or inner loops; constant bounds need 2 * FACTOR trips."""
    if not isinstance(loop, s.RangeFor) or loop.reversed:
        return False
    if s.is_const(loop.begin) and s.is_const(loop.end):
        if loop.end.value - loop.begin.value < 2 * FACTOR:
            return False
    for stmt in walk(loop.body):
        if isinstance(stmt, _BLOCKERS) or stmt.uses_ad_stack:
            return False
    return True
