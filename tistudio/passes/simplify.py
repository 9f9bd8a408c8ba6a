"""The simplify group (simplify): the cheap clean-up passes, run together until nothing changes.

Each clean-up opens doors for the others: constant folding makes `x * 1` visible to `alg_simp`,
forwarding a stored value lets `cse` merge two computations, and every one of them leaves dead
statements for `die`. So we run the group round after round until a whole round changes nothing,
as Taichi's `full_simplify` does. A group that never settles is a compiler bug, so after
`MAX_ROUNDS` rounds we stop with an `InternalCompilerError`.
"""

from __future__ import annotations

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
    changed = False
    for _ in range(MAX_ROUNDS):
        round_changed = False
        for module in SIMPLIFY_PASSES:
            round_changed |= module.run(kernel, ctx)  # every pass runs, even after a change
        if not round_changed:
            return changed
        changed = True
    raise InternalCompilerError(f"simplify did not settle after {MAX_ROUNDS} rounds")
