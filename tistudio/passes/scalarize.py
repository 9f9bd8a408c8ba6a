"""Scalarize vectors and matrices (scalarize).

A `[Tensor (3) f32]` value is three `f32` values travelling together. This pass splits every
tensor into its elements: a tensor variable (`alloca`) becomes one variable per element, a
`[$1, $2, $3]` value is just its three elements, `get element $v[1]` is the second of them, and an
element chosen at run time (`shift ptr`) becomes a `select` chain for reads and a chain of `if`s
for writes (an atomic there: the `select` chain for its old value, and one `if` per element), so
an index outside the vector reads element 0 and writes nothing (debug mode checks it first).
Afterwards the kernel holds scalars only, which is all the back ends understand.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType, TernaryOpType
from tistudio.ir.statements import (
    Alloca,
    AtomicOp,
    BinaryOp,
    Const,
    GetElement,
    If,
    LocalLoad,
    LocalStore,
    MatrixInit,
    MatrixPtr,
    TernaryOp,
    UnaryOp,
)
from tistudio.ir.stmt import Kernel, Stmt, walk
from tistudio.ir.types import PointerType, TensorType, u1
from tistudio.passes.context import PassContext


def _is_tensor(t: object) -> bool:
    return isinstance(t, TensorType)


def _is_tensor_ptr(t: object) -> bool:
    return isinstance(t, PointerType) and isinstance(t.pointee, TensorType)


class _LazyLoad(list):
    """The elements of a tensor `local load`, each loaded (just before it) on first use."""

    def __init__(self, load: LocalLoad, allocas: list[Stmt]) -> None:
        super().__init__([None] * len(allocas))
        self.load, self.allocas = load, allocas

    def __getitem__(self, k: int) -> Stmt:  # type: ignore[override]
        if super().__getitem__(k) is None:
            elem = self.load.ret_type.element  # type: ignore[union-attr]
            scalar = LocalLoad(self.allocas[k], ret_type=elem, loc=self.load.loc)
            self.load.insert_before(scalar)
            self[k] = scalar
        return super().__getitem__(k)

    def __iter__(self):  # noqa: ANN204
        return iter([self[k] for k in range(len(self))])


class _Scalarizer:
    def __init__(self) -> None:
        self.elements: dict[Stmt, list[Stmt]] = {}  # tensor value or tensor alloca -> scalars
        self.replace: dict[Stmt, Stmt] = {}  # statement -> the scalar that stands for it
        self.dead: list[Stmt] = []

    def visit(self, stmt: Stmt) -> None:
        for op in stmt.operands():
            if op in self.replace:
                stmt.replace_operand(op, self.replace[op])
        method = getattr(self, f"visit_{type(stmt).__name__}", None)
        if method is not None:
            method(stmt)

    def done(self, stmt: Stmt, elements: list[Stmt] | None = None) -> None:
        if elements is not None:
            self.elements[stmt] = elements
        self.dead.append(stmt)

    def visit_Alloca(self, stmt: Alloca) -> None:
        if _is_tensor_ptr(stmt.ret_type):
            t = stmt.ret_type.pointee  # type: ignore[union-attr]
            scalars = [
                Alloca(ret_type=PointerType(t.element), loc=stmt.loc) for _ in range(t.num_elements)
            ]
            stmt.insert_before(*scalars)
            self.done(stmt, scalars)

    def visit_MatrixInit(self, stmt: MatrixInit) -> None:
        self.done(stmt, list(stmt.values))

    def visit_GetElement(self, stmt: GetElement) -> None:
        self.replace[stmt] = self.elements[stmt.src][stmt.index]
        self.dead.append(stmt)

    def visit_LocalLoad(self, stmt: LocalLoad) -> None:
        if stmt.ptr in self.elements:
            self.done(stmt, _LazyLoad(stmt, self.elements[stmt.ptr]))
        elif isinstance(stmt.ptr, MatrixPtr):  # an element picked at run time
            self.replace[stmt] = self.select_chain(stmt, stmt.ptr)
            self.dead.append(stmt)

    def visit_LocalStore(self, stmt: LocalStore) -> None:
        if stmt.ptr in self.elements:
            pairs = zip(self.elements[stmt.ptr], self.elements[stmt.value])
            stores = [LocalStore(a, v, loc=stmt.loc) for a, v in pairs]
            stmt.insert_before(*stores)
            self.dead.append(stmt)
        elif isinstance(stmt.ptr, MatrixPtr):
            for k, alloca in enumerate(self.elements[stmt.ptr.origin]):
                branch = If(self.offset_is(stmt, stmt.ptr.offset, k), loc=stmt.loc)
                branch.true_block.append(LocalStore(alloca, stmt.value, loc=stmt.loc))
                stmt.insert_before(branch)
            self.dead.append(stmt)

    def visit_MatrixPtr(self, stmt: MatrixPtr) -> None:
        scalars = self.elements[stmt.origin]
        if isinstance(stmt.offset, Const):
            self.replace[stmt] = scalars[int(stmt.offset.value)]
        self.dead.append(stmt)  # a run-time offset is resolved by its loads and stores

    def visit_BinaryOp(self, stmt: BinaryOp) -> None:
        if _is_tensor(stmt.ret_type):
            elem = stmt.ret_type.element  # type: ignore[union-attr]
            pairs = zip(self.elements[stmt.lhs], self.elements[stmt.rhs])
            ops = [BinaryOp(stmt.op, a, b, ret_type=elem, loc=stmt.loc) for a, b in pairs]
            stmt.insert_before(*ops)
            self.done(stmt, ops)

    def visit_UnaryOp(self, stmt: UnaryOp) -> None:
        if _is_tensor(stmt.ret_type):
            elem = stmt.ret_type.element  # type: ignore[union-attr]
            ops = [
                UnaryOp(stmt.op, a, ret_type=elem, loc=stmt.loc)
                for a in self.elements[stmt.operand]
            ]
            stmt.insert_before(*ops)
            self.done(stmt, ops)

    def visit_AtomicOp(self, stmt: AtomicOp) -> None:
        if isinstance(stmt.dest, MatrixPtr):  # `ti.atomic_add(v[k], x)`: old value, then updates
            ptr = stmt.dest
            self.replace[stmt] = self.select_chain(stmt, ptr)
            for k, alloca in enumerate(self.elements[ptr.origin]):
                branch = If(self.offset_is(stmt, ptr.offset, k), loc=stmt.loc)
                update = AtomicOp(stmt.op, alloca, stmt.val, ret_type=stmt.ret_type, loc=stmt.loc)
                branch.true_block.append(update)  # a local: demote_atomics makes it load+op+store
                stmt.insert_before(branch)
            self.dead.append(stmt)

    def offset_is(self, user: Stmt, offset: Stmt, k: int) -> Stmt:
        const = Const(k, ret_type=offset.ret_type, loc=user.loc)
        test = BinaryOp(BinaryOpType.cmp_eq, offset, const, ret_type=u1, loc=user.loc)
        user.insert_before(const, test)
        return test

    def select_chain(self, load: LocalLoad | AtomicOp, ptr: MatrixPtr) -> Stmt:
        """`v[i]` for a run-time `i`: select(i == n-1, v[n-1], ... select(i == 1, v[1], v[0]))."""
        scalars = self.elements[ptr.origin]
        loads = [LocalLoad(a, ret_type=load.ret_type, loc=load.loc) for a in scalars]
        load.insert_before(*loads)
        value: Stmt = loads[0]
        for k in range(1, len(loads)):
            test = self.offset_is(load, ptr.offset, k)
            value = TernaryOp(
                TernaryOpType.select, test, loads[k], value, ret_type=load.ret_type, loc=load.loc
            )
            load.insert_before(value)
        return value


def run(kernel: Kernel, ctx: PassContext) -> bool:
    worker = _Scalarizer()
    for stmt in walk(kernel.body):
        worker.visit(stmt)
    for stmt in reversed(worker.dead):
        stmt.erase()
    return bool(worker.dead)
