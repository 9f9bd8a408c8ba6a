"""Statements on sparse SNodes' cells (`ti.activate`, `ti.is_active`, ...) and pointer pools.

`SNodeOp` is what the frontend makes; `lower_access` walks down to the node's container and
leaves an `SNodeCellOp` there, and turns each step into a pointer level into a slot load and
a `PoolCell`. Memory layout and meaning: `ir/sparse.py`; `ir/statements.py` re-exports these
with the other statement kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tistudio.ir.ops import SNodeOpType
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Stmt


@dataclass(eq=False)
class SNodeOp(Stmt):
    """`ti.activate`, `ti.deactivate`, `ti.is_active`, `ti.append` or `ti.length` (`op`) on
    the cell `indices` (in the node's own index space) of the sparse `snode`, before
    `lower_access` walks down to it (Taichi's SNodeOpStmt). is_active, append and length give
    an i32 (append: the index it appended at)."""

    op: SNodeOpType
    snode: SNode
    indices: list[Stmt] = field(default_factory=list)

    operand_fields: ClassVar = ("indices",)
    syntax: ClassVar = "{op} [{snode}], index [{indices}]"
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False

    @property
    def is_void(self) -> bool:  # type: ignore[override] - activate and deactivate give nothing
        return self.ret_type is None

    removed_by: ClassVar = "lower_access"


@dataclass(eq=False)
class SNodeCellOp(Stmt):
    """The same `op` on cell `index` of the container of `snode` that starts at `ptr` (for a
    pointer: its slots): what `lower_access` leaves and the back ends implement."""

    op: SNodeOpType
    snode: SNode
    ptr: Stmt
    index: Stmt

    operand_fields: ClassVar = ("ptr", "index")
    syntax: ClassVar = "{op} [{snode}]::cell({ptr}, {index})"
    has_side_effects: ClassVar = True
    carries_derivative: ClassVar = False

    @property
    def is_void(self) -> bool:  # type: ignore[override] - activate and deactivate give nothing
        return self.ret_type is None


@dataclass(eq=False)
class PoolCell(Stmt):
    """Address of cell `slot` of pointer `snode`'s pool: the child cell a slot points at (slot
    0, an inactive cell, is the pool's all-zero ambient cell)."""

    snode: SNode
    slot: Stmt

    operand_fields: ClassVar = ("slot",)
    syntax: ClassVar = "[{snode}]::pool({slot})"
    pure: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class GetAddr(Stmt):
    """`ti.get_addr(x, I)`: the address of the field element at `ptr`, as a u64."""

    ptr: Stmt

    operand_fields: ClassVar = ("ptr",)
    syntax: ClassVar = "get addr {ptr}"
    pure: ClassVar = True
    carries_derivative: ClassVar = False
