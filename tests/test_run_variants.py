"""`benchmarks/run.py` with a case's `TISTUDIO_VARIANTS`: tistudio is measured once more with
other `ti.init` options (transcendental's `approx_math`), in a row of its own beside the case's,
and the geometric mean counts the case's own row only. (The reports here are made up.)"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import run  # noqa: E402


def _ok(median: float) -> dict:
    idle = {"idle": True, "waited_s": 0.0}
    return {"status": "OK", "median": median, "min": median, "idle": idle, "first_call_ms": 1.0}


def test_a_variant_is_measured_only_with_tistudio() -> None:
    assert run.columns("transcendental", ["tistudio", "numpy"]) == [
        ("tistudio", None),
        ("numpy", None),
        ("tistudio", "approx_math"),
    ]
    assert run.columns("transcendental", ["numpy"]) == [("numpy", None)]
    assert run.columns("saxpy", ["tistudio"]) == [("tistudio", None)]


def test_a_variant_gets_a_row_of_its_own_outside_the_geomean() -> None:
    results = {
        "transcendental": {
            "tistudio": _ok(10.0),
            "numpy": _ok(20.0),
            run.variant_key("approx_math"): _ok(2.0),
        }
    }
    text = run.table(results, "full", ["tistudio", "numpy"])
    size = "10,000,000 f32 | ms"
    assert f"| transcendental | {size} | 10.0 (10.0) | 20.0 (20.0) | 2.00× |" in text
    assert f"| transcendental (approx_math) | {size} | 2.00 (2.00) | 20.0 (20.0) | 10.00× |" in text
    assert "| **2.00×** |" in text  # the geomean of the case's own row
    assert "| transcendental (approx_math) | 1.00 | 1.00 |" in run.first_call_table(
        results, ["tistudio", "numpy"]
    )
