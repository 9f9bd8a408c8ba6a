"""Size the autodiff stacks (determine_ad_stack_size).

A stack made by `auto_diff` receives one `stack push` each time the forward code computes the
value it records, so it needs as many entries as that push can run per thread: the product of
the trip counts of the serial loops around the push (inside the stack's own block), summed over
its pushes. When a loop's bounds are known only at run time we fall back to
`ti.init(ad_stack_size=N)`, else Taichi's default of 32 entries (`DEFAULT_SIZE`), and warn: a
push beyond the size overwrites the newest entry, which gives wrong gradients.
"""

from __future__ import annotations

from tistudio.ir.statements import AdStackAlloca, AdStackPush, Const, RangeFor, While
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.passes.context import PassContext

DEFAULT_SIZE = 32
_UNKNOWN = (
    "autodiff: a loop here runs a number of times known only at run time, so its stack holds "
    "{size} values per thread; more iterations give wrong gradients (ti.init(ad_stack_size=N))"
)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    pushes: dict[AdStackAlloca, list[AdStackPush]] = {}
    for stmt in kernel.walk():
        if isinstance(stmt, AdStackPush) and isinstance(stmt.stack, AdStackAlloca):
            pushes.setdefault(stmt.stack, []).append(stmt)
    changed = False
    for stack, its_pushes in pushes.items():
        counts = [_trip_product(push, stack) for push in its_pushes]
        if None in counts:
            size = ctx.config.ad_stack_size or DEFAULT_SIZE
            if stack.max_size != size:
                ctx.warn(_UNKNOWN.format(size=size), stack.loc)
        else:
            size = max(sum(counts), 1)  # type: ignore[arg-type]
        if stack.max_size != size:
            stack.max_size = size
            changed = True
    return changed


def _trip_product(push: Stmt, stack: AdStackAlloca) -> int | None:
    """How many times `push` can run per run of `stack`'s block, or None if unknown."""
    total = 1
    block = push.parent
    while block is not None and block is not stack.parent:
        owner = block.parent_stmt
        if owner is None:
            return None
        if isinstance(owner, While):
            return None
        if isinstance(owner, RangeFor):
            if not (isinstance(owner.begin, Const) and isinstance(owner.end, Const)):
                return None
            total *= max(int(owner.end.value) - int(owner.begin.value), 0)
        block = owner.parent
    return total
