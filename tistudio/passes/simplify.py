"""The simplify group (simplify): the cheap clean-up passes, run together until nothing changes.

Each clean-up opens doors for the others: constant folding makes `x * 1` visible to `alg_simp`,
forwarding a stored value lets `cse` merge two computations, and every one of them leaves dead
statements for `die`. So we run the passes round after round, as Taichi's `full_simplify` does,
until each has run once without a change since the last change that could concern it. A group
that never settles is a compiler bug, so after `MAX_ROUNDS` rounds we stop with an
`InternalCompilerError`. The order is the one that needs the fewest passes over the benchmark
kernels (261, against 299 for constant_fold, alg_simp, cse, ...; the same final IR): `cse`
first, so that its merges reach `store_forwarding` and `alg_simp` in the same round.
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

SIMPLIFY_PASSES = (cse, store_forwarding, constant_fold, alg_simp, loop_invariant_code_motion, die)
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
    """Run `SIMPLIFY_PASSES` in turn, round and round, until every pass that a change since
    its last run could have given work has run again without changing anything; return how
    many passes ran.

    Every pass is idempotent (a second run right after it changes nothing: tested on random
    programs), so a change never calls for the pass that made it. Which others it calls for
    is `_WAKES`: most call for every other pass, three for fewer (the reasons are there).
    Over the benchmark kernels this runs 261 passes where "each pass once more after any
    change" ran 372 (in another order), with the same final IR for every kernel."""
    count = len(SIMPLIFY_PASSES)
    due = set(range(count))  # passes that must run (again) before the group has settled
    steps, turn = 0, 0
    while due:
        if steps >= MAX_ROUNDS * count:
            raise InternalCompilerError(f"simplify did not settle after {MAX_ROUNDS} rounds")
        index = turn % count
        turn += 1
        if index not in due:
            continue
        module = SIMPLIFY_PASSES[index]
        due.discard(index)
        steps += 1
        if run_pass(module):
            due |= _WAKES[index]
    return steps


def _indices(*modules: ModuleType) -> frozenset[int]:
    return frozenset(SIMPLIFY_PASSES.index(m) for m in modules)


# Which passes a change by each pass can give work to (by index in SIMPLIFY_PASSES):
_WAKES = [
    _indices(*(m for m in SIMPLIFY_PASSES if m is not changed)) for changed in SIMPLIFY_PASSES
]
# cse replaces a statement by an equal one that comes earlier: every operand keeps its value,
# so nothing becomes constant (no work for constant_fold); `x - x` may appear (alg_simp), two
# addresses may become one (store_forwarding), an operand may now be defined outside a loop
# (loop_invariant_code_motion) and the replaced statement's operands may lose their last use
_WAKES[SIMPLIFY_PASSES.index(cse)] = _indices(
    alg_simp, store_forwarding, loop_invariant_code_motion, die
)
# loop_invariant_code_motion moves pure statements out of loops, changing no value, operand or
# address: only a moved statement that now equals one before the loop is new work (cse)
_WAKES[SIMPLIFY_PASSES.index(loop_invariant_code_motion)] = _indices(cse)
# die deletes what nothing reads: that makes no operand constant, no two statements equal and
# no statement loop-invariant; an `if` or loop around nothing may have stood between a store
# and a load (store_forwarding)
_WAKES[SIMPLIFY_PASSES.index(die)] = _indices(store_forwarding)
