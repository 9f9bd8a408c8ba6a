"""A notebook with `%%ti_kernel` cells, executed by a real ipykernel through nbclient."""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

CELLS = [
    "%load_ext tistudio",
    """%%ti_kernel --show passes,cache,fields
import tistudio as ti
x = ti.field(ti.f32, shape=(64, 64))

def fill(t: ti.f32):
    for i, j in x:
        x[i, j] = ti.sin(i * 0.1 + t)

fill(0.0)""",
    "for k in range(10):\n    fill(k * 0.1)\nprint(round(float(x.to_numpy().max()), 3))",
    "from tistudio.studio import view\nview(x, cmap='magma')",
]


def test_a_notebook_runs_and_keeps_widget_state_and_fallbacks(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    panel_outputs = nb.cells[1].outputs
    bundles = [o["data"] for o in panel_outputs if o.get("output_type") == "display_data"]
    assert bundles, panel_outputs
    assert "application/vnd.jupyter.widget-view+json" in bundles[-1]
    assert "fill on cpu" in bundles[-1]["text/html"]
    assert nb.cells[2].outputs[0]["text"].strip() == "1.0"
    view_output = nb.cells[3].outputs[0]["data"]
    assert "data:image/png;base64" in view_output["text/html"]
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    modules = {m["model_name"] for m in state.values()}
    assert {"AnyModel", "VBoxModel"} <= modules
