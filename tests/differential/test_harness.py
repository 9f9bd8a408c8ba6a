"""The comparison itself: strict where the suite promises to be strict."""

from __future__ import annotations

import numpy as np
import pytest

from .harness import CASE_MODULES, collect_cases, compare


def _case():
    """A stand-in case with the default tolerances."""


def _loose_case():
    """A stand-in case that declares a looser tolerance."""


_loose_case.rtol = 1e-3


def test_every_case_module_contributes_cases():
    cases = collect_cases()
    modules = {case.__module__.rsplit(".", 1)[-1] for case in cases.values()}
    assert len(modules) == len(CASE_MODULES)
    assert len(cases) >= 40


@pytest.mark.parametrize(
    "expected, actual",
    [
        ({"a": 1}, {"b": 1}),  # keys differ
        ({"a": 1}, {"a": 2}),  # ints are exact
        ({"a": 1}, {"a": 1.0}),  # int vs float
        ({"a": True}, {"a": 1}),  # bool vs int
        ({"a": 1.0}, {"a": np.float32(1.0)}),  # numpy scalar is not a Python float
        ({"a": np.zeros(3, np.int32)}, {"a": np.zeros(3, np.int64)}),  # dtype
        ({"a": np.zeros(3, np.float32)}, {"a": np.zeros((3, 1), np.float32)}),  # shape
        ({"a": np.ones(2, np.float32)}, {"a": np.array([1, 1 + 1e-5], np.float32)}),
        ({"a": np.ones(2)}, {"a": np.array([1, 1 + 1e-10])}),  # f64 rtol 1e-12
        ({"a": (2, 3)}, {"a": [2, 3]}),  # tuple vs list
        ({"a": np.zeros(())}, {"a": 0.0}),  # 0-D array vs scalar
    ],
)
def test_compare_rejects(expected, actual):
    with pytest.raises(AssertionError):
        compare(expected, actual, _case)


def test_compare_accepts_within_tolerance():
    f32 = np.array([1.0, np.nan, np.inf], np.float32)
    compare({"a": f32, "b": 0.5}, {"a": f32 * (1 + 5e-8), "b": 0.5 * (1 + 5e-7)}, _case)
    compare({"a": np.ones(1)}, {"a": np.ones(1) * (1 + 1e-4)}, _loose_case)


def test_compare_exact_demands_identical_bits():
    compare({"a": np.ones(2, np.float32)}, {"a": np.ones(2, np.float32)}, _case, exact=True)
    with pytest.raises(AssertionError):
        compare({"a": np.ones(1)}, {"a": np.ones(1) + 1e-15}, _case, exact=True)
