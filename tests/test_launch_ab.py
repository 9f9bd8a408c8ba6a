"""`benchmarks/launch_ab.py` runs two checkouts' launch loops at once and reports both (its
numbers are not checked here: timings belong to benchmarks, not tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_launch_ab_reports_both_checkouts_and_both_kernels() -> None:
    script = ROOT / "benchmarks" / "launch_ab.py"
    done = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(ROOT), "--seconds", "0.2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert [row[:2] for row in rows] == [
        ["old", "fields"],
        ["old", "ndarrays"],
        ["new", "fields"],
        ["new", "ndarrays"],
    ]
    for row in rows:
        low, median = float(row[2]), float(row[5])
        assert 0 < low <= median
