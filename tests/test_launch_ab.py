"""`benchmarks/launch_ab.py` runs two checkouts' launch loops at once, each pinned to a core,
then again with the cores swapped, and reports both (its numbers are not checked here:
timings belong to benchmarks, not tests)."""

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
    assert [row[:2] for row in rows] == 2 * [
        ["old", "fields"],
        ["old", "ndarrays"],
        ["new", "fields"],
        ["new", "ndarrays"],
    ]
    for row in rows:
        low, median = float(row[2]), float(row[5])
        assert 0 < low <= median
    cpu = [int(row[row.index("cpu") + 1].rstrip(")")) for row in rows]
    assert cpu[0] == cpu[1] and cpu[2] == cpu[3]  # one core per checkout and round
    assert (cpu[4], cpu[6]) == (cpu[2], cpu[0])  # the second round swaps them
