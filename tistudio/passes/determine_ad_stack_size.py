"""Size the autodiff stacks (determine_ad_stack_size).

A stack made by `auto_diff` receives one `stack push` each time the forward code computes the
value it records, so it needs as many entries as that push can run per thread: the product of
the trip counts of the serial loops around the push (inside the stack's own block), summed over
its pushes. When a loop's bounds are known only at run time we fall back to
`ti.init(ad_stack_size=N)`, else Taichi's default of 32 entries (`DEFAULT_SIZE`), and warn: a
push beyond the size overwrites the newest entry (never memory past the stack), which gives
wrong gradients. With `debug=True` such a push instead stops the kernel with an error.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import (
    AdStackAlloca,
    AdStackCount,
    AdStackPush,
    Assert,
    BinaryOp,
    Const,
    RangeFor,
    While,
    const_of,
)
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import i32, u1
from tistudio.passes.context import PassContext

DEFAULT_SIZE = 32
_UNKNOWN = (
    "autodiff: a loop here runs a number of times known only at run time, so its stack holds "
    "{size} values per thread; more iterations give wrong gradients, or an error with "
    "ti.init(debug=True) (ti.init(ad_stack_size=N))"
)
_OVERFLOW = (
    "Autodiff stack overflow: a loop here ran more iterations than the stack that records them "
    "for the gradient holds ({size} values per thread; the trip count was not known when the "
    "kernel was compiled). Raise it with ti.init(ad_stack_size=N)"
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
            for push in its_pushes if ctx.config.debug else ():
                changed |= _check_room(push, size)
        else:
            size = max(sum(counts), 1)  # type: ignore[arg-type]
        if stack.max_size != size:
            stack.max_size = size
            changed = True
    return changed


def _check_room(push: AdStackPush, size: int) -> bool:
    """Before `push`: `assert stack count < size` (unless that check is already there)."""
    parent = push.parent
    position = parent.index(push) if parent is not None else 0
    before = parent[position - 1] if parent is not None and position > 0 else None
    if isinstance(before, Assert) and before.message == _OVERFLOW.format(size=size):
        return False
    count = AdStackCount(push.stack, ret_type=i32)
    room = BinaryOp(BinaryOpType.cmp_lt, count, const_of(size, i32), ret_type=u1)
    new = [count, room.rhs, room, Assert(room, _OVERFLOW.format(size=size))]
    for stmt in new:
        stmt.loc = push.loc
    push.insert_before(*new)
    return True


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
