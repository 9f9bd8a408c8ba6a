"""`benchmarks/ab.py` runs two checkouts' launch or compile loops at once, each pinned to a
core, then again with the cores swapped, and reports both (its numbers are not checked here:
timings belong to benchmarks, not tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _rows(*options: str) -> list[list[str]]:
    script = ROOT / "benchmarks" / "ab.py"
    done = subprocess.run(
        [sys.executable, str(script), str(ROOT), str(ROOT), *options],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return [line.split() for line in done.stdout.splitlines()]


def test_launch_reports_both_checkouts_and_both_kernels() -> None:
    rows = _rows("--seconds", "0.2")
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


def test_compile_reports_one_row_per_checkout_and_round() -> None:
    rows = _rows("--what", "compile", "--seconds", "0.3")
    assert [row[:2] for row in rows] == 2 * [["old", "compile"], ["new", "compile"]]
    for row in rows:
        low, median = float(row[2]), float(row[5])
        assert row[3] == "ms" and 0 < low <= median
        assert int(row[row.index("samples,") - 1].lstrip("(")) >= 1
