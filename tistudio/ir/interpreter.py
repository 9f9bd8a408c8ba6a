"""A reference interpreter of the IR, in plain Python: the oracle for differential fuzzing.

It runs the final IR that back ends receive (offloaded tasks, SNode pointer arithmetic, scalar
statements; see docs/compiler-contract.md), and also the typed IR from the start of the pipeline
(right after `type_check`/`scalarize`: `GlobalPtr`, `StructFor`, `floordiv`, integer `pow`), so the
interpreter on early IR, the interpreter on final IR and a back end can be compared three ways.

Memory is NumPy byte buffers: each SNode tree is one buffer, and a pointer is a `(buffer, byte
offset)` pair, so `GetRoot`, `SNodeLookup` and `GetCh` are the same additions the back ends do.
Global temporaries and each task's thread-local slots are buffers too; local variables are
`_Local` cells. Range-for tasks run serially, with their TLS prologue before and epilogue after.
Every operator's value comes from `interpreter_ops`, which follows `semantics.py`.
"""

from __future__ import annotations

import itertools
import struct
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from tistudio.ir import interpreter_ops as ops
from tistudio.ir import random as rng
from tistudio.ir import sparse
from tistudio.ir import statements as s
from tistudio.ir.assertions import AssertInfo, TaichiAssertionError, format_failure
from tistudio.ir.ops import SNodeOpType, TaskType
from tistudio.ir.printing import PrintFormat, format_line
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Block, Kernel, Stmt, pointee
from tistudio.ir.types import PointerType, PrimitiveType, i32

Value = ops.Value

_FORMATS = {
    "i8": "b",
    "i16": "h",
    "i32": "i",
    "i64": "q",
    "u8": "B",
    "u16": "H",
    "u32": "I",
    "u64": "Q",
    "u1": "?",
    "f16": "e",
    "f32": "f",
    "f64": "d",
}


class InterpreterError(Exception):
    """The IR did something the interpreter cannot give a meaning to (e.g. out-of-bounds)."""


