"""Final IR -> WGSL: one compute shader per offloaded task.

A serial task is a shader of one invocation. A range_for task runs its body for every index in
`[begin, end)` as a grid-stride loop: invocation `g` of the grid takes `begin + g`, then adds the
grid's size, so any range fits in at most `Caps.max_groups` workgroups (WebGPU allows 65535 per
dimension); a task using `ti.simt.block` (a barrier, a shared array) is a tiled loop instead,
whose invocations all reach each barrier (simt.py). A task that `make_thread_local` gave a
thread-local slot accumulates in a private variable, and its epilogue reduces those variables
across the workgroup in `var<workgroup>` memory, so one atomic per workgroup reaches global
memory.

Values are named after the printed IR (`s5` is `$5`) and each new user line is a comment, so
the WGSL reads next to the IR and the Python source.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu import ieee, random, simt, sparse, wgsl
from tistudio.backends.webgpu.adstack import AdStackEmitter
from tistudio.backends.webgpu.debug_checks import emit_assert
from tistudio.backends.webgpu.f64math import F32_MATH, F64_MATH
from tistudio.backends.webgpu.memory import MemoryEmitter, Ptr, Unexpressible
from tistudio.backends.webgpu.printing import emit_print
from tistudio.backends.webgpu.resources import ArgsLayout, Caps, ShaderResources
from tistudio.backends.webgpu.rounding import ROUNDING_HELPERS
from tistudio.backends.webgpu.simt import SimtEmitter
from tistudio.ir import sparse as sparse_layout
from tistudio.ir import statements as s
from tistudio.ir.ops import AtomicOpType, TaskType
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.stmt import Block, Stmt, pointee, walk
from tistudio.ir.types import PrimitiveType
from tistudio.ir.verifier import InternalCompilerError

BACKEND = "gpu"
# helper functions by name, their infinity and NaN constants hidden from drivers (wgsl.py)
HELPERS = {
    name: wgsl.opaque_specials(text)
    for name, text in {
        **wgsl.PRELUDE,
        **F64_MATH,
        **F32_MATH,
        **ieee.IEEE_HELPERS,
        **ROUNDING_HELPERS,
        **random.RANDOM_HELPERS,
    }.items()
}
_REDUCIBLE = {
    AtomicOpType.add: AtomicOpType.add,
    AtomicOpType.sub: AtomicOpType.add,  # partial differences add up; the atomic subtracts
    AtomicOpType.max: AtomicOpType.max,
    AtomicOpType.min: AtomicOpType.min,
    AtomicOpType.bit_and: AtomicOpType.bit_and,
    AtomicOpType.bit_or: AtomicOpType.bit_or,
    AtomicOpType.bit_xor: AtomicOpType.bit_xor,
}


class TaskEmitter(MemoryEmitter, AdStackEmitter, SimtEmitter):
    """Emits one offloaded task as one WGSL module. Made per task, never reused. Float
    operations keep IEEE semantics where drivers may not, in every mode (see ieee.py: the
    floating-point contract never lets NaN or infinities be assumed away); `fast_math` only
    lets f32 `sin`/`cos`/`tan`, `sqrt` and divisions by a value be the driver's, and products
    be fused with the additions that consume them (docs/compiler-contract.md)."""

    def __init__(
        self,
        task: s.Offloaded,
        title: str,
        args: ArgsLayout,
        caps: Caps,
        numbers: dict[Stmt, int],
        uses: dict[Stmt, int],
        windows: dict[str, int],
        fast_math: bool = True,
        task_number: int = 0,
    ) -> None:
        self.task, self.title, self.args, self.caps = task, title, args, caps
        self.task_number = task_number  # its place in the kernel: `ti.random` hashes it
        self.fast_math = fast_math
        # products an addition consumes, hidden from the driver's fusion (ieee.uncontracted);
        # with fast_math (and Caps.contract) the driver may fuse them, as Taichi's CUDA does
        contract = fast_math and caps.contract
        self.contractible = set() if contract else ieee.contractible_products(task)
        self.numbers, self.uses = numbers, uses
        self.resources = ShaderResources(caps, dict(windows))
        self.body: list[str] = []
        self.depth = 1
        self.values: dict[Stmt, str] = {}
        self.ptrs: dict[Stmt, Ptr] = {}
        self.locals: dict[Stmt, str] = {}
        self.loop_vars: dict[Stmt, str] = {}
        self.helpers: list[str] = []
        # float zero constants by statement, as literals: `x * 0.0`, `0.0 / x` and `x / 0.0`
        # are spelled out from them (ieee.binary), every other use sees the opaque value
        self.zeros: dict[Stmt, str] = {}
        self.reduction_types: set[str] = set()
        self.workgroup_vars: list[str] = []  # `ti.simt.block.SharedArray`s (simt.py)
        self.atomic_shared: set[Stmt] = set()  # those of them with atomic<T> elements
        self.guard: str | None = None  # a tiled task's flag for its partial tile (simt.py)
        self.uses_args = False
        self.draws = False  # calls `ti.random`: needs the counter `random.COUNTER` (shader.py)
        self.unknowns: list[str] = []  # `ti_never`, `ti_zero` if the shader reads them (shader.py)
        self.hoisted: set[Stmt] = set()
        self.last_line: tuple[str, int] | None = None
        self.counter = 0
        self.suffix = ""  # of the names of one copy of a jammed task's rows (jam_rows.py)
        self.assert_numbers: dict[s.Assert, int] = {}  # see ir/assertions.assert_number
        self.print_ids: dict[Stmt, int] = {}  # see ir/printing.print_id
        # the lanes of a vec4 loop: loads and stores served by vectors (see vectorize.py)
        self.lane_loads: dict[Stmt, str] = {}
        self.lane_stores: dict[Stmt, str] = {}
        self.lane_flags: dict[Stmt, str] = {}  # stores in a branch: `flag = true;` after

    # --- text ---------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.body.append("    " * self.depth + text)

    @contextlib.contextmanager
    def indent(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def name_of(self, stmt: Stmt) -> str:
        number = self.numbers.get(stmt)
        return f"s{number}{self.suffix}" if number is not None else self.fresh("v")

    def value(self, stmt: Stmt) -> str:
        if stmt not in self.values:
            raise InternalCompilerError(f"{type(stmt).__name__} used before its definition")
        return self.values[stmt]

    def let(self, stmt: Stmt, expr: str) -> None:
        name = self.name_of(stmt)
        self.line(f"let {name}: {self.reg(stmt, stmt.ret_type)} = {expr};")
        self.values[stmt] = name

    def reg(self, stmt: Stmt, dtype: object) -> str:
        """The WGSL type of `dtype`, or UnsupportedOnBackend naming the type and the line."""
        if not isinstance(dtype, PrimitiveType):
            raise InternalCompilerError(f"{type(stmt).__name__} has type {dtype}")
        reg = wgsl.wgsl_type(dtype)
        if reg is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"{dtype} has no WGSL type")
        feature = wgsl.TYPE_FEATURE.get(dtype.name)
        if feature and not self.caps.has(feature):
            raise UnsupportedOnBackend(
                stmt,
                BACKEND,
                f"{dtype} needs the adapter feature {feature}, which "
                f"{self.caps.description} does not offer",
            )
        return reg

    def comment_source(self, stmt: Stmt) -> None:
        loc = stmt.loc
        if loc is None or (loc.filename, loc.line) == self.last_line:
            return
        self.last_line = (loc.filename, loc.line)
        text = loc.source_line.strip()
        self.line(f"// {os.path.basename(loc.filename)}:{loc.line}" + (f": {text}" if text else ""))

    # --- walking ------------------------------------------------------------------------

    def emit(self, stmt: Stmt) -> None:
        method = getattr(self, f"emit_{type(stmt).__name__}", None)
        if method is None:
            raise UnsupportedOnBackend(stmt, backend=BACKEND)
        self.comment_source(stmt)
        try:
            if self.guard is not None and isinstance(stmt, simt.GUARDED):
                simt.emit_guarded(self, stmt, method)
            else:
                method(stmt)
        except Unexpressible as e:
            raise UnsupportedOnBackend(stmt, BACKEND, str(e)) from None

    def block(self, block: Block) -> None:
        for stmt in block:
            self.emit(stmt)
            if isinstance(stmt, (s.Break, s.Continue, s.Return)):
                return  # WGSL rejects nothing after a jump, but nothing after it can run

    # --- values -------------------------------------------------------------------------

    def emit_Const(self, stmt: s.Const) -> None:
        self.constant(stmt, stmt.value)

    def constant(self, stmt: Stmt, value: int | float | bool) -> None:
        """`stmt` is the constant `value` of its type: a literal, or a float made opaque to
        drivers (`ieee.opaque`), so that they see no constant they could fold."""
        reg = self.reg(stmt, stmt.ret_type)
        literal = wgsl.literal(value, stmt.ret_type)
        opaque = ieee.opaque(literal, stmt.ret_type)
        if stmt.ret_type.is_float and value == 0:
            self.zeros[stmt] = literal
        if opaque is None:
            self.values[stmt] = literal
            return
        name = f"c{self.numbers.get(stmt, self.fresh(''))}"
        self.line(f"let {name}: {reg} = {opaque};")
        self.values[stmt] = name

    def emit_ArgLoad(self, stmt: s.ArgLoad) -> None:
        member = self.args.scalars.get(stmt.arg_id)
        if member is None:
            raise UnsupportedOnBackend(stmt, BACKEND, "argload of an ndarray parameter")
        self.uses_args = True
        reg = self.reg(stmt, stmt.ret_type)
        raw = f"args.{member}"
        self.values[stmt] = {"bool": f"({raw} != 0u)", "f16": f"f16({raw})"}.get(reg, raw)

    def emit_UnaryOp(self, stmt: s.UnaryOp) -> None:
        src, dst = stmt.operand.ret_type, stmt.ret_type
        self.reg(stmt, src)
        if isinstance(stmt.operand, s.Const):  # a cast of a constant is a constant
            folded = wgsl.folded_cast(stmt.op, src, dst, stmt.operand.value)
            if folded is not None:
                self.constant(stmt, folded)
                return
        x = self.value(stmt.operand)
        f64 = self.caps.has("shader-f64")
        expr = ieee.unary(stmt.op, src, dst, x, f64, exact=not self.fast_math)
        expr = expr or wgsl.unary(stmt.op, src, dst, x)
        if expr is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"{stmt.op.value} from {src} to {dst}")
        self.let(stmt, expr)

    def emit_BinaryOp(self, stmt: s.BinaryOp) -> None:
        dtype = stmt.lhs.ret_type
        self.reg(stmt, dtype)
        a, b = self.value(stmt.lhs), self.value(stmt.rhs)
        if stmt.op in (B.mul, B.div, B.truediv):  # their IEEE spelling for a zero (ieee.py)
            a, b = self.zeros.get(stmt.lhs, a), self.zeros.get(stmt.rhs, b)
        expr = ieee.binary(stmt.op, dtype, a, b, self.caps.has("shader-f64"), self.fast_math)
        expr = expr or wgsl.binary(stmt.op, dtype, a, b)
        if expr is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"{stmt.op.value} on {dtype}")
        if stmt in self.contractible:
            expr = ieee.uncontracted(expr, dtype)
        self.let(stmt, expr)

    def need_helper(self, expr: str) -> None:
        """Add the helper functions `expr` calls (and those they call) to the module; the
        shader calls it once on the whole body (shader.py), so no expression site needs to."""
        for name, text in HELPERS.items():
            if f"{name}(" in expr and text not in self.helpers:
                self.helpers.append(text)
                self.need_helper(text.split("{", 1)[1])

    def emit_TernaryOp(self, stmt: s.TernaryOp) -> None:
        cond, a, b = (self.value(x) for x in (stmt.cond, stmt.a, stmt.b))
        self.let(stmt, f"select({b}, {a}, {cond})")

    def emit_LoopIndex(self, stmt: s.LoopIndex) -> None:
        if stmt.index != 0 or stmt.loop not in self.loop_vars:
            raise UnsupportedOnBackend(stmt, BACKEND, "only index 0 of an enclosing range loop")
        self.let(stmt, self.loop_vars[stmt.loop])

    # --- local variables ----------------------------------------------------------------

    def emit_Alloca(self, stmt: s.Alloca) -> None:
        dtype = pointee(stmt)
        name = self.name_of(stmt)
        # a variable starts at zero each time its declaration runs, as in Taichi
        self.line(f"var {name}: {self.reg(stmt, dtype)} = {wgsl.zero(dtype)};")
        self.locals[stmt] = name

    def emit_LocalLoad(self, stmt: s.LocalLoad) -> None:
        self.let(stmt, self.locals[stmt.ptr])

    def emit_LocalStore(self, stmt: s.LocalStore) -> None:
        self.line(f"{self.locals[stmt.ptr]} = {self.value(stmt.value)};")

    # --- global memory ------------------------------------------------------------------

    def emit_GlobalLoad(self, stmt: s.GlobalLoad) -> None:
        if stmt in self.hoisted:
            return
        if stmt in self.lane_loads:
            self.let(stmt, self.lane_loads[stmt])
            return
        if stmt.ptr in self.locals:
            self.let(stmt, self.locals[stmt.ptr])
            return
        if _is_slot(stmt.ptr):  # a pointer cell's slot: atomically, as activations write it
            sparse.emit_slot_load(self, stmt, self.ptrs[stmt.ptr])
            return
        self.reg(stmt, stmt.ret_type)
        name = self.name_of(stmt)
        self.load_global(name, self.ptrs[stmt.ptr], stmt.ret_type)
        self.values[stmt] = name

    def emit_GlobalStore(self, stmt: s.GlobalStore) -> None:
        value = self.value(stmt.value)
        if stmt.ptr in self.locals or stmt in self.lane_stores:
            self.line(f"{self.locals.get(stmt.ptr) or self.lane_stores[stmt]} = {value};")
            if stmt in self.lane_flags:
                self.line(f"{self.lane_flags[stmt]} = true;")
            return
        self.reg(stmt, stmt.value.ret_type)
        self.store_global(self.ptrs[stmt.ptr], stmt.value.ret_type, value)

    def emit_AtomicOp(self, stmt: s.AtomicOp) -> None:
        dtype = stmt.val.ret_type
        reg = self.reg(stmt, dtype)
        name, value = self.name_of(stmt), self.value(stmt.val)
        self.values[stmt] = name
        if stmt.dest in self.locals:  # a private variable needs no atomicity
            var = self.locals[stmt.dest]
            new = wgsl.binary(stmt.op.binary, dtype, var, value)
            if new is None:
                raise UnsupportedOnBackend(stmt, BACKEND, f"atomic {stmt.op.value} on {dtype}")
            self.line(f"let {name}: {reg} = {var};")
            self.line(f"{var} = {new};")
            return
        ptr = self.ptrs[stmt.dest]
        if self.in_epilogue and self.reducible(stmt):
            self.workgroup_reduction(stmt, ptr, dtype, value)
            return
        self.atomic_global(name, stmt.op, ptr, dtype, value)

    def emit_AtomicCAS(self, stmt: s.AtomicCAS) -> None:
        expected, desired = self.value(stmt.expected), self.value(stmt.desired)
        self.values[stmt] = name = self.name_of(stmt)
        self.compare_exchange(name, self.ptrs[stmt.dest], stmt.ret_type, expected, desired)

    in_epilogue = False

    def reducible(self, stmt: s.AtomicOp) -> bool:
        return stmt.op in _REDUCIBLE and not self.uses.get(stmt) and stmt.val.ret_type.bits >= 32

    def workgroup_reduction(
        self, stmt: s.AtomicOp, ptr: Ptr, dtype: PrimitiveType, value: str
    ) -> None:
        """Combine every invocation's `value` in workgroup memory (a tree of halving steps),
        then let invocation 0 apply the atomic once for the whole workgroup."""
        reg = wgsl.wgsl_type(dtype)
        assert reg is not None
        self.reduction_types.add(reg)
        shared = f"reduce_{reg}"
        combine = wgsl.binary(
            _REDUCIBLE[stmt.op].binary, dtype, f"{shared}[lid]", f"{shared}[lid + step]"
        )
        self.line("workgroupBarrier();")
        self.line(f"{shared}[lid] = {value};")
        self.line("workgroupBarrier();")
        half = self.caps.workgroup_size // 2
        self.line(f"for (var step = {half}u; step > 0u; step = step >> 1u) {{")
        self.line(f"    if (lid < step) {{ {shared}[lid] = {combine}; }}")
        self.line("    workgroupBarrier();")
        self.line("}")
        self.line("if (lid == 0u) {")
        with self.indent():
            self.atomic_global(self.name_of(stmt), stmt.op, ptr, dtype, f"{shared}[0]")
        self.line("}")

    def emit_GlobalTemporary(self, stmt: s.GlobalTemporary) -> None:
        self.ptrs[stmt] = Ptr("gtmp", f"{stmt.offset}u")

    def emit_ThreadLocalPtr(self, stmt: s.ThreadLocalPtr) -> None:
        if stmt.offset >= self.task.tls_size:
            raise InternalCompilerError(f"thread local ptr at offset {stmt.offset} outside tls")
        self.locals[stmt] = f"tls{stmt.offset}"

    def emit_ThreadLocalArrayPtr(self, stmt: s.ThreadLocalArrayPtr) -> None:
        raise UnsupportedOnBackend(stmt, BACKEND, "privatize_fields runs for the CPU only")

    emit_Print = emit_print  # a record in the print buffer: see printing.py

    def emit_GetRoot(self, stmt: s.GetRoot) -> None:
        self.ptrs[stmt] = Ptr(f"tree{stmt.tree_id}", "0u")

    def emit_SNodeLookup(self, stmt: s.SNodeLookup) -> None:
        base = self.ptrs[stmt.ptr]
        if s.is_const(stmt.index, 0):
            self.ptrs[stmt] = base
            return
        term = f"u32({self.value(stmt.index)}) * {sparse_layout.lookup_stride(stmt.snode)}u"
        self.address(
            stmt, base.resource, term if base.offset == "0u" else f"{base.offset} + {term}"
        )

    def emit_SNodeCellOp(self, stmt: s.SNodeCellOp) -> None:
        sparse.emit_cell_op(self, stmt)  # ti.activate, is_active, append, ... (sparse.py)

    def emit_PoolCell(self, stmt: s.PoolCell) -> None:
        sparse.emit_pool_cell(self, stmt)

    def emit_GetAddr(self, stmt: Stmt) -> None:
        raise UnsupportedOnBackend(stmt, BACKEND, "ti.get_addr (an address in the CPU's memory)")

    def emit_GetCh(self, stmt: s.GetCh) -> None:
        base, offset = self.ptrs[stmt.ptr], stmt.child.offset_in_parent_cell
        if offset == 0:
            self.ptrs[stmt] = base
        elif base.offset == "0u":
            self.ptrs[stmt] = Ptr(base.resource, f"{offset}u")
        else:
            self.address(stmt, base.resource, f"{base.offset} + {offset}u")

    def address(self, stmt: Stmt, resource: str, expr: str) -> None:
        name = self.name_of(stmt)
        self.line(f"let {name}: u32 = {expr};")
        self.ptrs[stmt] = Ptr(resource, name)

    def emit_ExternalPtr(self, stmt: s.ExternalPtr) -> None:
        dtype = pointee(stmt)
        self.reg(stmt, dtype)
        linear = ""
        for axis, index in enumerate(stmt.indices):
            i = f"u32({self.value(index)})"
            if not linear:
                linear = i
                continue
            extent = self.shape_member(stmt, stmt.arg_id, axis)
            linear = f"({linear} * u32({extent}) + {i})"
        if not linear:
            self.ptrs[stmt] = Ptr(f"arg{stmt.arg_id}", "0u")
            return
        self.address(stmt, f"arg{stmt.arg_id}", f"{linear} * {max(1, dtype.bits // 8)}u")

    def shape_member(self, stmt: Stmt, arg_id: int, axis: int) -> str:
        member = self.args.shapes.get((arg_id, axis))
        if member is None:
            raise UnsupportedOnBackend(stmt, BACKEND, f"no axis {axis} on parameter {arg_id}")
        self.uses_args = True
        return f"args.{member}"

    def emit_ExternalTensorShape(self, stmt: s.ExternalTensorShape) -> None:
        self.let(stmt, self.shape_member(stmt, stmt.arg_id, stmt.axis))

    # --- control flow -------------------------------------------------------------------

    def emit_RangeFor(self, stmt: s.RangeFor) -> None:
        begin, end = self.value(stmt.begin), self.value(stmt.end)
        reg = self.reg(stmt, stmt.begin.ret_type)
        i = f"{self.name_of(stmt)}_i"
        self.loop_vars[stmt] = i
        self.hoist_loads(stmt)
        if not stmt.reversed:
            self.line(f"for (var {i}: {reg} = {begin}; {i} < {end}; {i} = {i} + 1) {{")
        else:  # step before the body, so `continue` needs no continuing block and i never wraps
            self.line(f"for (var {i}: {reg} = {end}; {i} > {begin}; ) {{")
            self.line(f"    {i} = {i} - 1;")
        with self.indent():
            self.block(stmt.body)
        self.line("}")

    def hoist_loads(self, loop: s.RangeFor) -> None:
        """Load loop-invariant addresses once, before a loop that writes no global memory
        (drivers keep such loads in the loop: the buffers are read_write, so may alias)."""
        body = loop.body
        if any(isinstance(x, (s.GlobalStore, s.AtomicOp)) for x in walk(body)):
            return
        for stmt in list(body):
            if isinstance(stmt, s.GlobalLoad) and stmt.ptr in self.ptrs:
                self.emit(stmt)
                self.hoisted.add(stmt)

    def emit_While(self, stmt: s.While) -> None:
        self.line("loop {")
        with self.indent():
            self.block(stmt.body)
        self.line("}")

    def emit_If(self, stmt: s.If) -> None:
        self.line(f"if ({self.value(stmt.cond)}) {{")
        with self.indent():
            self.block(stmt.true_block)
        if len(stmt.false_block):
            self.line("} else {")
            with self.indent():
                self.block(stmt.false_block)
        self.line("}")

    def emit_Break(self, stmt: s.Break) -> None:
        self.line("break;")

    def emit_Continue(self, stmt: s.Continue) -> None:
        self.line("continue;")

    def emit_Assert(self, stmt: s.Assert) -> None:
        emit_assert(self, stmt)  # debug mode only; see debug_checks.py

    def emit_FuncCall(self, stmt: s.FuncCall) -> None:
        # WGSL forbids recursion; the pipeline refuses such a kernel before it gets here
        raise UnsupportedOnBackend(stmt, BACKEND, "a recursive ti.real_func (WGSL forbids it)")

    def emit_Rand(self, stmt: s.Rand) -> None:
        """Call number `ti_rand_calls` of this iteration, hashed as `ir/random.py` says: the
        index is the task's loop index (0 in a serial task), as on the CPU."""
        assert self.args.random is not None, "a kernel that draws has a random key"
        self.uses_args = self.draws = True
        key = random.task_key(f"args.{self.args.random}", self.task_number)
        loop = self.loop_vars.get(self.task)
        index = "0u" if loop is None else f"bitcast<u32>({loop})"
        self.let(stmt, f"ti_rand({key}, {index}, {random.COUNTER})")
        self.line(f"{random.COUNTER} = {random.COUNTER} + 1u;")

    def emit_Return(self, stmt: s.Return) -> None:
        if self.task.task_type is not TaskType.serial:
            raise UnsupportedOnBackend(stmt, BACKEND, "return from a parallel task")
        for k, value in enumerate(stmt.values):
            dtype = value.ret_type
            self.reg(stmt, dtype)
            self.store_global(Ptr("ret", f"{8 * k}u"), *_widened(dtype, self.value(value)))
        self.line("return;")


def _is_slot(ptr: Stmt) -> bool:
    return isinstance(ptr, s.SNodeLookup) and ptr.snode.type == "pointer"


def _widened(dtype: PrimitiveType, value: str) -> tuple[PrimitiveType, str]:
    """Return slots hold 32 or 64 bits: narrow values go as their i32/u32 register."""
    from tistudio.ir.types import i32, u32

    if dtype.kind == "bool":
        return u32, f"select(0u, 1u, {value})"
    if wgsl.is_narrow(dtype):
        return (i32 if dtype.kind == "int" else u32), value
    return dtype, value
