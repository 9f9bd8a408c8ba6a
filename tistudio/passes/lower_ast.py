"""Lower the frontend AST (lower_ast).

The frontend builds statements holding whole expression trees, like `x[i] = a + b * 2`. This pass
flattens every tree into one statement per operation, in evaluation order, so that each
intermediate value gets a name (`$3 = mul $2 $1`): the SSA form every later pass works on.
Variables become `alloca`s read and written by `local load`/`local store`, loops become
`RangeFor`/`StructFor` with `loop index` statements, and `and`/`or` short-circuit through an `if`.
Types come from the frontend; `type_check` inserts the casts they imply.
"""

from __future__ import annotations

from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.statements import (
    Alloca,
    ArgLoad,
    Assert,
    AtomicOp,
    BinaryOp,
    Break,
    Const,
    Continue,
    ExternalPtr,
    ExternalTensorShape,
    FuncCall,
    GetElement,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    If,
    LocalLoad,
    LocalStore,
    LoopIndex,
    MatrixInit,
    MatrixPtr,
    Print,
    Rand,
    RangeFor,
    Return,
    StructFor,
    TernaryOp,
    UnaryOp,
    While,
)
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.ir.types import PointerType, i32, u1
from tistudio.passes import lower_simt, lower_snode_ops, ndrange
from tistudio.passes.context import PassContext


