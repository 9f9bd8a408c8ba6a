"""`benchmarks/run.py --rounds N`: every cell measured in N processes, the frameworks in turns,
and the cell is the median of the processes' medians (`run.merge`). Memory bandwidth on these
machines changes for whole processes at a time, so one process in a slow spell must not decide
a cell. (Timings themselves belong to benchmarks, not tests: the reports here are made up.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import run  # noqa: E402


def _report(samples: list[float], idle: bool = True, **details: float) -> dict:
    return {
        "case": "saxpy",
        "framework": "tistudio",
        "status": "OK",
        "samples": samples,
        "median": sorted(samples)[len(samples) // 2],
        "min": min(samples),
        "idle": {"idle": idle, "waited_s": 1.0},
        "details": details,
    }


def test_a_cell_is_the_median_of_its_processes_medians() -> None:
    fast, slow = [0.6, 0.7, 0.8, 0.9, 0.7], [1.6, 1.7, 1.8, 2.1, 1.9, 1.7, 1.8, 1.6, 2.0]
    merged = run.merge(
        [
            _report(fast, frontend=2.0),
            _report(slow, False, frontend=4.0),
            _report(fast, frontend=3.0),
        ]
    )
    assert merged["process_medians"] == [0.7, 1.8, 0.7]
    assert merged["median"] == 0.7  # all 19 samples pooled: 1.6
    assert merged["min"] == 0.6
    assert len(merged["samples"]) == 19
    assert merged["details"] == {"frontend": 3.0}
    assert merged["idle"] == {"idle": False, "waited_s": 3.0}


def test_one_failed_process_makes_the_cell_its_failure() -> None:
    failed = {"case": "saxpy", "framework": "tistudio", "status": "ERROR", "message": "boom"}
    assert run.merge([_report([1.0]), failed]) is failed
    single = _report([1.0, 2.0])
    assert run.merge([single]) is single


def test_rounds_run_the_frameworks_in_turns_and_say_so() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "saxpy",
            "--frameworks",
            "numpy",
            "--rounds",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("saxpy            numpy") == 2, done.stderr  # one line per process
    assert "median of 2 processes' medians" in done.stdout
    assert "| saxpy |" in done.stdout
