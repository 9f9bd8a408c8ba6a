"""The tutorial notebooks run top to bottom in a real ipykernel (nbclient).

The notebooks check their own results with `assert`s in their cells, so a tutorial that stops
teaching the truth fails here. They are stored without outputs; this test also keeps them so.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
# Hang guards, not speed limits: seconds for the whole notebook (a cell may take at most
# CELL_LIMIT), ten times the speed limits they replace; each notebook ran in 6-9 s on the
# 2-core machine with two busy processes beside it. How long a tutorial takes is printed for
# the log; the compile times behind it are measured by benchmarks/cases/cold_compile.py and
# compile_next.py.
LIMITS = {
    "01_tour.ipynb": 900,
    "02_compiler_stages.ipynb": 900,
    "03_visual_debugging.ipynb": 900,
    "04_autodiff.ipynb": 900,
    "05_aot_export.ipynb": 1200,
    "06_cpu_vs_gpu.ipynb": 1500,
    "07_sparse.ipynb": 900,
    "08_gui.ipynb": 900,
    "09_dask_sweep.ipynb": 600,  # ran in 7 s (a LocalCluster of two worker processes)
}
# A GUI loop in a notebook runs until its widget is closed; here no one watches, so every
# `while gui.running` loop ends after this many frames (tistudio.ui.sink.max_frames)
GUI_FRAMES = "30"
CELL_LIMIT = 900


def test_every_notebook_has_a_time_limit() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(LIMITS)


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_notebook_is_stored_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    dirty = [i for i, c in code if c.outputs or c.execution_count]
    assert not dirty, f"{name}: cells {dirty} have outputs; clear them before committing"
    assert "widgets" not in nb.metadata, f"{name}: saved widget state; clear it"


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_notebook_runs_top_to_bottom(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TISTUDIO_GUI_MAX_FRAMES", GUI_FRAMES)  # the kernel inherits it
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_LIMIT,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    start = time.monotonic()
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on failure
    seconds = time.monotonic() - start
    print(f"{name}: {seconds:.1f} s")
    assert seconds < LIMITS[name], f"{name} took {seconds:.1f} s (limit {LIMITS[name]} s)"
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    # the kernel ran in tmp_path as JupyterLab runs it in the notebook's folder (notebooks/ in a
    # clone): whatever it left there would be left in the clone, untracked (05 once left aot_out/)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert not left, f"{name} left files in its working folder: {left}"
