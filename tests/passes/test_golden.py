"""`check_pass` itself: its semantic check catches wrong passes whose text the golden matches,
says why a golden cannot run, and keeps (almost) every golden of tests/passes a semantic test."""

from __future__ import annotations

import importlib
import inspect
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.passes.golden import VERDICTS, check_pass
from tests.passes.semantics import Verdict
from tistudio.ir import BinaryOpType
from tistudio.ir.statements import BinaryOp, Const, GlobalLoad, GlobalStore, Print
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.passes.context import PassContext


class WrongPass:
    """A "pass" that applies `rewrite` to every statement; `rewrite` returns True on a change."""

    def __init__(self, name: str, rewrite: Callable[[Kernel, Stmt], bool]) -> None:
        self.__name__ = f"wrong_{name}"
        self.rewrite = rewrite

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        return any([self.rewrite(kernel, stmt) for stmt in kernel.walk()])


def _swap_add_for_sub(kernel: Kernel, stmt: Stmt) -> bool:
    if isinstance(stmt, BinaryOp) and stmt.op is BinaryOpType.add:
        stmt.op = BinaryOpType.sub
        return True
    return False


def _swap_mul_for_add(kernel: Kernel, stmt: Stmt) -> bool:
    if isinstance(stmt, BinaryOp) and stmt.op is BinaryOpType.mul:
        stmt.op = BinaryOpType.add
        return True
    return False


def _swap_operands_of_sub(kernel: Kernel, stmt: Stmt) -> bool:
    if isinstance(stmt, BinaryOp) and stmt.op is BinaryOpType.sub and type(stmt.lhs) is GlobalLoad:
        stmt.lhs, stmt.rhs = stmt.rhs, stmt.lhs
        return True
    return False


def _index_one_further(kernel: Kernel, stmt: Stmt) -> bool:
    if isinstance(stmt, Const) and stmt.value == 0:
        stmt.value = 1
        return True
    return False


def _float_times_zero_is_zero(kernel: Kernel, stmt: Stmt) -> bool:
    """x * 0.0 -> 0.0: wrong for NaN, infinities and negative x (-0.0)."""
    if isinstance(stmt, BinaryOp) and stmt.op is BinaryOpType.mul and stmt.ret_type.is_float:
        if isinstance(stmt.rhs, Const) and stmt.rhs.value == 0.0:
            kernel.replace_all_uses(stmt, stmt.rhs)
            stmt.erase()
            return True
    return False


def _float_plus_zero_is_x(kernel: Kernel, stmt: Stmt) -> bool:
    """x + 0.0 -> x: wrong for x = -0.0 (-0.0 + 0.0 is 0.0)."""
    if isinstance(stmt, BinaryOp) and stmt.op is BinaryOpType.add and stmt.ret_type.is_float:
        if isinstance(stmt.rhs, Const) and stmt.rhs.value == 0.0:
            kernel.replace_all_uses(stmt, stmt.lhs)
            stmt.erase()
            return True
    return False


def _drop(kind: type) -> Callable[[Kernel, Stmt], bool]:
    def drop(kernel: Kernel, stmt: Stmt) -> bool:
        if isinstance(stmt, kind):
            stmt.erase()
            return True
        return False

    return drop


def _keep(kernel: Kernel, stmt: Stmt) -> bool:
    return False


# (rewrite, IR before, IR the wrong pass makes of it, what the semantic check must name)
WRONG = {
    "add-becomes-sub": (
        _swap_add_for_sub,
        """
        <i32> $0 = argload[0]
        <i32> $1 = argload[1]
        <i32> $2 = add $0 $1
        <*i32> $3 = global tmp var (offset = 0 B)
        $4 : global store [$3 <- $2]
        """,
        """
        <i32> $0 = argload[0]
        <i32> $1 = argload[1]
        <i32> $2 = sub $0 $1
        <*i32> $3 = global tmp var (offset = 0 B)
        $4 : global store [$3 <- $2]
        """,
        "global tmp var",
    ),
    # x * 2 and x + 2 agree at x = 2: only other inputs tell them apart
    "mul-becomes-add-in-a-returned-value": (
        _swap_mul_for_add,
        """
        <i32> $0 = argload[0]
        <i32> $1 = const 2
        <i32> $2 = mul $0 $1
        $3 : return $2
        """,
        """
        <i32> $0 = argload[0]
        <i32> $1 = const 2
        <i32> $2 = add $0 $1
        $3 : return $2
        """,
        "returned",
    ),
    "operands-of-sub-swapped-in-an-ndarray": (
        _swap_operands_of_sub,
        """
        <i32> $0 = const 1
        <*f32> $1 = external_ptr arg 0, [$0]
        <f32> $2 = global load $1
        <f32> $3 = argload[1]
        <f32> $4 = sub $2 $3
        $5 : global store [$1 <- $4]
        """,
        """
        <i32> $0 = const 1
        <*f32> $1 = external_ptr arg 0, [$0]
        <f32> $2 = global load $1
        <f32> $3 = argload[1]
        <f32> $4 = sub $3 $2
        $5 : global store [$1 <- $4]
        """,
        "ndarray argument 0",
    ),
    "store-to-the-next-element-of-a-field": (
        _index_one_further,
        """
        <i32> $0 = const 0
        <f32> $1 = argload[0]
        <*f32> $2 = global ptr [S1place<f32>], index [$0]
        $3 : global store [$2 <- $1]
        """,
        """
        <i32> $0 = const 1
        <f32> $1 = argload[0]
        <*f32> $2 = global ptr [S1place<f32>], index [$0]
        $3 : global store [$2 <- $1]
        """,
        "tree 0",
    ),
    "float-times-zero-folded-to-zero": (
        _float_times_zero_is_zero,
        """
        <f32> $0 = argload[0]
        <f32> $1 = const 0.0
        <f32> $2 = mul $0 $1
        $3 : return $2
        """,
        """
        <f32> $0 = argload[0]
        <f32> $1 = const 0.0
        $2 : return $1
        """,
        "returned",
    ),
    "float-plus-zero-folded-to-x": (
        _float_plus_zero_is_x,
        """
        <f64> $0 = argload[0]
        <f64> $1 = const 0.0
        <f64> $2 = add $0 $1
        $3 : return $2
        """,
        """
        <f64> $0 = argload[0]
        <f64> $1 = const 0.0
        $2 : return $0
        """,
        "returned",
    ),
    "a-store-deleted": (
        _drop(GlobalStore),
        """
        <i32> $0 = argload[0]
        <*i32> $1 = global tmp var (offset = 4 B)
        $2 : global store [$1 <- $0]
        """,
        """
        <i32> $0 = argload[0]
        <*i32> $1 = global tmp var (offset = 4 B)
        """,
        "global tmp var (offset = 4 B)",
    ),
    "a-print-deleted": (
        _drop(Print),
        """
        <i32> $0 = argload[0]
        $1 : print "x = {}\\n" [$0]
        """,
        """
        <i32> $0 = argload[0]
        """,
        "printed",
    ),
}


