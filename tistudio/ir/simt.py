"""Workgroup-level statements: `ti.simt.block`'s shared arrays, barrier and thread index.

A GPU runs a parallel loop in workgroups of `block_dim` invocations (`ti.loop_config`). The
invocations of one workgroup can share a small, fast array (WGSL's `var<workgroup>`, CUDA's
`__shared__`) and wait for each other at a barrier; the classic CUDA n-body kernel uses both to
read each tile of bodies from memory once per workgroup instead of once per thread.

The frontend's `FrontendSharedArray`, `SharedIndexExpr` and `SimtExpr` (in `ir/frontend.py`)
become these mid-end statements in `lower_ast`; `ir/statements.py` re-exports them as statement
kinds.

Their traits keep the passes honest: a barrier and a store to a shared array have side effects
(never dead, never moved past one another), and a shared load is not `pure` (another invocation
may have written the element since, so `cse` must not merge two loads across a barrier).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tistudio.ir.ops import AtomicOpType
from tistudio.ir.stmt import Stmt

__all__ = ["BlockBarrier", "SharedArray", "SharedAtomic", "SharedLoad", "SharedStore", "ThreadIdx"]

# --- mid-end statements ---------------------------------------------------------------------


@dataclass(eq=False)
class SharedArray(Stmt):
    """A workgroup-shared array of `size` elements; `ret_type` is a pointer to its element."""

    size: int

    syntax: ClassVar = "shared array [{size}]"
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class SharedLoad(Stmt):
    """Element `index` of shared array `array` (a plain read, not atomic)."""

    array: Stmt
    index: Stmt

    operand_fields: ClassVar = ("array", "index")
    syntax: ClassVar = "shared load {array}[{index}]"


@dataclass(eq=False)
class SharedStore(Stmt):
    """Write `value` to element `index` of shared array `array` (a plain write)."""

    array: Stmt
    index: Stmt
    value: Stmt

    operand_fields: ClassVar = ("array", "index", "value")
    syntax: ClassVar = "shared store {array}[{index}] <- {value}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class SharedAtomic(Stmt):
    """Atomic read-modify-write of element `index` of `array` with `val`; the value is what
    the element held before (`s[0] += v` in a kernel, as on a field)."""

    op: AtomicOpType
    array: Stmt
    index: Stmt
    val: Stmt

    operand_fields: ClassVar = ("array", "index", "val")
    syntax: ClassVar = "shared atomic {op}({array}[{index}], {val})"
    has_side_effects: ClassVar = True


@dataclass(eq=False)
class BlockBarrier(Stmt):
    """`ti.simt.block.sync()`: every invocation of the workgroup waits here for the others,
    and their shared-array writes before it are seen by the reads after it."""

    syntax: ClassVar = "block barrier"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class ThreadIdx(Stmt):
    """The invocation's index in its workgroup (`kind` "local", `ti.simt.block.thread_idx`)
    or in the whole dispatch ("global", `ti.simt.block.global_thread_idx`)."""

    kind: str

    syntax: ClassVar = "thread index {kind}"
    carries_derivative: ClassVar = False
