"""Frontend IR: what the Python-AST transformer builds, before `lower_ast` flattens it.

Statements here hold *expression trees* (`a + b * x[i]`) instead of SSA values, and variables are
named identifiers (`@tmp3`), as in Taichi's "Initial IR". Expressions get their type when they are
built, so a type error is reported at the user's line by the frontend. `lower_ast` turns each
tree into a sequence of mid-end statements and each variable into an `Alloca`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tistudio.ir.calls import Callee
from tistudio.ir.ops import (
    AtomicOpType,
    BinaryOpType,
    SNodeOpType,
    TernaryOpType,
    UnaryOpType,
)
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Block, SourceLoc, Stmt
from tistudio.ir.types import PrimitiveType, TensorType


def _block() -> Block:
    return Block()


# --- expressions --------------------------------------------------------------------------


@dataclass(eq=False)
class Expr:
    """A typed expression tree node. `dtype` is the value's primitive type."""

    dtype: PrimitiveType = field(kw_only=True)
    loc: SourceLoc | None = field(default=None, kw_only=True, repr=False)

    def children(self) -> list[Expr]:
        return []


@dataclass(eq=False)
class Identifier:
    """A frontend variable; printed `@tmpN`. Its type is fixed at its first assignment."""

    id: int
    dtype: PrimitiveType | TensorType
    name: str = ""

    def __str__(self) -> str:
        return f"@tmp{self.id}"


@dataclass(eq=False)
class ConstExpr(Expr):
    value: int | float | bool

    def __str__(self) -> str:
        return f"({self.dtype} {self.value})"


@dataclass(eq=False)
class ArgLoadExpr(Expr):
    arg_id: int

    def __str__(self) -> str:
        return f"argload[{self.arg_id}] (dt={self.dtype})"


@dataclass(eq=False)
class IdExpr(Expr):
    var: Identifier

    def __str__(self) -> str:
        return str(self.var)


@dataclass(eq=False)
class LoopVarExpr(Expr):
    """Index `index` of the frontend loop that defines it (a loop variable, read-only)."""

    loop: FrontendFor
    index: int

    def __str__(self) -> str:
        names = self.loop.loop_vars
        if len(names) == len(self.loop.loop_var_exprs):
            return str(names[self.index])
        return f"{names[0]}[{self.index}]" if names else f"@loop[{self.index}]"


@dataclass(eq=False)
class UnaryOpExpr(Expr):
    op: UnaryOpType
    operand: Expr

    def children(self) -> list[Expr]:
        return [self.operand]

    def __str__(self) -> str:
        if self.op.is_cast:
            return f"({self.op.value}<{self.dtype}> {self.operand})"
        return f"({self.op.value} {self.operand})"


@dataclass(eq=False)
class BinaryOpExpr(Expr):
    op: BinaryOpType
    lhs: Expr
    rhs: Expr

    def children(self) -> list[Expr]:
        return [self.lhs, self.rhs]

    def __str__(self) -> str:
        return f"({self.op.value} {self.lhs} {self.rhs})"


@dataclass(eq=False)
class TernaryOpExpr(Expr):
    op: TernaryOpType
    cond: Expr
    a: Expr
    b: Expr

    def children(self) -> list[Expr]:
        return [self.cond, self.a, self.b]

    def __str__(self) -> str:
        return f"{self.op.value}({self.cond}, {self.a}, {self.b})"


@dataclass(eq=False)
class LogicalExpr(Expr):
    """Short-circuit `and`/`or` (Python semantics on `u1`-converted operands)."""

    op: BinaryOpType  # logical_and | logical_or
    lhs: Expr
    rhs: Expr

    def children(self) -> list[Expr]:
        return [self.lhs, self.rhs]

    def __str__(self) -> str:
        sym = "&&" if self.op is BinaryOpType.logical_and else "||"
        return f"({self.lhs} {sym} {self.rhs})"


@dataclass(eq=False)
class FieldIndexExpr(Expr):
    """Element `indices` of the field placed at `snode` (an lvalue)."""

    snode: SNode
    indices: list[Expr]

    def children(self) -> list[Expr]:
        return list(self.indices)

    def __str__(self) -> str:
        return f"{self.snode.ref()}[{', '.join(map(str, self.indices))}]"


