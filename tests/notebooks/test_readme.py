"""The README's promises hold: its links and pictures exist, the Binder badge opens the tour,
every tutorial is linked, and the quick start is the two commands (install-and-run, tests)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_relative_links_and_pictures_exist() -> None:
    targets = re.findall(r"\]\(((?!https?://)[^)#]+)\)", README)
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, missing


def test_every_notebook_is_linked_and_binder_opens_the_tour() -> None:
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"(notebooks/{notebook.name})" in README, notebook.name
    badge = re.search(r"mybinder\.org/v2/gh/[^)]*urlpath=lab/tree/([^)&]+)\)", README)
    assert badge and badge.group(1) == "notebooks/01_tour.ipynb"


def test_quick_start_is_two_commands_that_exist() -> None:
    """The two commands are the README's, and each names things that are there: the `lab`
    extra and the `tistudio.lab` launcher (tests/notebooks/test_quick_start.py runs the first
    command in a fresh venv), and a test script that is valid bash, installs the `test` extra
    and runs pytest, which is also what CI runs."""
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    assert commands == [
        'pip install -e ".[lab]" && python -m tistudio.lab',
        "bash scripts/test.sh",
    ]
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = extras["optional-dependencies"]
    assert "lab" in extras and "test" in extras, sorted(extras)
    assert importlib.util.find_spec("tistudio.lab") is not None
    script = ROOT / "scripts" / "test.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)  # parses as bash
    lines = [line.strip() for line in script.read_text().splitlines()]
    assert any(re.search(r"pip install .*-e \"\.\[test\]\"", line) for line in lines), lines
    assert 'python -m pytest "$@"' in lines
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "bash scripts/test.sh" in ci  # CI runs the README's test command