class _Local:
    """The storage of one `Alloca`: a mutable local variable."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Value = 0


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, values: list[Value]) -> None:
        self.values = values


Pointer = tuple[np.ndarray, int] | _Local


def load(ptr: Pointer, t: PrimitiveType) -> Value:
    """Read a value of type `t` at `ptr`."""
    if isinstance(ptr, _Local):
        return ptr.value
    buffer, offset = ptr
    _check_bounds(buffer, offset, t)
    return struct.unpack_from("=" + _FORMATS[t.name], buffer, offset)[0]


def store(ptr: Pointer, t: PrimitiveType, value: Value) -> None:
    """Write `value` (already of type `t`) at `ptr`."""
    if isinstance(ptr, _Local):
        ptr.value = value
        return
    buffer, offset = ptr
    _check_bounds(buffer, offset, t)
    struct.pack_into("=" + _FORMATS[t.name], buffer, offset, value)


def _check_bounds(buffer: np.ndarray, offset: int, t: PrimitiveType) -> None:
    if offset < 0 or offset + t.nbytes > buffer.nbytes:
        raise InterpreterError(f"access of {t.nbytes} B at offset {offset} of {buffer.nbytes} B")


def field_offset(snode: SNode, indices: Sequence[int]) -> int:
    """Byte offset of element `indices` of the field placed at `snode`, from its tree's root:
    what `lower_access` computes with `SNodeLookup`/`GetCh`."""
    levels = snode.levels()  # each node's axes as positions among the field's indices
    offset = 0
    for depth, (node, axes) in enumerate(levels[1:], start=1):
        offset += node.offset_in_parent_cell
        if node.type == "place":
            continue
        cell = 0
        for axis, size in zip(axes, node.sizes):
            deeper = 1
            for inner, inner_axes in levels[depth + 1 :]:
                deeper *= inner.sizes[inner_axes.index(axis)] if axis in inner_axes else 1
            cell = cell * size + (indices[axis] // deeper) % size
        offset += cell * node.cell_size
    return offset


class Interpreter:
    """Runs one kernel's IR on given arguments, SNode tree buffers and ndarrays."""

    def __init__(
        self,
        kernel: Kernel,
        args: Sequence[Any],
        trees: Sequence[np.ndarray],
        random_key: int = 0,
    ) -> None:
        self.kernel = kernel
        self.args = list(args)
        self.trees = [t.reshape(-1).view(np.uint8) for t in trees]
        self.gtmp = np.zeros(max(kernel.gtmp_size, 8), dtype=np.uint8)
        self.tls = np.zeros(8, dtype=np.uint8)
        self.values: dict[Stmt, Any] = {}
        self.returned: list[Value] = []
        # `Rand`: the launch's key, the running task and its key, calls so far per iteration
        self.random_key = random_key
        self.task: s.Offloaded | None = None
        self.task_key = rng.task_key(random_key, 0)
        self.rand_calls: dict[int, int] = {}
        self.dispatch = {cls: getattr(self, f"run_{cls.__name__}") for cls in s.ALL_STATEMENTS}

    def run(self) -> list[Value]:
        """Run the kernel body; return its return values (empty if it returns nothing)."""
        try:
            self.block(self.kernel.body)
        except _Return as ret:
            self.returned = ret.values
        return self.returned

    def block(self, block: Block) -> None:
        values, dispatch = self.values, self.dispatch
        for stmt in block.stmts:
            result = dispatch[type(stmt)](stmt)
            if result is not None:
                values[stmt] = result

    def fail(self, stmt: Stmt, message: str) -> InterpreterError:
        where = f" ({stmt.loc})" if stmt.loc is not None else ""
        return InterpreterError(f"{type(stmt).__name__}{where}: {message}")

    # --- values -----------------------------------------------------------------------------

    def run_Const(self, stmt: s.Const) -> Value:
        return ops.normalize(stmt.value, stmt.ret_type)

    def run_ArgLoad(self, stmt: s.ArgLoad) -> Value:
        return ops.normalize(self.args[stmt.arg_id], stmt.ret_type)

    def run_UnaryOp(self, stmt: s.UnaryOp) -> Value:
        x = self.values[stmt.operand]
        return ops.unary(stmt.op, stmt.operand.ret_type, stmt.ret_type, x)

    def run_BinaryOp(self, stmt: s.BinaryOp) -> Value:
        a, b = self.values[stmt.lhs], self.values[stmt.rhs]
        t = stmt.lhs.ret_type
        if stmt.op.is_shift and stmt.rhs.ret_type != t:  # early IR: the amount has its own type
            b = int(b)
        return ops.binary(stmt.op, t, a, b)

    def run_TernaryOp(self, stmt: s.TernaryOp) -> Value:
        return self.values[stmt.a] if self.values[stmt.cond] else self.values[stmt.b]

    def run_LoopIndex(self, stmt: s.LoopIndex) -> Value:
        index = self.values[stmt.loop]
        return index[stmt.index] if isinstance(index, tuple) else index

    def run_Rand(self, stmt: s.Rand) -> Value:
        """Call number k of iteration i of the running task (k from 0 in each iteration; i is 0
        in a serial task, or before `offload` made tasks), hashed as `ir/random.py` says."""
        task, index = self.task, 0
        if task is not None and task.task_type is not TaskType.serial:
            index = self.values[task]
            if isinstance(index, tuple):  # a struct-for's cell: its row-major number
                assert task.snode is not None
                index = int(np.ravel_multi_index(index, task.snode.shape))
        calls = self.rand_calls.get(index, 0)
        self.rand_calls[index] = calls + 1
        return rng.draw(rng.stream(self.task_key, index), calls)

    def run_MatrixInit(self, stmt: s.MatrixInit) -> Value:
        raise self.fail(stmt, "tensor values must be scalarized before interpreting")

    run_GetElement = run_MatrixInit
    run_MatrixPtr = run_MatrixInit

    # --- locals and memory ------------------------------------------------------------------

    def run_Alloca(self, stmt: s.Alloca) -> _Local:
        local = _Local()
        dtype = stmt.ret_type.pointee if isinstance(stmt.ret_type, PointerType) else None
        if isinstance(dtype, PrimitiveType):
            local.value = ops.normalize(0, dtype)
        return local

    def run_LocalLoad(self, stmt: s.LocalLoad) -> Value:
        return load(self.values[stmt.ptr], stmt.ret_type)

    def run_LocalStore(self, stmt: s.LocalStore) -> None:
        store(self.values[stmt.ptr], pointee(stmt.ptr), self.values[stmt.value])

    # autodiff stacks: a list of [primal, adjoint] entries, newest last

    def run_AdStackAlloca(self, stmt: s.AdStackAlloca) -> list[list[Value]]:
        return []

    def run_AdStackPush(self, stmt: s.AdStackPush) -> None:
        self.values[stmt.stack].append([self.values[stmt.value], 0])

    def run_AdStackPop(self, stmt: s.AdStackPop) -> None:
        self.values[stmt.stack].pop()

    def run_AdStackLoadTop(self, stmt: s.AdStackLoadTop) -> Value:
        return self.values[stmt.stack][-1][0]

    def run_AdStackLoadTopAdj(self, stmt: s.AdStackLoadTopAdj) -> Value:
        return self.values[stmt.stack][-1][1]

    def run_AdStackCount(self, stmt: s.AdStackCount) -> Value:
        return len(self.values[stmt.stack])

    def run_AdStackAccAdjoint(self, stmt: s.AdStackAccAdjoint) -> None:
        top = self.values[stmt.stack][-1]
        top[1] = ops.normalize(top[1] + self.values[stmt.value], stmt.value.ret_type)

    def run_GlobalLoad(self, stmt: s.GlobalLoad) -> Value:
        try:
            return load(self.values[stmt.ptr], stmt.ret_type)
        except InterpreterError as e:
            raise self.fail(stmt, str(e)) from None

    def run_GlobalStore(self, stmt: s.GlobalStore) -> None:
        try:
            store(self.written(stmt.ptr), pointee(stmt.ptr), self.values[stmt.value])
        except InterpreterError as e:
            raise self.fail(stmt, str(e)) from None

    def run_AtomicOp(self, stmt: s.AtomicOp) -> Value:
        ptr, t = self.written(stmt.dest), pointee(stmt.dest)
        try:
            old = load(ptr, t)
            store(ptr, t, ops.binary(stmt.op.binary, t, old, self.values[stmt.val]))
        except InterpreterError as e:
            raise self.fail(stmt, str(e)) from None
        return old

    def run_AtomicCAS(self, stmt: s.AtomicCAS) -> Value:
        ptr, t = self.values[stmt.dest], pointee(stmt.dest)
        old = load(ptr, t)
        if old == self.values[stmt.expected]:
            store(ptr, t, self.values[stmt.desired])
        return old

    def run_GlobalTemporary(self, stmt: s.GlobalTemporary) -> Pointer:
        return (self.gtmp, stmt.offset)

    def run_ThreadLocalPtr(self, stmt: s.ThreadLocalPtr) -> Pointer:
        return (self.tls, stmt.offset)

    def run_ThreadLocalArrayPtr(self, stmt: s.ThreadLocalArrayPtr) -> Pointer:
        step = pointee(stmt).nbytes
        return (self.tls, stmt.offset + int(self.values[stmt.index]) * step)

    def run_GetRoot(self, stmt: s.GetRoot) -> Pointer:
        return (self.trees[stmt.tree_id], 0)

    def run_SNodeLookup(self, stmt: s.SNodeLookup) -> Pointer:
        buffer, offset = self.values[stmt.ptr]
        return (buffer, offset + self.values[stmt.index] * sparse.lookup_stride(stmt.snode))

    def run_PoolCell(self, stmt: s.PoolCell) -> Pointer:
        node = stmt.snode
        return (
            self.trees[node.tree_id],
            node.pool_offset + self.values[stmt.slot] * node.cell_size,
        )

    def run_GetAddr(self, stmt: s.GetAddr) -> Value:
        buffer, offset = self.values[stmt.ptr]
        return buffer.ctypes.data + offset

    def run_SNodeCellOp(self, stmt: s.SNodeCellOp) -> Value | None:
        buffer, offset = self.values[stmt.ptr]
        cell = self.values[stmt.index]
        value = sparse.cell_op(buffer, stmt.snode, stmt.op.value, offset, cell)
        return value if stmt.ret_type is not None else None

    def run_SNodeOp(self, stmt: s.SNodeOp) -> Value | None:
        activate = stmt.op in (SNodeOpType.activate, SNodeOpType.append)
        buffer = self.trees[stmt.snode.tree_id]
        indices = [np.int64(self.values[i]) for i in stmt.indices]
        offsets, _, cell = sparse.walk(buffer, stmt.snode, indices, activate)
        value = sparse.cell_op(buffer, stmt.snode, stmt.op.value, int(offsets), int(cell))
        return value if stmt.ret_type is not None else None

    def written(self, ptr: Stmt) -> Pointer:
        """Where a store or an atomic writes; in early IR, through a sparse field's
        `GlobalPtr`, after activating its path (as `lower_access` makes writes do)."""
        if isinstance(ptr, s.GlobalPtr) and not ptr.snode.is_path_all_dense():
            return self.sparse_element(ptr, activate=True)
        return self.values[ptr]

    def sparse_element(self, ptr: s.GlobalPtr, activate: bool) -> Pointer:
        buffer = self.trees[ptr.snode.tree_id]
        indices = [np.int64(self.values[i]) for i in ptr.indices]
        return (buffer, int(sparse.walk(buffer, ptr.snode, indices, activate)[0]))

    def cells(self, snode: SNode) -> Any:
        """A struct-for's iterations: every cell of `snode`, or its active ones."""
        if snode.is_path_all_dense():
            return _cells(snode)
        buffer = self.trees[snode.tree_id]
        active = sparse.active_mask(buffer, snode, sparse.all_cells(snode.shape))
        return [c for c, on in zip(_cells(snode), np.ravel(active)) if on]

    def run_GetCh(self, stmt: s.GetCh) -> Pointer:
        buffer, offset = self.values[stmt.ptr]
        return (buffer, offset + stmt.child.offset_in_parent_cell)

    def run_GlobalPtr(self, stmt: s.GlobalPtr) -> Pointer:
        indices = [self.values[i] for i in stmt.indices]
        shape = stmt.snode.shape
        if len(indices) != len(shape) or not all(0 <= i < n for i, n in zip(indices, shape)):
            raise self.fail(stmt, f"index {indices} out of bounds for shape {shape}")
        if not stmt.snode.is_path_all_dense():
            return self.sparse_element(stmt, activate=False)
        return (self.trees[stmt.snode.tree_id], field_offset(stmt.snode, indices))

    def run_ExternalPtr(self, stmt: s.ExternalPtr) -> Pointer:
        array = self.args[stmt.arg_id]
        indices = [self.values[i] for i in stmt.indices]
        if len(indices) != array.ndim or not all(0 <= i < n for i, n in zip(indices, array.shape)):
            raise self.fail(stmt, f"index {indices} out of bounds for shape {array.shape}")
        flat = int(np.ravel_multi_index(indices, array.shape)) if indices else 0
        return (array.reshape(-1).view(np.uint8), flat * array.itemsize)

    def run_ExternalTensorShape(self, stmt: s.ExternalTensorShape) -> Value:
        return ops.normalize(self.args[stmt.arg_id].shape[stmt.axis], stmt.ret_type)

    def run_simt(self, stmt: Stmt) -> None:
        """One thread at a time has no workgroup to share memory or wait with (ir/simt.py)."""
        where = f" at {stmt.loc}\n    {stmt.loc.source_line.strip()}" if stmt.loc else ""
        raise NotImplementedError(
            "ti.simt.block.SharedArray, sync() and thread_idx() need the GPU back end "
            f"(arch=ti.gpu); the IR interpreter runs one invocation at a time{where}"
        )

    run_SharedArray = run_SharedLoad = run_SharedStore = run_SharedAtomic = run_simt
    run_BlockBarrier = run_ThreadIdx = run_simt

    # --- control flow -----------------------------------------------------------------------

    def run_Print(self, stmt: s.Print) -> None:
        fmt = PrintFormat(stmt.template, tuple(v.ret_type for v in stmt.values))
        sys.stdout.write(format_line(fmt, [self.values[v] for v in stmt.values]))

    def run_Assert(self, stmt: s.Assert) -> None:
        if not self.values[stmt.cond]:  # a debug check failed: raise as the host would
            info = AssertInfo(stmt.message, tuple(a.ret_type for a in stmt.args), stmt.loc)
            values = [self.values[a] for a in stmt.args]
            raise TaichiAssertionError(format_failure(info, values, self.kernel.name))

    def run_If(self, stmt: s.If) -> None:
        self.block(stmt.true_block if self.values[stmt.cond] else stmt.false_block)

    def run_While(self, stmt: s.While) -> None:
        while True:
            try:
                self.block(stmt.body)
            except _Break:
                return
            except _Continue:
                pass

    def run_RangeFor(self, stmt: s.RangeFor) -> None:
        begin, end = self.values[stmt.begin], self.values[stmt.end]
        indices = range(end - 1, begin - 1, -1) if stmt.reversed else range(begin, end)
        self.loop(stmt, indices, may_break=True)

    def run_StructFor(self, stmt: s.StructFor) -> None:
        self.loop(stmt, self.cells(stmt.snode), may_break=False)

    def loop(self, stmt: Stmt, indices: Any, may_break: bool) -> None:
        body = stmt.body  # type: ignore[attr-defined]
        for index in indices:
            self.values[stmt] = index
            try:
                self.block(body)
            except _Continue:
                continue
            except _Break:
                if not may_break:
                    raise self.fail(stmt, "break out of a parallel loop") from None
                return

    def run_Break(self, stmt: s.Break) -> None:
        raise _Break

    def run_Continue(self, stmt: s.Continue) -> None:
        raise _Continue

    def run_Return(self, stmt: s.Return) -> None:
        values = [self.values[v] for v in stmt.values]
        raise _Return(values)

    def run_FuncCall(self, stmt: s.FuncCall) -> Value | None:
        """Run the IR function's body on the call's arguments, with values of its own (a
        recursive call runs the same statements again), and give its return value."""
        function = next(f for f in self.kernel.functions if f.name == stmt.func.name)
        saved = self.args, self.values
        self.args, self.values = [self.values[a] for a in stmt.args], {}
        try:
            self.block(function.body)
            returned: list[Value] = []
        except _Return as ret:
            returned = ret.values
        finally:
            self.args, self.values = saved
        return returned[0] if returned else None

    def run_Offloaded(self, stmt: s.Offloaded) -> None:
        self.tls = np.zeros(max(stmt.tls_size, 8), dtype=np.uint8)
        self.task, self.rand_calls = stmt, {}
        self.task_key = rng.task_key(self.random_key, self.kernel.body.index(stmt))
        try:
            self.block(stmt.tls_prologue)
            if stmt.task_type is TaskType.serial:
                self.block(stmt.body)
            else:
                self.loop(stmt, self.task_indices(stmt), may_break=False)
            self.block(stmt.tls_epilogue)
        except _Return as ret:  # a return ends its serial task; later tasks still run
            self.returned = ret.values

    def task_indices(self, task: s.Offloaded) -> Any:
        if task.task_type is TaskType.struct_for:
            assert task.snode is not None
            return self.cells(task.snode)
        begin = task.begin if task.const_begin else load((self.gtmp, task.begin), i32)
        end = task.end if task.const_end else load((self.gtmp, task.end), i32)
        return range(begin, end)


def _cells(snode: SNode) -> Any:
    """Every index tuple of a dense SNode's cells (a struct-for's iterations), row-major."""
    return itertools.product(*(range(n) for n in snode.shape))


def interpret(
    kernel: Kernel, args: Sequence[Any], trees: Sequence[np.ndarray], random_key: int = 0
) -> list[Value]:
    """Run `kernel` on `args` (Python scalars for scalar params, NumPy arrays for ndarray params,
    written in place) with the SNode tree buffers `trees` (written in place); return the
    kernel's return values, each of its declared type. `random_key` is the launch's key for
    `ti.random` (`ir/random.py`)."""
    with np.errstate(all="ignore"):
        values = Interpreter(kernel, args, trees, random_key).run()
    return [ops.normalize(v, t) for v, t in zip(values, kernel.ret_types)]
