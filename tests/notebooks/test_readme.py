"""The README's promises hold: its links and pictures exist, the Binder badge opens the tour,
every tutorial is linked, and the quick start is the two commands (install-and-run, tests)."""

from __future__ import annotations

import re
from pathlib import Path

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


def test_quick_start_is_two_commands() -> None:
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    assert commands == [
        'pip install -e ".[lab]" && python -m tistudio.lab',
        "bash scripts/test.sh",
    ]
