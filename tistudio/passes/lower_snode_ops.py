"""`lower_ast`'s lowering of `ti.activate`, `ti.deactivate`, `ti.is_active`, `ti.append` and
`ti.length`: a frontend `SNodeOpExpr` becomes one `SNodeOp` statement on its lowered indices,
which `lower_access` later walks down to the node's cell (docs/sparse-design.md); `ti.get_addr`
becomes the element's `GlobalPtr` and a `GetAddr` of it. A module of
its own so that `lower_ast` stays within the size of a pass."""

from __future__ import annotations

from typing import Any

from tistudio.ir import frontend as fe
from tistudio.ir.ops import SNodeOpType
from tistudio.ir.statements import GetAddr, GlobalPtr, SNodeOp
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PointerType


def expr_snode_op(lowerer: Any, e: fe.SNodeOpExpr) -> Stmt:
    indices = [lowerer.expr(i) for i in e.indices]
    if e.op is SNodeOpType.get_addr:  # ti.get_addr(x, I): the element's address as a u64
        ptr = lowerer.add(GlobalPtr(e.snode, indices, ret_type=PointerType(e.snode.dtype)), e.loc)
        return lowerer.add(GetAddr(ptr, ret_type=e.dtype), e.loc)
    return lowerer.add(SNodeOp(e.op, e.snode, indices, ret_type=e.dtype), e.loc)