class _Lowerer(lower_simt.SimtLowering):
    def __init__(self, arch: str = "cpu") -> None:
        self.arch = arch  # the shape of ndrange loops depends on it (see passes/ndrange.py)
        self.vars: dict[fe.Identifier | fe.FrontendSharedArray, Stmt] = {}
        self.loop_vars: dict[int, Stmt] = {}  # id(LoopVarExpr) -> index value
        self.out: list[Block] = []
        # id(Expr) -> (Expr, its value) within one frontend statement: the frontend shares
        # subtrees (`a % b` is `a - b * (a // b)`), and a shared subtree is evaluated once
        self.lowered: dict[int, tuple[fe.Expr, Stmt]] = {}

    def add(self, stmt: Stmt, loc: object) -> Stmt:
        stmt.loc = loc  # type: ignore[assignment]
        return self.out[-1].append(stmt)

    def lower_block(self, source: Block) -> Block:
        block = Block()
        self.out.append(block)
        for stmt in source:
            self.lower(stmt)
        self.out.pop()
        return block

    def lower(self, stmt: fe.Stmt) -> None:
        self.lowered = {}
        getattr(self, f"lower_{type(stmt).__name__}")(stmt)

    # --- statements ------------------------------------------------------------------------

    def lower_FrontendAlloca(self, s: fe.FrontendAlloca) -> None:
        alloca = self.add(Alloca(ret_type=PointerType(s.var.dtype)), s.loc)
        self.vars[s.var] = alloca
        if s.init is not None:
            self.add(LocalStore(alloca, self.expr(s.init)), s.loc)

    def lower_assign(self, s: fe.FrontendAssign) -> None:  # via SimtLowering.lower_FrontendAssign
        value = self.expr(s.rhs)
        ptr = self.address(s.lhs)
        store = LocalStore if isinstance(s.lhs, (fe.IdExpr, fe.MatrixPtrExpr)) else GlobalStore
        self.add(store(ptr, value), s.loc)

    def lower_FrontendExprStmt(self, s: fe.FrontendExprStmt) -> None:
        self.expr(s.expr)

    def lower_FrontendIf(self, s: fe.FrontendIf) -> None:
        stmt = If(self.expr(s.cond))
        stmt.set_block("true_block", self.lower_block(s.true_block))
        stmt.set_block("false_block", self.lower_block(s.false_block))
        self.add(stmt, s.loc)

    def lower_FrontendWhile(self, s: fe.FrontendWhile) -> None:
        loop = self.add(While(), s.loc)
        self.out.append(loop.body)
        cond = self.expr(s.cond)
        stop = self.add(UnaryOp(UnaryOpType.logic_not, cond, ret_type=u1), s.loc)
        exit_if = self.add(If(stop), s.loc)
        exit_if.true_block.append(Break(loc=s.loc))
        for stmt in s.body:
            self.lower(stmt)
        self.out.pop()

    def lower_jump(self, s: fe.FrontendBreak | fe.FrontendContinue) -> None:
        self.add(Break() if isinstance(s, fe.FrontendBreak) else Continue(), s.loc)

    lower_FrontendBreak = lower_FrontendContinue = lower_jump

    def lower_FrontendReturn(self, s: fe.FrontendReturn) -> None:
        self.add(Return([self.expr(v) for v in s.values]), s.loc)

    def lower_FrontendAssert(self, s: fe.FrontendAssert) -> None:
        cond = self.expr(s.cond)
        self.add(Assert(cond, s.message, [self.expr(a) for a in s.args]), s.loc)

    def lower_FrontendPrint(self, s: fe.FrontendPrint) -> None:
        self.add(Print(s.template, [self.expr(a) for a in s.args]), s.loc)

    def lower_loop(self, s: fe.FrontendFor) -> None:  # via SimtLowering.lower_FrontendFor
        depth = len(self.out)
        if s.snode is not None:
            loop: Stmt = self.add(StructFor(s.snode.parent if s.snode.dtype else s.snode), s.loc)
            for k, var in enumerate(s.loop_var_exprs):
                self.loop_vars[id(var)] = LoopIndex(loop, k, ret_type=i32, loc=s.loc)
            self.out.append(loop.body)
            for var in s.loop_var_exprs:
                self.add(self.loop_vars[id(var)], s.loc)
        elif s.ranges:
            loop = ndrange.lower(self, s)  # its loops; one open block per loop on self.out
        else:
            begin, end = self.expr(s.begin), self.expr(s.end)
            loop = self.add(RangeFor(begin, end, serialize=not s.parallel), s.loc)
            self.out.append(loop.body)
            self.loop_vars[id(s.loop_var_exprs[0])] = self.add(
                LoopIndex(loop, 0, ret_type=i32), s.loc
            )
        for stmt in s.body:
            self.lower(stmt)
        del self.out[depth:]

    # --- expressions -----------------------------------------------------------------------

    def expr(self, e: fe.Expr) -> Stmt:
        """The value of `e`, lowered once per statement even where the tree shares `e`
        (reused only where the earlier value is visible: in a block still open)."""
        known = self.lowered.get(id(e))
        if known is not None and known[0] is e and any(known[1].parent is b for b in self.out):
            return known[1]
        value = getattr(self, f"expr_{type(e).__name__}")(e)
        self.lowered[id(e)] = (e, value)
        return value

    def expr_ConstExpr(self, e: fe.ConstExpr) -> Stmt:
        return self.add(Const(e.value, ret_type=e.dtype), e.loc)

    def expr_ArgLoadExpr(self, e: fe.ArgLoadExpr) -> Stmt:
        return self.add(ArgLoad(e.arg_id, ret_type=e.dtype), e.loc)

    def expr_IdExpr(self, e: fe.IdExpr) -> Stmt:
        return self.add(LocalLoad(self.vars[e.var], ret_type=e.var.dtype), e.loc)

    def expr_LoopVarExpr(self, e: fe.LoopVarExpr) -> Stmt:
        return self.loop_vars[id(e)]

    def expr_UnaryOpExpr(self, e: fe.UnaryOpExpr) -> Stmt:
        return self.add(UnaryOp(e.op, self.expr(e.operand), ret_type=e.dtype), e.loc)

    def expr_BinaryOpExpr(self, e: fe.BinaryOpExpr) -> Stmt:
        lhs, rhs = self.expr(e.lhs), self.expr(e.rhs)
        return self.add(BinaryOp(e.op, lhs, rhs, ret_type=e.dtype), e.loc)

    def expr_TernaryOpExpr(self, e: fe.TernaryOpExpr) -> Stmt:
        cond, a, b = self.expr(e.cond), self.expr(e.a), self.expr(e.b)
        return self.add(TernaryOp(e.op, cond, a, b, ret_type=e.dtype), e.loc)

    def expr_LogicalExpr(self, e: fe.LogicalExpr) -> Stmt:
        """`a and b`: result = a; if a: result = b  (`or`: if not a: result = b)."""
        result = self.add(Alloca(ret_type=PointerType(u1)), e.loc)
        lhs = self.expr(e.lhs)
        self.add(LocalStore(result, lhs), e.loc)
        cond = lhs
        if e.op is BinaryOpType.logical_or:
            cond = self.add(UnaryOp(UnaryOpType.logic_not, lhs, ret_type=u1), e.loc)
        branch = self.add(If(cond), e.loc)
        self.out.append(branch.true_block)
        self.add(LocalStore(result, self.expr(e.rhs)), e.loc)
        self.out.pop()
        return self.add(LocalLoad(result, ret_type=u1), e.loc)

    def expr_MatrixExpr(self, e: fe.MatrixExpr) -> Stmt:
        values = [self.expr(v) for v in e.elements]
        return self.add(MatrixInit(values, ret_type=e.dtype), e.loc)

    def expr_GetElementExpr(self, e: fe.GetElementExpr) -> Stmt:
        return self.add(GetElement(self.expr(e.src), e.index, ret_type=e.dtype), e.loc)

    def expr_MatrixPtrExpr(self, e: fe.MatrixPtrExpr) -> Stmt:
        return self.add(LocalLoad(self.address(e), ret_type=e.dtype), e.loc)

    def expr_FieldIndexExpr(self, e: fe.FieldIndexExpr | fe.ExternalIndexExpr) -> Stmt:
        return self.add(GlobalLoad(self.address(e), ret_type=e.dtype), e.loc)

    expr_ExternalIndexExpr = expr_FieldIndexExpr  # a field's element or an ndarray's
    expr_SNodeOpExpr = lower_snode_ops.expr_snode_op  # ti.activate, ti.is_active, ...

    def expr_ExternalShapeExpr(self, e: fe.ExternalShapeExpr) -> Stmt:
        return self.add(ExternalTensorShape(e.arg_id, e.axis, ret_type=i32), e.loc)

    def expr_RandExpr(self, e: fe.RandExpr) -> Stmt:
        return self.add(Rand(ret_type=e.dtype), e.loc)

    def expr_FuncCallExpr(self, e: fe.FuncCallExpr) -> Stmt:
        return self.add(FuncCall(e.func, [self.expr(a) for a in e.args], ret_type=e.dtype), e.loc)

    def atomic(self, e: fe.AtomicOpExpr) -> Stmt:  # via SimtLowering.expr_AtomicOpExpr
        val = self.expr(e.val)
        dest = self.address(e.dest)
        return self.add(AtomicOp(e.op, dest, val, ret_type=e.dtype), e.loc)

    def address(self, e: fe.Expr) -> Stmt:
        """The pointer an lvalue expression denotes."""
        if isinstance(e, fe.IdExpr):
            return self.vars[e.var]
        if isinstance(e, fe.MatrixPtrExpr):
            if e.check is not None:  # debug mode: the indices' bounds, where the access runs
                self.lower_FrontendAssert(e.check)
            offset = self.expr(e.offset)
            return self.add(
                MatrixPtr(self.vars[e.var.var], offset, ret_type=PointerType(e.dtype)), e.loc
            )
        indices = [self.expr(i) for i in e.indices]  # type: ignore[attr-defined]
        if isinstance(e, fe.FieldIndexExpr):
            return self.add(GlobalPtr(e.snode, indices, ret_type=PointerType(e.dtype)), e.loc)
        assert isinstance(e, fe.ExternalIndexExpr)
        return self.add(ExternalPtr(e.arg_id, indices, ret_type=PointerType(e.dtype)), e.loc)


def run(kernel: Kernel, ctx: PassContext) -> bool:
    lowered = _Lowerer(ctx.config.arch).lower_block(kernel.body)
    kernel.body.take_all()
    kernel.body.extend(lowered.take_all())
    return True
