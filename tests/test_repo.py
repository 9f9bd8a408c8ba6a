"""Repository rules that keep the code readable: ruff clean and file-size limits (STYLE.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASS_LIMIT = 250  # STYLE.md asks for "< ~200" lines per pass; 250 is the hard bound
MODULE_LIMIT = 600  # lines of any module


def test_ruff_is_clean() -> None:
    """The whole repository: package, tests, benchmarks, scripts and the tutorial notebooks."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_module_sizes() -> None:
    too_big = []
    for path in sorted((ROOT / "tistudio").rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        is_pass = path.parent.name == "passes" and path.stem not in ("pipeline", "util", "context")
        limit = PASS_LIMIT if is_pass else MODULE_LIMIT
        if lines > limit:
            too_big.append(f"{path.relative_to(ROOT)}: {lines} lines > {limit}")
    assert not too_big, "\n".join(too_big)
