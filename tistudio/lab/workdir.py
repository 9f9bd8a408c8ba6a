"""The tutorials' working folder: where they come from, and copying them without losing edits.

A clone has the notebooks in `notebooks/`; an installed wheel has them in the package
(`tistudio/lab/tutorials/`, put there by `hatch_build.py`). Installed packages are read-only
in spirit, so the launcher copies the notebooks into a folder of the user's (by default
`./tistudio-tutorials`) and opens JupyterLab there. Running it again must never destroy work:
a notebook already in the folder is left alone, and if it differs from the packaged one (the
user edited it, or a newer tistudio ships a newer tutorial) the report says so and how to get
the packaged one.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FOLDER = "tistudio-tutorials"
PACKAGED = Path(__file__).resolve().parent / "tutorials"


@dataclass(frozen=True)
class Copied:
    """What happened to one notebook: `copied`, `unchanged` (same bytes) or `kept` (differs)."""

    name: str
    outcome: str

    def line(self, folder: Path) -> str:
        if self.outcome == "copied":
            return f"copied {self.name}"
        if self.outcome == "unchanged":
            return f"{self.name} is already there"
        return (
            f"kept your {self.name}: it differs from this tistudio's copy, which was not "
            f"written (rename or delete {folder / self.name} to get it)"
        )


def source(checkout: Path) -> Path:
    """Where the tutorials are: the clone's `notebooks/`, else the installed package's copy."""
    for folder in (checkout / "notebooks", PACKAGED):
        if any(folder.glob("*.ipynb")):
            return folder
    raise SystemExit(
        f"tistudio.lab: no tutorials, neither in {checkout / 'notebooks'} (a clone) nor in "
        f"{PACKAGED} (an installed wheel): this installation is incomplete"
    )


def copy_tutorials(source: Path, folder: Path) -> list[Copied]:
    """Copy every notebook of `source` into `folder`, never overwriting one that is there."""
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for notebook in sorted(source.glob("*.ipynb")):
        target = folder / notebook.name
        if not target.exists():
            shutil.copyfile(notebook, target)
            done.append(Copied(notebook.name, "copied"))
        elif target.read_bytes() == notebook.read_bytes():
            done.append(Copied(notebook.name, "unchanged"))
        else:
            done.append(Copied(notebook.name, "kept"))
    return done
