"""Final IR -> LLVM IR: one LLVM function per offloaded task.

ABI: a serial task is `void task(ptr ctx)`; a range_for task is `void task(ptr ctx, i32 lo,
i32 hi)` and runs its body for every `i` in `[lo, hi)`, with its thread-local buffer set up by
the TLS prologue before the loop and merged by the TLS epilogue after it, once per call (that
is, once per chunk of the thread pool). `ctx` is the argument buffer laid out in `context.py`.

Everything the loop needs from `ctx` (tree roots, array addresses and extents, scalar
arguments) is loaded once in the entry block, next to the allocas, so the loops below see plain
SSA values and vectorise; `ctx` is `noalias` because no other pointer reaches that buffer.
Field and ndarray addresses are not `noalias`: two parameters may be one array, and all fields
of a tree share its buffer, so the vectoriser adds a run-time overlap check where it needs one.
Statement values are named after the printed IR (`%s5` is `$5`), so the studio can show both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.llvm import arith, sparse
from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm import random as rand
from tistudio.backends.llvm.adstack import AdStackEmitter
from tistudio.backends.llvm.atomics import ORDERING, atomic_rmw
from tistudio.backends.llvm.context import GTMP_SLOT, ContextLayout
from tistudio.backends.llvm.debug_checks import emit_assert
from tistudio.backends.llvm.lltypes import (
    I8,
    I32,
    I64,
    PTR,
    VOID,
    constant,
    memory_type,
    value_type,
)
from tistudio.backends.llvm.printing import emit_print
from tistudio.backends.llvm.vecmath import VectorLibrary
from tistudio.ir import statements as s
from tistudio.ir.config import CompileConfig
from tistudio.ir.ops import BinaryOpType, TaskType
from tistudio.ir.printer import Printer
from tistudio.ir.sparse import lookup_stride
from tistudio.ir.stmt import Block, Kernel, Stmt, kernel_root, pointee, walk
from tistudio.ir.types import PointerType, PrimitiveType
from tistudio.ir.verifier import InternalCompilerError

BACKEND = "cpu"
# LLVM fast-math flags on float arithmetic, in every mode: none. The floating-point contract
# (docs/compiler-contract.md) makes every operation IEEE-rounded to its type with NaN, infinities
# and the sign of zero kept, as Taichi 1.7.4's CPU code computes them. `contract` fused a*b+c
# into an FMA in the optimised tier only (270 of 1000 results changed after the first call),
# `nnan`/`ninf` let LLVM fold x / (x - x) away, and `arcp`/`afn`/`reassoc` change last bits.
FLOAT_FLAGS: tuple[str, ...] = ()
_REDUCTION_OPS = (BinaryOpType.add, BinaryOpType.mul)


def build_module(
    kernel: Kernel,
    config: CompileConfig,
    layout: ContextLayout,
    prefix: str,
    vector_library: VectorLibrary | None = None,
) -> tuple[ir.Module, list[str]]:
    """The LLVM module of `kernel` and the name of each task's function, in task order
    (`launcher.build_launcher` can add a function that runs them all). With `approx_math` and
    a `vector_library`, transcendental functions go through libmvec (see `vecmath.py`)."""
    # functions.py subclasses TaskEmitter: imported here, once this module is loaded
    from tistudio.backends.llvm.functions import FunctionEmitter, declare_functions

    module = ir.Module(name=prefix)
    names = Printer()
    names.number(kernel.body)
    vector_math = vector_library if config.approx_math else None
    callees = declare_functions(module, kernel, prefix)  # IR functions (ir/calls.py)
    for function in kernel.functions:
        names.number(function.body)
    functions = []
    for index, task in enumerate(kernel.body):
        if not isinstance(task, s.Offloaded):
            raise InternalCompilerError(f"kernel body holds {type(task).__name__}, not a task")
        name = f"{prefix}_task{index}_{task.task_type.value}"
        emitter = TaskEmitter(module, task, name, layout, config, names.names, index)
        emitter.vector_math, emitter.callees = vector_math, callees
        emitter.build()
        functions.append(name)
    for function in kernel.functions:
        emitter = FunctionEmitter(kernel, function, callees, layout, names.names)
        emitter.vector_math = vector_math
        emitter.build()
    return module, functions


class _Loop:
    """Branch targets of an enclosing loop: where `continue` and `break` go."""

    def __init__(self, next_iteration: ir.Block, exit: ir.Block | None) -> None:
        self.next_iteration = next_iteration
        self.exit = exit


class TaskEmitter(AdStackEmitter):
    """Emits one offloaded task as one LLVM function. Made per task, never reused."""

    def __init__(
        self,
        module: ir.Module,
        task: s.Offloaded,
        name: str,
        layout: ContextLayout,
        config: CompileConfig,
        numbers: dict[Stmt, int],
        task_number: int = 0,
    ) -> None:
        params = [PTR, I32, I32] if task.task_type is TaskType.range_for else [PTR]
        self.begin(ir.Function(module, ir.FunctionType(VOID, params), name), layout, numbers)
        self.task, self.task_number = task, task_number
        self.kernel = kernel_root(task)
        if task.tls_size:
            self.tls = self._entry_alloca(ir.array_type(I8, task.tls_size), "tls", 16)
        if layout.random_slot >= 0 and any(isinstance(x, s.Rand) for x in walk(task.body)):
            self.rand_calls = self._entry_alloca(I32, "rand_calls", 4)
            self.entry.store(ir.Constant(I32, 0), self.rand_calls)

    def begin(self, function: ir.Function, layout: ContextLayout, numbers: dict) -> None:
        """The state every emitter of one LLVM function starts with (`functions.py` too):
        `function`'s first argument is `ctx`, and `numbers` names statements as printed."""
        self.layout, self.numbers = layout, numbers
        self.kernel: Kernel | None = None  # the kernel this code belongs to
        self.task: s.Offloaded | None = None
        self.task_number = 0
        self.flags = FLOAT_FLAGS
        self.vector_math: VectorLibrary | None = None
        self.values: dict[Stmt, ir.Value] = {}
        self.loop_index: dict[Stmt, ir.Value] = {}
        self.loops: list[_Loop] = []
        self.ctx_cache: dict[tuple[int, str], ir.Value] = {}
        self.assert_numbers: dict[s.Assert, int] = {}  # see ir/assertions.assert_number
        self.print_ids: dict[Stmt, int] = {}  # see ir/printing.print_id
        self.function = function
        self.function.attributes.append("nounwind")
        self.ctx = self.function.args[0]
        self.ctx.name = "ctx"
        self.ctx.add_attribute("noalias")
        self.entry = ir.IRBuilder(self.function.append_basic_block("entry"))
        self.start = self.function.append_basic_block("start")
        self.builder = ir.IRBuilder(self.start)
        self.tls = None
        self.rand_calls: ir.Value | None = None  # `Rand`'s call counter, see random.py
        self.task_key: ir.Value | None = None  # hashed in the entry block on first use
        self.callees: dict[str, ir.Function] = {}  # IR functions by name (functions.py)

    def build(self) -> ir.Function:
        if self.task.task_type is TaskType.range_for:
            self._range_for_task()
        elif self.task.task_type is TaskType.serial:
            self.block(self.task.tls_prologue)
            self.block(self.task.body)
            self.block(self.task.tls_epilogue)
        else:
            raise UnsupportedOnBackend(self.task, BACKEND, "struct_for tasks must be demoted")
        self.builder.ret_void()
        self.entry.branch(self.start)
        return self.function

    def emit_simt(self, stmt: Stmt) -> None:
        """`ti.simt.block` (ir/simt.py): the frontend refuses it on the CPU, which has no
        workgroups; IR written by hand still gets a clear error."""
        raise UnsupportedOnBackend(stmt, BACKEND, "ti.simt.block needs the GPU back end")

    emit_SharedArray = emit_SharedLoad = emit_SharedStore = emit_SharedAtomic = emit_simt
    emit_BlockBarrier = emit_ThreadIdx = emit_simt

    # --- helpers ------------------------------------------------------------------------------

    def emit(self, stmt: Stmt) -> None:
        method = getattr(self, f"emit_{type(stmt).__name__}", None)
        if method is None:
            raise UnsupportedOnBackend(stmt, backend=BACKEND)
        method(stmt)
        value = self.values.get(stmt)
        if isinstance(value, ir.Instruction) and value.name.startswith("."):  # unnamed
            value.name = self.name_of(stmt)

    def block(self, stmts: Iterable[Stmt]) -> None:
        for stmt in stmts:
            self.emit(stmt)

    def name_of(self, stmt: Stmt) -> str:
        number = self.numbers.get(stmt)
        return f"s{number}" if number is not None else ""

    def _entry_alloca(self, typ: ir.Type, name: str, align: int) -> ir.Value:
        return self.entry.alloca(typ, name=name, align=align)

    def ctx_load(self, slot: int, typ: ir.Type) -> ir.Value:
        """Slot `slot` of the argument buffer, loaded once in the entry block."""
        key = (slot, str(typ))
        if key not in self.ctx_cache:
            address = self.entry.gep(self.ctx, [ir.Constant(I64, slot)], source_etype=I64)
            self.ctx_cache[key] = self.entry.load(address, name=f"ctx{slot}", typ=typ)
        return self.ctx_cache[key]

    def load(self, ptr: ir.Value, dtype: PrimitiveType, name: str = "") -> ir.Value:
        value = self.builder.load(ptr, name=name, typ=memory_type(dtype))
        if dtype.kind == "bool":
            return self.builder.icmp_unsigned("!=", value, ir.Constant(I8, 0), name=name)
        return value

    def store(self, value: ir.Value, ptr: ir.Value, dtype: PrimitiveType) -> None:
        if dtype.kind == "bool":
            value = self.builder.zext(value, I8)
        self.builder.store(value, ptr)

    def abandon(self) -> None:
        """Leave this function at once (after a failed debug check): the task stops."""
        self.builder.ret_void()

    def dead_block(self) -> None:
        """Continue in an unreachable block after `break`/`continue`/`return`."""
        self.builder.position_at_end(self.function.append_basic_block("after_jump"))

    def byte_offset(self, ptr: ir.Value, offset: ir.Value | int, name: str) -> ir.Value:
        if isinstance(offset, int):
            if offset == 0:
                return ptr
            offset = ir.Constant(I64, offset)
        return self.builder.gep(ptr, [offset], inbounds=True, name=name, source_etype=I8)

    # --- loops --------------------------------------------------------------------------------

    def counted_loop(
        self,
        owner: Stmt,
        begin: ir.Value,
        end: ir.Value,
        body: Block | Callable[[], None],
        reverse: bool = False,
        step: int = 1,
        label: str = "loop",
    ) -> None:
        """`for i in range(begin, end, step)` (or reversed, step 1) over `body` (a block, or
        what emits the body), in the rotated form that LLVM's loop passes expect; with a `step`,
        `end - begin` must be a multiple of it. `continue` goes to the latch; `break` only in
        serial loops."""
        b = self.builder
        loop_bb, latch, done = (
            b.append_basic_block(f"{label}{x}") for x in ("", "_latch", "_done")
        )
        counter = begin.type  # i32 by the contract; whatever the bounds' type is, it works
        one = ir.Constant(counter, 1)
        # reversed, the first index is `end - 1`, which cannot wrap when end > begin
        first = b.sub(end, one) if reverse else begin
        preheader = b.block
        b.cbranch(b.icmp_signed("<", begin, end), loop_bb, done)
        b.position_at_end(loop_bb)
        i = b.phi(counter, name=f"{self.name_of(owner)}_i")
        i.add_incoming(first, preheader)
        self.loop_index[owner] = i
        if owner is self.task and self.rand_calls is not None:  # each iteration from call 0
            b.store(ir.Constant(I32, 0), self.rand_calls)
        breakable = not isinstance(owner, s.Offloaded)
        self.loops.append(_Loop(latch, done if breakable else None))
        if isinstance(body, Block):
            self.block(body)
        else:
            body()
        self.loops.pop()
        b.branch(latch)
        b.position_at_end(latch)
        if reverse:  # test before stepping, so `i - 1` never wraps below INT_MIN
            assert step == 1, "a reversed loop steps by one"
            more = b.icmp_signed(">", i, begin)
            following = b.sub(i, one)
        else:  # `i + step` cannot wrap: i + step <= end <= INT_MAX
            following = b.add(i, ir.Constant(counter, step), flags=("nsw",))
            more = b.icmp_signed("<", following, end)
        i.add_incoming(following, latch)
        b.cbranch(more, loop_bb, done)
        b.position_at_end(done)

    def _range_for_task(self) -> None:
        lo, hi = self.function.args[1], self.function.args[2]
        lo.name, hi.name = "lo", "hi"
        self.block(self.task.tls_prologue)
        if self.task.schedule.jam > 1:  # the jam pass's: iterations at once, then the rest
            lo = self.jammed_loop(self.task.schedule.jam, lo, hi)
        self.counted_loop(self.task, lo, hi, self.task.body)
        self.block(self.task.tls_epilogue)

    def jammed_loop(self, step: int, lo: ir.Value, hi: ir.Value) -> ir.Value:
        """The task's iterations from `lo` in steps of `step` (passes/jam.py), each step one
        copy of the code before the inner loop per iteration, one inner loop holding a copy of
        its body per iteration, and the code after it per iteration; returns where the rest
        begins."""
        b, task = self.builder, self.task
        at = next(k for k, x in enumerate(task.body.stmts) if isinstance(x, s.RangeFor))
        before, inner, after = task.body.stmts[:at], task.body.stmts[at], task.body.stmts[at + 1 :]
        count = b.sub(b.sext(hi, I64), b.sext(lo, I64))
        count = b.select(b.icmp_signed("<", count, ir.Constant(I64, 0)), ir.Constant(I64, 0), count)
        whole = b.mul(b.sdiv(count, ir.Constant(I64, step)), ir.Constant(I64, step))
        rest = b.trunc(b.add(b.sext(lo, I64), whole), I32, name="jam_end")

        def one_step() -> None:
            first, outer = self.loop_index[task], self.values
            copies: list[tuple[dict[Stmt, ir.Value], ir.Value]] = []
            for k in range(step):
                index = b.add(first, ir.Constant(I32, k), flags=("nsw",)) if k else first
                self.values, self.loop_index[task] = dict(outer), index
                self.block(before)
                copies.append((self.values, index))

            def jammed_body() -> None:
                for values, index in copies:
                    self.values, self.loop_index[task] = values, index
                    self.block(inner.body)

            bounds = copies[0][0]
            self.counted_loop(inner, bounds[inner.begin], bounds[inner.end], jammed_body)
            for values, index in copies:
                self.values, self.loop_index[task] = values, index
                self.block(after)
            self.values = outer

        self.counted_loop(task, lo, rest, one_step, step=step, label="jam")
        return rest

    # --- values -------------------------------------------------------------------------------

    def emit_Const(self, stmt: s.Const) -> None:
        self.values[stmt] = constant(stmt.ret_type, stmt.value)

    def emit_ArgLoad(self, stmt: s.ArgLoad) -> None:
        slots = self.layout.params[stmt.arg_id]
        if slots.kind != "scalar":
            raise UnsupportedOnBackend(stmt, BACKEND, "argload of an ndarray parameter")
        dtype = stmt.ret_type
        raw = self.ctx_load(slots.slot, memory_type(dtype))
        if dtype.kind == "bool":
            raw = self.entry.icmp_unsigned("!=", raw, ir.Constant(I8, 0))
        self.values[stmt] = raw

    def emit_UnaryOp(self, stmt: s.UnaryOp) -> None:
        src, dst = stmt.operand.ret_type, stmt.ret_type
        x = self.values[stmt.operand]
        value = self.vector_call(stmt.op, src, [x])
        if value is None:
            value = arith.unary(self.builder, stmt.op, src, dst, x, self.flags)
        if value is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"{stmt.op.value} on {src}")
        self.values[stmt] = value

    def emit_BinaryOp(self, stmt: s.BinaryOp) -> None:
        lhs, rhs = self.values[stmt.lhs], self.values[stmt.rhs]
        dtype = stmt.lhs.ret_type
        value = self.vector_call(stmt.op, dtype, [lhs, rhs])
        if value is None:
            flags = self.reduction_flags(stmt)
            value = arith.binary(self.builder, stmt.op, dtype, lhs, rhs, flags)
        if value is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"{stmt.op.value} on {dtype}")
        self.values[stmt] = value

    def vector_call(self, op: object, dtype: PrimitiveType, args: list) -> ir.Value | None:
        """A libm call that vectorises through libmvec, where that applies (else None)."""
        if self.vector_math is None or not dtype.is_float:
            return None
        return self.vector_math.call(self.builder, op, dtype, args)

    def reduction_flags(self, stmt: s.BinaryOp) -> tuple[str, ...]:
        """`FLOAT_FLAGS`, and `reassoc` on a TLS accumulation, which lets the reduction
        vectorise: its order already depends on how the pool splits the range (the contract
        leaves the order of a parallel reduction's terms unspecified)."""
        if stmt.op not in _REDUCTION_OPS:
            return self.flags
        for operand in (stmt.lhs, stmt.rhs):
            if isinstance(operand, s.GlobalLoad) and isinstance(operand.ptr, s.ThreadLocalPtr):
                return ("reassoc",)
        return self.flags

    def emit_TernaryOp(self, stmt: s.TernaryOp) -> None:
        cond, a, b = (self.values[x] for x in (stmt.cond, stmt.a, stmt.b))
        self.values[stmt] = self.builder.select(cond, a, b, name=self.name_of(stmt))

    def emit_LoopIndex(self, stmt: s.LoopIndex) -> None:
        if stmt.index != 0 or stmt.loop not in self.loop_index:
            raise UnsupportedOnBackend(stmt, BACKEND, "only index 0 of an enclosing range loop")
        self.values[stmt] = self.loop_index[stmt.loop]

    def emit_Rand(self, stmt: s.Rand) -> None:
        assert self.rand_calls is not None, "a task that draws has a call counter"
        if self.task_key is None:
            launch_key = self.ctx_load(self.layout.random_slot, I32)
            self.task_key = rand.task_key(self.entry, launch_key, self.task_number)
        b = self.builder
        calls = b.load(self.rand_calls, typ=I32)
        b.store(b.add(calls, ir.Constant(I32, 1)), self.rand_calls)
        index = self.loop_index.get(self.task, ir.Constant(I32, 0))
        self.values[stmt] = rand.draw(b, self.task_key, index, calls)

    # --- local variables ----------------------------------------------------------------------

    def emit_Alloca(self, stmt: s.Alloca) -> None:
        dtype = pointee(stmt)
        slot = self._entry_alloca(memory_type(dtype), self.name_of(stmt), dtype.nbytes)
        self.values[stmt] = slot
        # a variable starts at zero each time its declaration runs, as in Taichi
        self.store(constant(dtype, 0), slot, dtype)

    def emit_LocalLoad(self, stmt: s.LocalLoad) -> None:
        self.values[stmt] = self.load(self.values[stmt.ptr], stmt.ret_type, self.name_of(stmt))

    def emit_LocalStore(self, stmt: s.LocalStore) -> None:
        self.store(self.values[stmt.value], self.values[stmt.ptr], stmt.value.ret_type)

    # --- global memory ------------------------------------------------------------------------

    def emit_GlobalLoad(self, stmt: s.GlobalLoad) -> None:
        self.values[stmt] = self.load(self.values[stmt.ptr], stmt.ret_type, self.name_of(stmt))

    def emit_GlobalStore(self, stmt: s.GlobalStore) -> None:
        self.store(self.values[stmt.value], self.values[stmt.ptr], stmt.value.ret_type)

    def emit_AtomicOp(self, stmt: s.AtomicOp) -> None:
        dtype = stmt.val.ret_type
        ptr, val = self.values[stmt.dest], self.values[stmt.val]
        if isinstance(stmt.dest, s.Alloca):  # a private variable needs no atomicity
            old = self.load(ptr, dtype)
            new = arith.binary(self.builder, stmt.op.binary, dtype, old, val, self.flags)
            if new is None:
                raise UnsupportedOnBackend(stmt, BACKEND, f"atomic {stmt.op.value} on {dtype}")
            self.store(new, ptr, dtype)
            self.values[stmt] = old
            return
        old = atomic_rmw(self.builder, stmt.op, dtype, ptr, val)
        if old is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"atomic {stmt.op.value} on {dtype}")
        self.values[stmt] = old

    def emit_AtomicCAS(self, stmt: s.AtomicCAS) -> None:
        ptr, expected = self.values[stmt.dest], self.values[stmt.expected]
        pair = self.builder.cmpxchg(ptr, expected, self.values[stmt.desired], ORDERING, ORDERING)
        self.values[stmt] = self.builder.extract_value(pair, 0)

    def emit_GlobalTemporary(self, stmt: s.GlobalTemporary) -> None:
        base = self.ctx_load(GTMP_SLOT, PTR)
        self.values[stmt] = self.byte_offset(base, stmt.offset, self.name_of(stmt))

    def emit_ThreadLocalPtr(self, stmt: s.ThreadLocalPtr) -> None:
        if self.tls is None or stmt.offset >= self.task.tls_size:
            raise InternalCompilerError(
                f"thread local ptr at offset {stmt.offset} outside tls_size={self.task.tls_size}"
            )
        self.values[stmt] = self.byte_offset(self.tls, stmt.offset, self.name_of(stmt))

    def emit_ThreadLocalArrayPtr(self, stmt: s.ThreadLocalArrayPtr) -> None:
        if self.tls is None or stmt.offset >= self.task.tls_size:
            raise InternalCompilerError(
                f"thread local array at offset {stmt.offset} outside tls_size={self.task.tls_size}"
            )
        assert isinstance(stmt.ret_type, PointerType)
        step = ir.Constant(I64, stmt.ret_type.pointee.nbytes)
        index = self.builder.mul(self.builder.sext(self.values[stmt.index], I64), step)
        offset = self.builder.add(index, ir.Constant(I64, stmt.offset))
        self.values[stmt] = self.byte_offset(self.tls, offset, self.name_of(stmt))

    emit_Print = emit_print  # a record in the print buffer: see printing.py

    def emit_GetRoot(self, stmt: s.GetRoot) -> None:
        self.values[stmt] = self.ctx_load(self.layout.root_slots[stmt.tree_id], PTR)

    def emit_SNodeLookup(self, stmt: s.SNodeLookup) -> None:
        ptr, cell = self.values[stmt.ptr], lookup_stride(stmt.snode)
        if s.is_const(stmt.index, 0):
            self.values[stmt] = ptr
            return
        index = self.builder.sext(self.values[stmt.index], I64)
        offset = self.builder.mul(index, ir.Constant(I64, cell), flags=("nsw",))
        self.values[stmt] = self.byte_offset(ptr, offset, self.name_of(stmt))

    emit_SNodeCellOp = sparse.emit_cell_op  # sparse SNodes: see sparse.py
    emit_PoolCell = sparse.emit_pool_cell
    emit_GetAddr = sparse.emit_get_addr

    def emit_GetCh(self, stmt: s.GetCh) -> None:
        ptr = self.values[stmt.ptr]
        self.values[stmt] = self.byte_offset(
            ptr, stmt.child.offset_in_parent_cell, self.name_of(stmt)
        )

    def emit_ExternalPtr(self, stmt: s.ExternalPtr) -> None:
        slots = self.layout.params[stmt.arg_id]
        if slots.kind != "ndarray" or len(stmt.indices) != len(slots.shape_slots):
            raise UnsupportedOnBackend(
                stmt, BACKEND, f"{len(stmt.indices)} indices into parameter {stmt.arg_id}"
            )
        b = self.builder
        linear = None
        for index, shape_slot in zip(stmt.indices, slots.shape_slots):
            i = b.sext(self.values[index], I64)
            if linear is None:
                linear = i
                continue
            extent = self.ctx_load(shape_slot, I64)
            linear = b.add(b.mul(linear, extent, flags=("nsw",)), i, flags=("nsw",))
        base = self.ctx_load(slots.slot, PTR)
        dtype = pointee(stmt)
        if linear is None:  # a 0-d array
            self.values[stmt] = base
            return
        self.values[stmt] = b.gep(
            base, [linear], inbounds=True, name=self.name_of(stmt), source_etype=memory_type(dtype)
        )

    def emit_ExternalTensorShape(self, stmt: s.ExternalTensorShape) -> None:
        slots = self.layout.params[stmt.arg_id]
        if slots.kind != "ndarray" or stmt.axis >= len(slots.shape_slots):
            raise UnsupportedOnBackend(stmt, BACKEND, f"no axis {stmt.axis} on that parameter")
        extent = self.ctx_load(slots.shape_slots[stmt.axis], I64)
        self.values[stmt] = self.entry.trunc(extent, value_type(stmt.ret_type))

    # --- control flow -------------------------------------------------------------------------

    def emit_RangeFor(self, stmt: s.RangeFor) -> None:
        begin, end = self.values[stmt.begin], self.values[stmt.end]
        self.counted_loop(stmt, begin, end, stmt.body, reverse=stmt.reversed)

    def emit_While(self, stmt: s.While) -> None:
        b = self.builder
        head = b.append_basic_block("while")
        done = b.append_basic_block("while_done")
        b.branch(head)
        b.position_at_end(head)
        self.loops.append(_Loop(head, done))
        self.block(stmt.body)
        self.loops.pop()
        b.branch(head)
        b.position_at_end(done)

    def emit_If(self, stmt: s.If) -> None:
        b = self.builder
        then_bb = b.append_basic_block("then")
        else_bb = b.append_basic_block("else") if len(stmt.false_block) else None
        merge = b.append_basic_block("endif")
        b.cbranch(self.values[stmt.cond], then_bb, else_bb or merge)
        b.position_at_end(then_bb)
        self.block(stmt.true_block)
        b.branch(merge)
        if else_bb is not None:
            b.position_at_end(else_bb)
            self.block(stmt.false_block)
            b.branch(merge)
        b.position_at_end(merge)

    def emit_Break(self, stmt: s.Break) -> None:
        if not self.loops or self.loops[-1].exit is None:
            raise UnsupportedOnBackend(stmt, BACKEND, "break out of a parallel loop")
        self.builder.branch(self.loops[-1].exit)
        self.dead_block()

    def emit_Continue(self, stmt: s.Continue) -> None:
        if not self.loops:
            raise UnsupportedOnBackend(stmt, BACKEND, "continue outside a loop")
        self.builder.branch(self.loops[-1].next_iteration)
        self.dead_block()

    def emit_Assert(self, stmt: s.Assert) -> None:
        emit_assert(self, stmt)  # debug mode only; see debug_checks.py

    def emit_FuncCall(self, stmt: s.FuncCall) -> None:
        """A call of an IR function (`functions.py`), passing on this function's `ctx`."""
        args = [self.ctx, *(self.values[a] for a in stmt.args)]
        name = self.name_of(stmt) if stmt.ret_type is not None else ""
        self.values[stmt] = self.builder.call(self.callees[stmt.func.name], args, name=name)

    def emit_Return(self, stmt: s.Return) -> None:
        if self.task.task_type is not TaskType.serial:
            raise UnsupportedOnBackend(stmt, BACKEND, "return from a parallel task")
        if len(stmt.values) != self.layout.num_returns:
            raise InternalCompilerError(
                f"return of {len(stmt.values)} values, kernel has {self.layout.num_returns}"
            )
        for k, value in enumerate(stmt.values):
            slot = self.layout.return_slot(k)
            address = self.builder.gep(self.ctx, [ir.Constant(I64, slot)], source_etype=I64)
            self.store(self.values[value], address, value.ret_type)
        self.builder.ret_void()
        self.dead_block()
