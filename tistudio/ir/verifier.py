"""Checks the IR's invariants; run after every pass in tests and with `debug=True`.

A failure here is a compiler bug, never a user error, so it raises `IRVerifyError` (an
`InternalCompilerError`) naming the pass that broke the invariant and the offending line of the
printed IR.
"""

from __future__ import annotations

from tistudio.ir import frontend as fe
from tistudio.ir.calls import FuncCall
from tistudio.ir.errors import InternalCompilerError
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.printer import Printer
from tistudio.ir.printing import count_values
from tistudio.ir.statements import (
    AtomicOp,
    BinaryOp,
    Break,
    Continue,
    GetElement,
    GlobalLoad,
    GlobalStore,
    If,
    LocalLoad,
    LocalStore,
    LoopIndex,
    MatrixInit,
    Offloaded,
    Print,
    Rand,
    RangeFor,
    StructFor,
    TernaryOp,
    UnaryOp,
    While,
)
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.ir.types import PointerType, PrimitiveType, TensorType, u1, u32


class IRVerifyError(InternalCompilerError):
    pass


_LOOPS = (RangeFor, StructFor, While, Offloaded)


class _Verifier:
    def __init__(self, kernel: Kernel, after: str, lowered: bool, typed: bool) -> None:
        self.kernel, self.after, self.lowered, self.typed = kernel, after, lowered, typed
        self.printer = Printer()
        self.printer.number(kernel.body)

    def fail(self, stmt: Stmt, message: str) -> None:
        where = f" after pass {self.after!r}" if self.after else ""
        raise IRVerifyError(
            f"IR verification failed{where}: {message}\n  at: {self.printer.header(stmt)}"
        )

    def block(self, block: Block, visible: set[Stmt], loops: list[Stmt]) -> None:
        inner_visible = set(visible)
        for stmt in block:
            if stmt.parent is not block:
                self.fail(stmt, "statement's parent link does not point at its block")
            for operand in stmt.operands():
                if operand not in inner_visible:
                    self.fail(
                        stmt, f"operand {self.printer.name(operand)} is not defined before use"
                    )
            self.statement(stmt, loops)
            for inner in stmt.blocks():
                if inner.parent_stmt is not stmt:
                    self.fail(stmt, "nested block's owner link is wrong")
                self.block(
                    inner, inner_visible, loops + [stmt] if isinstance(stmt, _LOOPS) else loops
                )
            inner_visible.add(stmt)

    def statement(self, stmt: Stmt, loops: list[Stmt]) -> None:
        if self.lowered and isinstance(stmt, fe.FRONTEND_STATEMENTS):
            self.fail(stmt, "frontend statement left after lower_ast")
        if isinstance(stmt, LoopIndex) and stmt.loop not in loops:
            self.fail(stmt, "loop index of a loop that does not enclose it")
        if isinstance(stmt, (Break, Continue)) and not loops:
            self.fail(stmt, f"{type(stmt).__name__.lower()} outside a loop")
        if self.typed:
            self.types(stmt)

    def types(self, stmt: Stmt) -> None:
        if (
            not stmt.is_void
            and stmt.ret_type is None
            and not isinstance(stmt, (Offloaded, FuncCall))
        ):
            self.fail(stmt, "value statement without a type")
        check = getattr(self, f"types_{type(stmt).__name__}", None)
        if check is not None:
            check(stmt)

    def types_BinaryOp(self, stmt: BinaryOp) -> None:
        rhs = stmt.rhs.ret_type
        integer_exponent = stmt.op is BinaryOpType.pow and getattr(rhs, "is_integral", False)
        if stmt.lhs.ret_type != rhs and not stmt.op.is_shift and not integer_exponent:
            self.fail(stmt, f"operand types differ: {stmt.lhs.ret_type} vs {stmt.rhs.ret_type}")
        want = stmt.lhs.ret_type
        if stmt.op.is_comparison:
            want = TensorType(want.shape, u1) if isinstance(want, TensorType) else u1
        logical = stmt.op in (BinaryOpType.logical_and, BinaryOpType.logical_or)
        if not logical and stmt.ret_type != want:
            self.fail(stmt, f"result type {stmt.ret_type}, expected {want}")

    def types_UnaryOp(self, stmt: UnaryOp) -> None:
        if stmt.op.is_cast or stmt.op is UnaryOpType.logic_not:
            return
        if stmt.ret_type != stmt.operand.ret_type:
            self.fail(
                stmt, f"{stmt.op.value} changes type {stmt.operand.ret_type} -> {stmt.ret_type}"
            )

    def types_TernaryOp(self, stmt: TernaryOp) -> None:
        if stmt.a.ret_type != stmt.b.ret_type or stmt.ret_type != stmt.a.ret_type:
            self.fail(stmt, "select branches and result must share one type")

    def types_LocalStore(self, stmt: LocalStore | GlobalStore) -> None:
        self.pointer_matches(stmt, stmt.ptr, stmt.value.ret_type)

    types_GlobalStore = types_LocalStore

    def types_LocalLoad(self, stmt: LocalLoad | GlobalLoad) -> None:
        self.pointer_matches(stmt, stmt.ptr, stmt.ret_type)

    types_GlobalLoad = types_LocalLoad

    def types_AtomicOp(self, stmt: AtomicOp) -> None:
        self.pointer_matches(stmt, stmt.dest, stmt.val.ret_type)

    def types_GetElement(self, stmt: GetElement) -> None:
        src = stmt.src.ret_type
        if not isinstance(src, TensorType) or not 0 <= stmt.index < src.num_elements:
            self.fail(stmt, f"get element [{stmt.index}] of a {src}")
        elif stmt.ret_type != src.element:
            self.fail(stmt, f"element of {src} typed {stmt.ret_type}")

    def types_MatrixInit(self, stmt: MatrixInit) -> None:
        t = stmt.ret_type
        if not isinstance(t, TensorType) or t.num_elements != len(stmt.values):
            self.fail(stmt, f"{len(stmt.values)} values do not make a {t}")
        elif any(v.ret_type != t.element for v in stmt.values):
            self.fail(stmt, f"every element of a {t} must be a {t.element}")

    def types_If(self, stmt: If) -> None:
        if stmt.cond.ret_type != u1:
            self.fail(stmt, f"if condition has type {stmt.cond.ret_type}, expected u1")

    types_Assert = types_If  # an assert's condition is a u1 too

    def types_Print(self, stmt: Print) -> None:
        if any(not isinstance(v.ret_type, PrimitiveType) for v in stmt.values):
            self.fail(stmt, "print takes scalar values only")
        elif count_values(stmt.template) != len(stmt.values):
            self.fail(stmt, f"{len(stmt.values)} values for the template {stmt.template!r}")

    def types_FuncCall(self, stmt: FuncCall) -> None:
        if any(not isinstance(a.ret_type, PrimitiveType) for a in stmt.args):
            self.fail(stmt, "a call passes scalars only (vectors and structs element by element)")

    def types_Rand(self, stmt: Rand) -> None:
        if stmt.ret_type != u32:
            self.fail(stmt, f"rand() gives a u32, not a {stmt.ret_type}")

    def pointer_matches(self, stmt: Stmt, ptr: Stmt, value_type: object) -> None:
        t = ptr.ret_type
        if not isinstance(t, PointerType) or not isinstance(t.pointee, (PrimitiveType, TensorType)):
            self.fail(stmt, f"address operand has type {t}, not a pointer to a value")
        elif t.pointee != value_type:
            self.fail(stmt, f"value type {value_type} does not match pointer {t}")


def verify(kernel: Kernel, after: str = "", lowered: bool = True, typed: bool = True) -> None:
    """Raise `IRVerifyError` if `kernel` breaks an invariant of its stage."""
    _Verifier(kernel, after, lowered, typed).block(kernel.body, set(), [])
