"""The autodiff stack statements: made by `auto_diff`, sized by `determine_ad_stack_size`.

Reverse-mode autodiff records a value computed inside a serial loop on every iteration and reads
the records back, newest first, in the reversed loop. These statements make and work on such a
per-thread stack; `ir/statements.py` re-exports them with the other statement kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tistudio.ir.stmt import Stmt


@dataclass(eq=False)
class AdStackAlloca(Stmt):
    """A per-thread stack of (primal, adjoint) pairs of type `ret_type`: reverse-mode autodiff
    records a value computed inside a loop on every iteration and reads the records back, newest
    first, in the reversed loop. `max_size` entries; 0 until `determine_ad_stack_size` runs."""

    max_size: int = 0

    syntax: ClassVar = "stack alloc (max_size={max_size})"
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackPush(Stmt):
    """Push `value` (with adjoint 0) on `stack`."""

    stack: Stmt
    value: Stmt

    operand_fields: ClassVar = ("stack", "value")
    syntax: ClassVar = "stack push {stack}, val = {value}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackPop(Stmt):
    """Drop the newest entry of `stack`."""

    stack: Stmt

    operand_fields: ClassVar = ("stack",)
    syntax: ClassVar = "stack pop {stack}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackLoadTop(Stmt):
    """The primal value of the newest entry of `stack`."""

    stack: Stmt

    operand_fields: ClassVar = ("stack",)
    syntax: ClassVar = "stack load top {stack}"
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackLoadTopAdj(Stmt):
    """The adjoint accumulated in the newest entry of `stack`."""

    stack: Stmt

    operand_fields: ClassVar = ("stack",)
    syntax: ClassVar = "stack load top adj {stack}"
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackCount(Stmt):
    """How many entries `stack` holds (debug mode checks it before a push)."""

    stack: Stmt

    operand_fields: ClassVar = ("stack",)
    syntax: ClassVar = "stack count {stack}"
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False


@dataclass(eq=False)
class AdStackAccAdjoint(Stmt):
    """Add `value` to the adjoint of the newest entry of `stack`."""

    stack: Stmt
    value: Stmt

    operand_fields: ClassVar = ("stack", "value")
    syntax: ClassVar = "stack acc adj {stack}, val = {value}"
    is_void: ClassVar = True
    has_side_effects: ClassVar = True
    uses_ad_stack: ClassVar = True
    carries_derivative: ClassVar = False
