"""`lower_ast`'s part for `ti.simt.block`: shared arrays, barriers, thread indices, block_dim.

A `ti.simt.block.SharedArray` becomes a `shared array` statement, each element read or written
a `shared load` or `shared store` of a flat index; `sync()` becomes a `block barrier`, and
`thread_idx()` a `thread index` (statements of `ir/simt.py`). `ti.loop_config(block_dim=B)`
travels on the parallel `RangeFor` (and `offload` puts it on the task). An atomic update of a
shared element (`s[0] += v`) is a `shared atomic`, on i32 and u32 only: WGSL's workgroup
atomics (the back end then makes the whole array `atomic<T>`).
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.ir import frontend as fe
from tistudio.ir.ops import AtomicOpType, UnaryOpType
from tistudio.ir.statements import (
    BlockBarrier,
    RangeFor,
    SharedArray,
    SharedAtomic,
    SharedLoad,
    SharedStore,
    ThreadIdx,
    UnaryOp,
)
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PointerType, i32, u32


class SimtLowering:
    """Methods of `lower_ast._Lowerer` (its base class) for `ti.simt.block`."""

    vars: dict[Any, Stmt]
    out: list[Any]

    def lower_FrontendSharedArray(self, s: fe.FrontendSharedArray) -> None:
        array = SharedArray(math.prod(s.shape), ret_type=PointerType(s.dtype))
        self.vars[s] = self.add(array, s.loc)

    def lower_FrontendAssign(self, s: fe.FrontendAssign) -> None:
        if not isinstance(s.lhs, fe.SharedIndexExpr):
            self.lower_assign(s)
            return
        value = self.expr(s.rhs)
        index = self.expr(s.lhs.index)
        if value.ret_type != s.lhs.dtype:  # stored as the array's type, as Taichi does
            cast = UnaryOp(UnaryOpType.cast_value, value, ret_type=s.lhs.dtype)
            value = self.add(cast, s.loc)
        self.add(SharedStore(self.vars[s.lhs.array], index, value), s.loc)

    def lower_FrontendFor(self, s: fe.FrontendFor) -> None:
        self.lower_loop(s)
        loop = self.out[-1].stmts[-1]  # the loop is the last statement its lowering added
        if isinstance(loop, RangeFor):
            loop.block_dim = s.block_dim

    def expr_SharedIndexExpr(self, e: fe.SharedIndexExpr) -> Stmt:
        index = self.expr(e.index)
        load = SharedLoad(self.vars[e.array], index, ret_type=e.dtype)
        return self.add(load, e.loc)

    def expr_SimtExpr(self, e: fe.SimtExpr) -> Stmt:
        stmt = BlockBarrier() if e.kind == "sync" else ThreadIdx(e.kind, ret_type=i32)
        return self.add(stmt, e.loc)

    def expr_AtomicOpExpr(self, e: fe.AtomicOpExpr) -> Stmt:
        if not isinstance(e.dest, fe.SharedIndexExpr):
            return self.atomic(e)
        if e.dest.dtype not in (i32, u32) or e.op is AtomicOpType.mul:
            raise TaichiSyntaxError(
                f"an atomic {e.op.value} (+=, ti.atomic_add, ...) of a {e.dest.dtype} "
                "ti.simt.block.SharedArray element is not supported: WGSL has workgroup "
                "atomics on i32 and u32 only (add, sub, min, max, and, or, xor); write each "
                "element from one invocation and combine after ti.simt.block.sync()",
                e.loc,
            )
        val = self.expr(e.val)
        if val.ret_type != e.dest.dtype:
            val = self.add(UnaryOp(UnaryOpType.cast_value, val, ret_type=e.dest.dtype), e.loc)
        index = self.expr(e.dest.index)
        atomic = SharedAtomic(e.op, self.vars[e.dest.array], index, val, ret_type=e.dest.dtype)
        return self.add(atomic, e.loc)
