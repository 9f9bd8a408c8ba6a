"""Differential fuzzing, CI budget: random kernels on the CPU back end vs the IR interpreter.

Each example is a generated kernel run on the CPU and interpreted twice (early IR, final IR);
any disagreement fails with the kernel's source, shrunk by hypothesis to a minimal one. Kernels
run with `fast_math=False` and, in separate tests, with Taichi's default `fast_math=True`. The
examples are derandomized so CI is repeatable; `python -m tests.fuzz.campaign --examples 5000`
runs a long random campaign and prints how many kernels it tried.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.fuzz.generator import Program, programs
from tests.fuzz.harness import run_program

CI = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@CI
@given(programs())
def test_random_kernels_agree(program: Program) -> None:
    run_program(program, fast_math=False)


@settings(CI, max_examples=15)
@given(programs(floats=False))
def test_random_integer_kernels_agree_with_fast_math(program: Program) -> None:
    run_program(program, fast_math=True)


@settings(CI, max_examples=25)
@given(programs(floats=True))
def test_random_float_kernels_agree_with_fast_math(program: Program) -> None:
    """Taichi's default `fast_math=True` rounds every operation as IEEE does, as without it
    (docs/compiler-contract.md): no contraction into FMA, no NaN or infinity assumed away."""
    run_program(program, fast_math=True)
