"""Put the tutorial notebooks into the wheel, as `tistudio/lab/tutorials/*.ipynb`.

The notebooks live once, in `notebooks/` (where the clone's `python -m tistudio.lab` opens them
and the test suite runs them). An installed wheel has no clone, so hatchling copies them into the
package while it builds the wheel; `tistudio.lab` copies them from there into a working folder.
Only `notebooks/*.ipynb` is taken, never what running them in a clone may leave beside them
(checkpoints, caches). Editable installs keep reading `notebooks/` and get nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

WHEEL_FOLDER = "tistudio/lab/tutorials"


class TutorialsHook(BuildHookInterface):
    """Adds every `notebooks/*.ipynb` to a regular (not editable) wheel."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        notebooks = sorted(Path(self.root, "notebooks").glob("*.ipynb"))
        if not notebooks:
            raise RuntimeError(f"no notebooks/*.ipynb under {self.root}: the wheel needs them")
        for notebook in notebooks:
            build_data["force_include"][str(notebook)] = f"{WHEEL_FOLDER}/{notebook.name}"