@dataclass(eq=False)
class ExternalIndexExpr(Expr):
    """Element `indices` of ndarray parameter `arg_id` (an lvalue)."""

    arg_id: int
    indices: list[Expr]

    def children(self) -> list[Expr]:
        return list(self.indices)

    def __str__(self) -> str:
        return f"arr{self.arg_id}[{', '.join(map(str, self.indices))}]"


@dataclass(eq=False)
class ExternalShapeExpr(Expr):
    arg_id: int
    axis: int

    def __str__(self) -> str:
        return f"arr{self.arg_id}.shape[{self.axis}]"


@dataclass(eq=False)
class RandExpr(Expr):
    """`ti.random`'s source of bits: a new uniform `u32` each time it is evaluated."""

    def __str__(self) -> str:
        return "rand()"


@dataclass(eq=False)
class FuncCallExpr(Expr):
    """A call of IR function `func` (`ir/calls.py`); `dtype` is None for a void function."""

    func: Callee
    args: list[Expr]

    def children(self) -> list[Expr]:
        return list(self.args)

    def __str__(self) -> str:
        return f"call {self.func}({', '.join(str(a) for a in self.args)})"


@dataclass(eq=False)
class SNodeOpExpr(Expr):
    """`ti.activate(node, I)`, `ti.is_active`, ... (`op`) on the cell `indices` of the sparse
    `node` (ir/sparse.py); `dtype` is None for activate and deactivate."""

    op: SNodeOpType
    snode: SNode
    indices: list[Expr]

    def children(self) -> list[Expr]:
        return list(self.indices)

    def __str__(self) -> str:
        return f"{self.op.value}({self.snode.ref()}, [{', '.join(map(str, self.indices))}])"


@dataclass(eq=False)
class AtomicOpExpr(Expr):
    """`ti.atomic_<op>(dest, val)`; its value is the old content of `dest`."""

    op: AtomicOpType
    dest: Expr
    val: Expr

    def children(self) -> list[Expr]:
        return [self.dest, self.val]

    def __str__(self) -> str:
        return f"atomic_{self.op.value}({self.dest}, {self.val})"


@dataclass(eq=False)
class MatrixExpr(Expr):
    """A vector or matrix value built from scalar expressions (row-major); `dtype` is a
    `TensorType`. Only ever stored into a tensor variable; `scalarize` takes it apart."""

    elements: list[Expr]

    def children(self) -> list[Expr]:
        return list(self.elements)

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.elements)) + "]"


@dataclass(eq=False)
class GetElementExpr(Expr):
    """Element `index` (flat, row-major) of the tensor-valued expression `src`."""

    src: Expr
    index: int

    def children(self) -> list[Expr]:
        return [self.src]

    def __str__(self) -> str:
        return f"{self.src}[{self.index}]"


@dataclass(eq=False)
class MatrixPtrExpr(Expr):
    """Element `offset` (flat, maybe computed at run time) of a tensor variable: an lvalue.
    In debug mode `check` asserts that run-time indices lie inside the shape; it is lowered
    where the access is, so the access guarded by `i < n and v[i] > 0` is checked only if run."""

    var: IdExpr
    offset: Expr
    check: FrontendAssert | None = None

    def children(self) -> list[Expr]:
        return [self.var, self.offset]

    def __str__(self) -> str:
        return f"{self.var}[{self.offset}]"


@dataclass(eq=False)
class SimtExpr(Expr):
    """`ti.simt.block.sync()` ("sync", no value: its `dtype` is unused), `thread_idx()` ("local")
    or `global_thread_idx()` ("global"), lowered to `ir/simt.py`'s statements."""

    kind: str

    def __str__(self) -> str:
        return {"sync": "block_sync()", "local": "thread_idx()"}.get(
            self.kind, "global_thread_idx()"
        )


@dataclass(eq=False)
class SharedIndexExpr(Expr):
    """Element `index` (flattened, row-major) of shared array `array` (an lvalue)."""

    array: FrontendSharedArray
    index: Expr

    def children(self) -> list[Expr]:
        return [self.index]

    def __str__(self) -> str:
        return f"{self.array.name}[{self.index}]"


