"""Every statement kind of the mid-end IR (after `lower_ast`), one small class each.

Names follow Taichi's statement classes without the `Stmt` suffix, and `syntax` follows Taichi's
`print_ir` text, so `<f32> $5 = add $4 $2` reads the same in both. `syntax` is the single source
of truth for both the printer and the parser: `{name}` is a field of the class (operands print as
`$n`, lists as `$1, $2`), and `{ret_type}` is the statement's type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tistudio.ir.ad_stack import (  # noqa: F401 - re-exported: statement kinds like the rest
    AdStackAccAdjoint,
    AdStackAlloca,
    AdStackCount,
    AdStackLoadTop,
    AdStackLoadTopAdj,
    AdStackPop,
    AdStackPush,
)
from tistudio.ir.calls import FuncCall  # noqa: F401 - re-exported, like the autodiff stacks
from tistudio.ir.ops import AtomicOpType, BinaryOpType, TaskType, TernaryOpType, UnaryOpType
from tistudio.ir.schedule import Schedule
from tistudio.ir.simt import *  # noqa: F403 - re-exported: ti.simt.block's statements
from tistudio.ir.snode import SNode
from tistudio.ir.snode_ops import (  # noqa: F401 - re-exported
    GetAddr,
    PoolCell,
    SNodeCellOp,
    SNodeOp,
)
from tistudio.ir.stmt import Block, Stmt
from tistudio.ir.types import PrimitiveType


def _block() -> Block:
    return Block()


# --- values -------------------------------------------------------------------------------


@dataclass(eq=False)
class Const(Stmt):
    """A compile-time constant of a primitive type."""

    value: int | float | bool

    syntax: ClassVar = "const {value}"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class ArgLoad(Stmt):
    """The value of scalar kernel parameter `arg_id`."""

    arg_id: int

    syntax: ClassVar = "argload[{arg_id}]"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class UnaryOp(Stmt):
    """One-operand arithmetic, math function or cast. Casts go to `ret_type`."""

    op: UnaryOpType
    operand: Stmt

    operand_fields: ClassVar = ("operand",)
    syntax: ClassVar = "{op} {operand}"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


@dataclass(eq=False)
class BinaryOp(Stmt):
    """Arithmetic, comparison or bit operation on two values (of one type after `type_check`)."""

    op: BinaryOpType
    lhs: Stmt
    rhs: Stmt

    operand_fields: ClassVar = ("lhs", "rhs")
    syntax: ClassVar = "{op} {lhs} {rhs}"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


@dataclass(eq=False)
class TernaryOp(Stmt):
    """`select(cond, a, b)`: `a` where `cond` is true, else `b`, without branching."""

    op: TernaryOpType
    cond: Stmt
    a: Stmt
    b: Stmt

    operand_fields: ClassVar = ("cond", "a", "b")
    syntax: ClassVar = "{op}({cond}, {a}, {b})"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


@dataclass(eq=False)
class LoopIndex(Stmt):
    """Index number `index` of the enclosing loop or offloaded task `loop`."""

    loop: Stmt
    index: int = 0

    syntax: ClassVar = "loop {loop} index {index}"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class Rand(Stmt):
    """A uniform random `u32` (Taichi's RandStmt, made by `ti.random`): the hash of the launch,
    the task, the loop iteration and a per-iteration call counter (`ir/random.py`). Each call
    advances the counter, so two are never merged, hoisted or deleted."""

    syntax: ClassVar = "rand()"
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False  # an integer: no derivative flows through it


# --- small vectors and matrices (removed by `scalarize`) ----------------------------------


@dataclass(eq=False)
class MatrixInit(Stmt):
    """A tensor value built from scalars, row-major: `[$1, $2, $3]`."""

    values: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("values",)
    syntax: ClassVar = "[{values}]"
    removed_by: ClassVar = "scalarize"


@dataclass(eq=False)
class GetElement(Stmt):
    """Element `index` (row-major, flat) of the tensor value `src`."""

    src: Stmt
    index: int

    operand_fields: ClassVar = ("src",)
    syntax: ClassVar = "get element {src}[{index}]"
    removed_by: ClassVar = "scalarize"


@dataclass(eq=False)
class MatrixPtr(Stmt):
    """Address of element `offset` (flat, may be computed at run time) of the tensor variable
    `origin` (Taichi's "shift ptr")."""

    origin: Stmt
    offset: Stmt

    operand_fields: ClassVar = ("origin", "offset")
    syntax: ClassVar = "shift ptr [{origin} + {offset}]"
    carries_derivative: ClassVar = False
    removed_by: ClassVar = "scalarize"


# --- local variables ----------------------------------------------------------------------


@dataclass(eq=False)
class Alloca(Stmt):
    """A mutable local variable; `ret_type` is a pointer to its value type."""

    syntax: ClassVar = "alloca"
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class LocalLoad(Stmt):
    """Read a local variable."""

    ptr: Stmt

    operand_fields: ClassVar = ("ptr",)
    syntax: ClassVar = "local load [{ptr}]"
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


@dataclass(eq=False)
class LocalStore(Stmt):
    """Write a local variable."""

    ptr: Stmt
    value: Stmt

    operand_fields: ClassVar = ("ptr", "value")
    syntax: ClassVar = "local store [{ptr} <- {value}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


# --- global memory ------------------------------------------------------------------------


@dataclass(eq=False)
class GlobalPtr(Stmt):
    """Address of element `indices` of the field placed at `snode` (before `lower_access`)."""

    snode: SNode
    indices: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("indices",)
    syntax: ClassVar = "global ptr [{snode}], index [{indices}]"
    pure: ClassVar = True
    carries_derivative: ClassVar = False
    removed_by: ClassVar = "lower_access"


@dataclass(eq=False)
class ExternalPtr(Stmt):
    """Address of element `indices` of ndarray parameter `arg_id` (row-major)."""

    arg_id: int
    indices: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("indices",)
    syntax: ClassVar = "external_ptr arg {arg_id}, [{indices}]"
    pure: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class ExternalTensorShape(Stmt):
    """Extent of ndarray parameter `arg_id` along `axis` (`arr.shape[axis]` in a kernel)."""

    arg_id: int
    axis: int

    syntax: ClassVar = "external_tensor_shape_along_axis {axis}, arg {arg_id}"
    pure: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class GlobalLoad(Stmt):
    """Read global memory (a field element, an ndarray element, a temporary)."""

    ptr: Stmt

    operand_fields: ClassVar = ("ptr",)
    syntax: ClassVar = "global load {ptr}"
    lane_safe: ClassVar = True
    interleavable: ClassVar = True


@dataclass(eq=False)
class GlobalStore(Stmt):
    """Write global memory."""

    ptr: Stmt
    value: Stmt

    operand_fields: ClassVar = ("ptr", "value")
    syntax: ClassVar = "global store [{ptr} <- {value}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    lane_safe: ClassVar = True


@dataclass(eq=False)
class AtomicOp(Stmt):
    """Read-modify-write of `dest` with `val`; the value is what `dest` held before."""

    op: AtomicOpType
    dest: Stmt
    val: Stmt

    operand_fields: ClassVar = ("dest", "val")
    syntax: ClassVar = "atomic {op}({dest}, {val})"
    has_side_effects: ClassVar = True
    lane_safe: ClassVar = True


@dataclass(eq=False)
class AtomicCAS(Stmt):
    """Compare-and-swap: if `dest` holds `expected`, write `desired`; the value is what `dest`
    held before (so the swap happened when it equals `expected`). Quantized stores and
    atomics (`lower_quant`) retry it in a loop to update some bits of a word."""

    dest: Stmt
    expected: Stmt
    desired: Stmt

    operand_fields: ClassVar = ("dest", "expected", "desired")
    syntax: ClassVar = "atomic cas({dest}, {expected}, {desired})"
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False  # made by lower_quant, long after autodiff


@dataclass(eq=False)
class GlobalTemporary(Stmt):
    """A slot in the kernel's global-temporary buffer: values that cross offloaded tasks."""

    offset: int

    syntax: ClassVar = "global tmp var (offset = {offset} B)"
    pure: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class ThreadLocalPtr(Stmt):
    """A slot in the running thread's private buffer (see `make_thread_local`)."""

    offset: int

    syntax: ClassVar = "thread local ptr (offset = {offset} B)"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class ThreadLocalArrayPtr(Stmt):
    """Element `index` of an array that starts at byte `offset` of the running thread's private
    buffer, elements of the pointee type (see `privatize_fields`)."""

    offset: int
    index: Stmt

    operand_fields: ClassVar = ("index",)
    syntax: ClassVar = "thread local array ptr (offset = {offset} B) [{index}]"
    pure: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class GetRoot(Stmt):
    """Base address of SNode tree `tree_id`'s memory."""

    tree_id: int = 0

    syntax: ClassVar = "get root [tree {tree_id}]"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class SNodeLookup(Stmt):
    """Address of cell `index` of the `snode` container that starts at `ptr`."""

    snode: SNode
    ptr: Stmt
    index: Stmt

    operand_fields: ClassVar = ("ptr", "index")
    syntax: ClassVar = "[{snode}]::lookup({ptr}, {index})"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class GetCh(Stmt):
    """Address of child `child` inside the parent cell at `ptr`."""

    ptr: Stmt
    child: SNode

    operand_fields: ClassVar = ("ptr",)
    syntax: ClassVar = "get child [{child}] {ptr}"
    pure: ClassVar = True
    lane_safe: ClassVar = True
    interleavable: ClassVar = True
    carries_derivative: ClassVar = False


# --- control flow -------------------------------------------------------------------------


@dataclass(eq=False)
class RangeFor(Stmt):
    """`for i in range(begin, end)`; runs serially unless offloaded as a parallel task."""

    begin: Stmt
    end: Stmt
    body: Block = field(default_factory=_block)
    reversed: bool = False
    serialize: bool = False
    block_dim: int = 0  # `ti.loop_config(block_dim=...)`, kept by `offload`; 0: unset

    operand_fields: ClassVar = ("begin", "end")
    block_fields: ClassVar = (("body", ""),)
    syntax: ClassVar = "for in range({begin}, {end}) reversed={reversed} serialize={serialize}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class StructFor(Stmt):
    """`for I in field`: one iteration per cell of the dense `snode` (the leaf's parent)."""

    snode: SNode
    body: Block = field(default_factory=_block)

    block_fields: ClassVar = (("body", ""),)
    syntax: ClassVar = "struct for in {snode}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    removed_by: ClassVar = "offload"


@dataclass(eq=False)
class If(Stmt):
    """Two-way branch on a `u1` condition."""

    cond: Stmt
    true_block: Block = field(default_factory=_block)
    false_block: Block = field(default_factory=_block)

    operand_fields: ClassVar = ("cond",)
    block_fields: ClassVar = (("true_block", ""), ("false_block", "else"))
    syntax: ClassVar = "if {cond}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    lane_safe: ClassVar = True


@dataclass(eq=False)
class While(Stmt):
    """Loop forever; a `Break` ends it (`while c:` is `while true { if !c: break ... }`)."""

    body: Block = field(default_factory=_block)

    block_fields: ClassVar = (("body", ""),)
    syntax: ClassVar = "while true"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class Break(Stmt):
    """Leave the innermost serial loop."""

    syntax: ClassVar = "break"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    jumps: ClassVar = True


@dataclass(eq=False)
class Continue(Stmt):
    """Go to the next iteration of the innermost loop (or end this iteration of a task)."""

    syntax: ClassVar = "continue"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    jumps: ClassVar = True


@dataclass(eq=False)
class Return(Stmt):
    """Store the kernel's return values and end the kernel."""

    values: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("values",)
    syntax: ClassVar = "return {values}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    jumps: ClassVar = True


@dataclass(eq=False)
class Assert(Stmt):
    """A debug-mode check (`ti.init(debug=True)`): where `cond` is false, the task records the
    failure and stops, and the host raises `TaichiAssertionError` with `message`, a `%`-style
    template, filled in with the values of `args`. Made by user `assert`s, for index bounds and
    integer division by zero (frontend, `insert_debug_checks`), and for autodiff stacks."""

    cond: Stmt
    message: str
    args: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("cond", "args")
    syntax: ClassVar = "assert {cond}, {message}, args [{args}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class Print(Stmt):
    """`print(...)` in a kernel (Taichi's PrintStmt): write `template` with each `{}` or
    `{:spec}` placeholder filled by the next scalar of `values` (see `ir/printing.py`). Back ends
    append a record to the print buffer; the host writes the text after the launch."""

    template: str
    values: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("values",)
    syntax: ClassVar = "print {template} [{values}]"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class Offloaded(Stmt):
    """One task of a kernel, launched on its own: serial code, or a parallel loop over a range.

    For `range_for` the bounds are constants (`const_begin`/`const_end`) or read from global
    temporaries at `begin_offset`/`end_offset` that an earlier serial task wrote. `tls_prologue`
    and `tls_epilogue` run once per thread chunk around the body (see `make_thread_local`).
    """

    task_type: TaskType
    body: Block = field(default_factory=_block)
    begin: int = 0
    end: int = 0
    const_begin: bool = True
    const_end: bool = True
    snode: SNode | None = None
    tls_size: int = 0
    tls_prologue: Block = field(default_factory=_block)
    tls_epilogue: Block = field(default_factory=_block)
    block_dim: int = 0  # the workgroup size `ti.loop_config` asked for; 0: the back end's
    schedule: Schedule = field(default_factory=Schedule)  # set by the back ends' last passes

    block_fields: ClassVar = (
        ("tls_prologue", "tls prologue"),
        ("body", "body"),
        ("tls_epilogue", "tls epilogue"),
    )
    syntax: ClassVar = "offloaded {task_type}"
    is_void: ClassVar = False
    has_side_effects: ClassVar = True

    def range_text(self) -> str:
        """`(0, 128)` or `(tmp(offset=0B), tmp(offset=4B))`, as Taichi prints task bounds."""
        b = str(self.begin) if self.const_begin else f"tmp(offset={self.begin}B)"
        e = str(self.end) if self.const_end else f"tmp(offset={self.end}B)"
        return f"({b}, {e})"


# Every statement kind: each `Stmt` subclass this module defines or re-exports, in order.
ALL_STATEMENTS: tuple[type[Stmt], ...] = tuple(
    value
    for value in list(globals().values())
    if isinstance(value, type) and issubclass(value, Stmt) and value is not Stmt
)


def is_const(stmt: Stmt, value: int | float | None = None) -> bool:
    """True if `stmt` is a `Const` (equal to `value`, when given)."""
    return isinstance(stmt, Const) and (value is None or stmt.value == value)


def const_of(value: int | float | bool, dtype: PrimitiveType) -> Const:
    """A new constant of `dtype`, with `value` normalised to the type (wrapped ints, floats)."""
    return Const(normalize_value(value, dtype), ret_type=dtype)


def normalize_value(value: int | float | bool, dtype: PrimitiveType) -> int | float | bool:
    """Represent `value` as `dtype` holds it: fixed-width wraparound for integers."""
    if dtype.kind == "bool":
        return bool(value)
    if dtype.is_float:
        return float(value)
    v = int(value) & ((1 << dtype.bits) - 1)
    if dtype.kind == "int" and v >= 1 << (dtype.bits - 1):
        v -= 1 << dtype.bits
    return v
