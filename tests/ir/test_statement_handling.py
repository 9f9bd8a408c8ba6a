"""Every statement kind is handled by the interpreter, both back ends and reverse-mode autodiff.

A new statement class forgotten in one of them would otherwise fail only when a kernel first
uses it, or, in autodiff, give a zero gradient in silence. Handling means a method named after
the class (`run_X`, `emit_X`, `reverse_X`; one that raises "not supported" or "cannot be
differentiated" counts) or a trait of the class that makes one unnecessary (`removed_by` for
the back ends, `carries_derivative = False` for autodiff). See docs/adding-a-statement.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from tistudio.backends.llvm.codegen import TaskEmitter as LlvmEmitter
from tistudio.backends.webgpu.emitter import TaskEmitter as WgslEmitter
from tistudio.ir import ALL_STATEMENTS, Block, Stmt, const_of, statements
from tistudio.ir.interpreter import Interpreter
from tistudio.ir.types import f32
from tistudio.ir.verifier import InternalCompilerError
from tistudio.passes.autodiff.forward import ForwardBlock
from tistudio.passes.autodiff.reverse import ReverseBlock


def _ids(cls: type[Stmt]) -> str:
    return cls.__name__


def test_all_statements_is_every_statement_class() -> None:
    """`ALL_STATEMENTS` is derived, so a class added to `ir/statements.py` is in it."""
    declared = {
        value
        for value in vars(statements).values()
        if isinstance(value, type) and issubclass(value, Stmt) and value is not Stmt
    }
    assert set(ALL_STATEMENTS) == declared
    assert len(ALL_STATEMENTS) == len(declared)


@pytest.mark.parametrize("cls", ALL_STATEMENTS, ids=_ids)
def test_the_interpreter_runs_it(cls: type[Stmt]) -> None:
    assert hasattr(Interpreter, f"run_{cls.__name__}")


@pytest.mark.parametrize("emitter", [LlvmEmitter, WgslEmitter], ids=["llvm", "webgpu"])
@pytest.mark.parametrize("cls", ALL_STATEMENTS, ids=_ids)
def test_each_back_end_emits_it(cls: type[Stmt], emitter: type) -> None:
    """A back end emits each statement inside a task; it compiles the task (`Offloaded`)
    itself, and never sees a statement that a pass before it removes."""
    if cls is statements.Offloaded or cls.removed_by:
        return
    assert hasattr(emitter, f"emit_{cls.__name__}"), (
        f"{emitter.__module__} has no emit_{cls.__name__}: emit it, or raise "
        "UnsupportedOnBackend there, or declare `removed_by` on the class"
    )


@pytest.mark.parametrize("cls", ALL_STATEMENTS, ids=_ids)
def test_reverse_mode_has_a_rule(cls: type[Stmt]) -> None:
    if not cls.carries_derivative:
        return
    assert hasattr(ReverseBlock, f"reverse_{cls.__name__}"), (
        f"passes/autodiff/reverse.py has no reverse_{cls.__name__}: differentiate it, refuse "
        "it (`refuse`), or declare `carries_derivative = False` on the class"
    )


@pytest.mark.parametrize("cls", ALL_STATEMENTS, ids=_ids)
def test_the_removing_pass_exists(cls: type[Stmt]) -> None:
    """`removed_by` names a real pass module, so the claim can be looked up."""
    if cls.removed_by:
        __import__(f"tistudio.passes.{cls.removed_by}")


# --- a float statement that autodiff has no rule for ---------------------------------------


@dataclass(eq=False)
class Twice(Stmt):
    """A made-up float statement (2x) that no autodiff rule knows."""

    operand: Stmt

    operand_fields: ClassVar = ("operand",)
    syntax: ClassVar = "twice {operand}"


@dataclass(eq=False)
class Constantish(Twice):
    """The same, declared to carry no derivative."""

    carries_derivative: ClassVar = False


def _block(cls: type[Stmt]) -> Block:
    one = const_of(1.0, f32)
    return Block([one, cls(one, ret_type=f32)])


def test_reverse_mode_refuses_a_float_statement_without_a_rule() -> None:
    with pytest.raises(InternalCompilerError, match="reverse mode.*'Twice'"):
        ReverseBlock(_block(Twice)).run()


def test_forward_mode_refuses_a_float_statement_without_a_rule() -> None:
    with pytest.raises(InternalCompilerError, match="forward mode.*'Twice'"):
        ForwardBlock(_block(Twice)).run()


def test_a_statement_declared_without_derivative_is_passed_over() -> None:
    ReverseBlock(_block(Constantish)).run()
    ForwardBlock(_block(Constantish)).run()
