"""Running a test's script in a new Python process that imports this checkout's tistudio: for
behaviour that needs a fresh process (start-up, imports), or that killed the process when it
was broken (a segmentation fault must fail one test, not take pytest down)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(script: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Write `source` to `script`, run it with `args`, and return what it did (two minutes at
    most)."""
    script.write_text(source)
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