LVALUE_EXPRS = (IdExpr, FieldIndexExpr, ExternalIndexExpr, MatrixPtrExpr, SharedIndexExpr)


# --- statements ---------------------------------------------------------------------------


@dataclass(eq=False)
class FrontendAlloca(Stmt):
    """Declare variable `var` (and give it the value of `init`, if any)."""

    var: Identifier
    init: Expr | None = None

    syntax: ClassVar = "alloca {var}{init_text}"

    def init_text(self) -> str:
        return f" = {self.init}" if self.init is not None else ""

    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendAssign(Stmt):
    """`lhs = rhs` where `lhs` is a variable, a field element or an ndarray element."""

    lhs: Expr
    rhs: Expr

    syntax: ClassVar = "{lhs} = {rhs}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendExprStmt(Stmt):
    """An expression evaluated for its effect (an atomic whose result is unused)."""

    expr: Expr

    syntax: ClassVar = "eval {expr}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendIf(Stmt):
    cond: Expr
    true_block: Block = field(default_factory=_block)
    false_block: Block = field(default_factory=_block)

    block_fields: ClassVar = (("true_block", ""), ("false_block", "else"))
    syntax: ClassVar = "if {cond}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendSharedArray(Stmt):
    """`ti.simt.block.SharedArray(shape, dtype)`: a workgroup-shared array named `name`."""

    name: str
    shape: tuple[int, ...]
    dtype: PrimitiveType

    syntax: ClassVar = "shared array {name}{shape}: {dtype}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendFor(Stmt):
    """A range-for (`begin`, `end`), a struct-for (`snode`) or an `ndrange` (`ranges`).

    `loop_vars` are the user's loop variables; `parallel` marks a top-level loop that the
    offload pass may run in parallel. For an `ndrange`, `ranges` lists `(begin, end)` per axis and
    the loop runs over the flattened product.
    """

    loop_vars: list[Identifier]
    begin: Expr | None = None
    end: Expr | None = None
    snode: SNode | None = None
    ranges: list[tuple[Expr, Expr]] = field(default_factory=list)
    body: Block = field(default_factory=_block)
    parallel: bool = False
    loop_var_exprs: list[LoopVarExpr] = field(default_factory=list)
    block_dim: int = 0  # `ti.loop_config(block_dim=...)`; 0: the back end chooses

    block_fields: ClassVar = (("body", ""),)
    syntax: ClassVar = "for {loop_vars} in {header}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True

    def header(self) -> str:
        if self.snode is not None:
            return f"struct {self.snode.ref()}"
        if self.ranges:
            return "ndrange(" + ", ".join(f"({b}, {e})" for b, e in self.ranges) + ")"
        return f"range({self.begin}, {self.end})"


@dataclass(eq=False)
class FrontendWhile(Stmt):
    cond: Expr
    body: Block = field(default_factory=_block)

    block_fields: ClassVar = (("body", ""),)
    syntax: ClassVar = "while {cond}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendBreak(Stmt):
    syntax: ClassVar = "break"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendContinue(Stmt):
    syntax: ClassVar = "continue"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendReturn(Stmt):
    values: list[Expr]

    syntax: ClassVar = "return {values}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendPrint(Stmt):
    """`print(...)`: `template` (see `ir/printing.py`) filled with the scalar `args`."""

    template: str
    args: list[Expr] = field(default_factory=list)

    syntax: ClassVar = "print {template} [{args}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class FrontendAssert(Stmt):
    """`assert cond, "message %d" % x` in debug mode: `message` is a `%`-style template that
    the values of `args` fill in when `cond` is false."""

    cond: Expr
    message: str
    args: list[Expr] = field(default_factory=list)

    syntax: ClassVar = "assert {cond}, {message}, args [{args}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


FRONTEND_STATEMENTS = (
    FrontendAlloca,
    FrontendAssign,
    FrontendExprStmt,
    FrontendIf,
    FrontendFor,
    FrontendWhile,
    FrontendBreak,
    FrontendContinue,
    FrontendReturn,
    FrontendPrint,
)