@pytest.mark.parametrize("case", WRONG)
def test_a_wrong_pass_that_matches_its_golden_text_is_caught(case: str) -> None:
    rewrite, before, after, named = WRONG[case]
    with pytest.raises(AssertionError, match="computes something else") as failure:
        check_pass(WrongPass(case, rewrite), before=before, after=after)
    assert named in str(failure.value)


def test_the_same_goldens_pass_with_a_pass_that_keeps_the_meaning() -> None:
    # the cases above are not failing for another reason: an untouched kernel passes
    for _rewrite, before, _after, _named in WRONG.values():
        verdict = check_pass(WrongPass("noop", _keep), before=before, after=before)
        assert verdict.compared > 0, verdict.reason


@pytest.mark.parametrize(
    ("before", "reason"),
    [
        (
            """
            <i32> $0 = const 1
            <[Tensor (2) i32]> $1 = [$0, $0]
            """,
            "tensor statement MatrixInit: scalarize not run",
        ),
        (
            """
            $0 : struct for in S1dense {
            }
            """,
            "S1dense is detached: the golden gives no SNode tree",
        ),
        (
            """
            $0 : while true {
            }
            """,
            "fails on every input set (_OutOfSteps",
        ),
    ],
    ids=["tensor-statement", "detached-snode", "endless-loop"],
)
def test_a_golden_that_cannot_run_says_why(before: str, reason: str) -> None:
    verdict = check_pass(WrongPass("noop", _keep), before=before, after=before)
    assert verdict.compared == 0 and reason in verdict.reason


# --- the goldens of tests/passes, counted --------------------------------------------------------

# of the check_pass goldens reachable below, how many at least must run in the interpreter
# (268 of 282 when written; tests/passes/conftest.py prints the reasons of the others)
MIN_SEMANTIC = 265


def _golden_calls() -> Iterator[Callable[[], object]]:
    """Every call of a test function of tests/passes that uses `check_pass` (itself or through
    a helper of its module), with each of its parametrized arguments; functions that need
    other fixtures are left out."""
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        if path.stem == Path(__file__).stem:
            continue
        functions = {
            name: fn
            for name, fn in vars(importlib.import_module(f"tests.passes.{path.stem}")).items()
            if inspect.isfunction(fn)
        }
        users = {"check_pass"} | {n for n, f in functions.items() if _calls_check_pass(f)}
        for name, fn in functions.items():
            if name.startswith("test_") and users & set(fn.__code__.co_names):
                yield from _calls(fn)


def _calls_check_pass(fn: Callable) -> bool:
    return "check_pass" in fn.__code__.co_names


def _calls(fn: Callable) -> Iterator[Callable[[], object]]:
    sets = [
        _parameter_sets(m.args) for m in getattr(fn, "pytestmark", ()) if m.name == "parametrize"
    ]
    for combination in itertools.product(*sets):
        kwargs = {k: v for part in combination for k, v in part.items()}
        if set(inspect.signature(fn).parameters) == set(kwargs):
            yield lambda fn=fn, kwargs=kwargs: fn(**kwargs)


def _parameter_sets(args: tuple) -> list[dict[str, object]]:
    """The keyword arguments of each case of `@pytest.mark.parametrize(*args)`."""
    names, values = args[0], args[1]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    rows = []
    for value in values:
        if type(value).__name__ == "ParameterSet":  # pytest.param(...)
            row = tuple(value.values)
        else:
            row = (value,) if len(names) == 1 else tuple(value)
        rows.append(dict(zip(names, row)))
    return rows


def test_most_goldens_are_semantic_tests() -> None:
    verdicts: list[tuple[str, Verdict]] = []
    token = VERDICTS.set(verdicts)
    try:
        for call in _golden_calls():
            try:
                call()
            except AssertionError:  # a golden that fails fails its own test; here it ran
                verdicts.append(("(failed)", Verdict(1)))
    finally:
        VERDICTS.reset(token)
    semantic = sum(1 for _, v in verdicts if v.compared)
    assert len(verdicts) > 250, "the goldens were not found"
    assert semantic >= MIN_SEMANTIC, [f"{p}: {v.reason}" for p, v in verdicts if not v.compared]
