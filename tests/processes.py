"""Running a test's script in a new Python process that imports this checkout's tistudio: for
behaviour that needs a fresh process (start-up, imports), or that killed the process when it
was broken (a segmentation fault must fail one test, not take pytest down)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(
    script: Path, source: str, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Write `source` to `script`, run it with `args`, and return what it did (two minutes at
    most, unless `timeout` says otherwise). This checkout comes first on the module path, before
    what PYTHONPATH already holds (the GPU machine's wheels); Taichi's log says errors only; a
    GPU finds its runtime directory."""
    script.write_text(source)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {"XDG_RUNTIME_DIR": "/tmp", **os.environ, "PYTHONPATH": path}
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**env, "TI_LOG_LEVEL": "error"},
    )


def printed_lines(script: Path, source: str, *args: str) -> list[str]:
    """What the script printed, line by line, without Taichi's `[Taichi]` banner; it must
    succeed (four minutes at most: Taichi's own start-up is slow)."""
    done = run_script(script, source, *args, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if not line.startswith("[Taichi]")]
