"""The field viewer's click on a NaN element, kernel side: the message the browser sends runs
explain_nan and fills the `explanation` trait the view shows (issue #30). The browser half is
in test_field_view_browser.py."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.studio import explain_nan, view


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)


def test_a_click_message_explains_the_element_and_the_view_started_the_log() -> None:
    x = ti.field(ti.f32, shape=(32, 32), name="x")
    w = view(x)  # before the launch: the view starts the log of writes
    assert w.explainable

    @ti.kernel
    def k(c: ti.f32):
        for i, j in x:
            x[i, j] = ti.log(i - c) + j

    k(3.0)
    w._on_message(w, {"explain": [1, 7]}, [])
    e = w.explanation
    assert e["cell"] == [1, 7] and e["found"] and e["operation"] == "log(-2.0) = nan"
    assert e["expression"] == "x[i, j] = ti.log(i - c) + j" and e["file"] == __file__
    assert e["kernel"].startswith("k_")
    assert explain_nan(x, (1, 7)).line == e["line"]
    w._on_message(w, {"explain": [20, 7]}, [])
    assert w.explanation["found"] is False  # log(17): finite
    w.close()


def test_a_field_no_recorded_launch_wrote_says_to_launch_again() -> None:
    y = ti.field(ti.f32, shape=(4, 4), name="y")
    w = view(y)
    y.fill(np.nan)  # from the host: no kernel wrote it
    assert w.explain([0, 0]) is None
    assert "launch the kernel again" in w.explanation["error"]

    @ti.kernel
    def k():
        for i, j in y:
            y[i, j] = ti.sqrt(-1.0 - i)

    k()
    assert w.explain([2, 0]).operation == "sqrt(-3.0) = nan"
    w._on_message(w, {"explain": [9, 0]}, [])
    assert "outside y of shape [4, 4]" in w.explanation["error"]
    w.close()


def test_arrays_are_not_explainable() -> None:
    w = view(np.full((4, 4), np.nan, np.float32))
    assert not w.explainable
    w.close()
