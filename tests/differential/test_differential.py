"""Every case on Taichi (the oracle) and on tistudio, compared; and Taichi against itself.

Run: `pytest tests/differential` (all), `pytest tests/differential -k taichi_determinism`
(only the oracle side, to check the cases themselves).
"""

from __future__ import annotations

from types import ModuleType

import pytest

from .harness import OnGpu, collect_cases, compare, run_case

CASES = collect_cases()


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_matches_taichi(case_name: str, taichi: ModuleType) -> None:
    case = CASES[case_name]
    expected = run_case(case, taichi)
    import tistudio

    actual = run_case(case, tistudio)
    compare(expected, actual, case)


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_taichi_determinism(case_name: str, taichi: ModuleType) -> None:
    """Two runs on Taichi give bit-identical results, so a mismatch is never the oracle's noise."""
    case = CASES[case_name]
    first = run_case(case, taichi)
    second = run_case(case, taichi)
    compare(first, second, case, exact=not getattr(case, "nondeterministic", False))


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_matches_taichi_on_gpu(case_name: str, taichi: ModuleType) -> None:
    """tistudio on the WebGPU back end (lavapipe in CI) against Taichi on the CPU."""
    case = CASES[case_name]
    import tistudio

    refusal = getattr(case, "gpu_refusal", None)  # (error class name, message): refused there
    if refusal is not None:
        with pytest.raises(getattr(tistudio, refusal[0]), match=refusal[1]):
            run_case(case, OnGpu(tistudio))  # type: ignore[arg-type]
        return
    expected = run_case(case, taichi)
    actual = run_case(case, OnGpu(tistudio))  # type: ignore[arg-type]
    compare(expected, actual, case)
