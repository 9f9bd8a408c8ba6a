"""The simplify group (simplify): the cheap clean-up passes, run together until nothing changes.

Each clean-up opens doors for the others: constant folding makes `x * 1` visible to `alg_simp`,
forwarding a stored value lets `cse` merge two computations, and every one of them leaves dead
statements for `die`. So we run the passes round after round, as Taichi's `full_simplify` does,
until each has run once since the last change without changing anything. A group that never
settles is a compiler bug, so after `MAX_ROUNDS` rounds we stop with an `InternalCompilerError`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from tistudio.ir.stmt import Kernel
from tistudio.ir.verifier import InternalCompilerError
from tistudio.passes import (
    alg_simp,
    constant_fold,
    cse,
    die,
    loop_invariant_code_motion,
    store_forwarding,
)
from tistudio.passes.context import PassContext

SIMPLIFY_PASSES = (constant_fold, alg_simp, cse, store_forwarding, loop_invariant_code_motion, die)
MAX_ROUNDS = 20


def run(kernel: Kernel, ctx: PassContext) -> bool:
    changed = [False]

    def step(module) -> bool:  # noqa: ANN001 — a pass module
        result = bool(module.run(kernel, ctx))
        changed[0] |= result
        return result

    fixed_point_steps(step)
    return changed[0]


def fixed_point_steps(run_pass: Callable[[ModuleType], bool]) -> int:
    """Run `SIMPLIFY_PASSES` in turn, round and round, until every one of them has run once
    since the last change without changing anything; return how many passes ran. Stopping
    there, not at the end of a round with no change, saves up to a round of passes that could
    only confirm what the others already established."""
    quiet, steps = 0, 0
    count = len(SIMPLIFY_PASSES)
    while quiet < count:
        if steps >= MAX_ROUNDS * count:
            raise InternalCompilerError(f"simplify did not settle after {MAX_ROUNDS} rounds")
        changed = run_pass(SIMPLIFY_PASSES[steps % count])
        steps += 1
        quiet = 0 if changed else quiet + 1
    return steps
