"""The first kernel of a `%%ti_kernel` cell, in a real kernel run by nbclient: the compile time
the cache view reports (printed; the 50 ms target is benchmarks/cases/studio_first_compile.py's),
with the explorer showing every pass once the cell ends (texts printed after the compile)."""

from __future__ import annotations

import json

import nbformat
from IPython.core.interactiveshell import InteractiveShell
from nbclient import NotebookClient

import tistudio as ti

SETUP = """%load_ext tistudio
import tistudio as ti
ti.init(arch=ti.cpu)
"""
WAIT = """from tistudio.runtime import warm_up
warm_up.wait()  # what a person's pause between cells gives: the back end is up"""
HEAT = """%%ti_kernel
u = ti.field(ti.f32, shape=(128, 128))
v = ti.field(ti.f32, shape=(128, 128))

def heat(src: ti.template(), dst: ti.template(), k: ti.f32):
    for i, j in dst:
        if 0 < i < 127 and 0 < j < 127:
            lap = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * src[i, j]
            dst[i, j] = src[i, j] + k * lap

heat(u, v, 0.1)
heat(v, u, 0.1)"""
REPORT = """import json
panel = next(iter(get_ipython().magics_manager.registry["StudioMagics"].panels.values()))
data = panel.explorer.data
print(json.dumps({
    "cache_ms": [row["compile_ms"] for row in panel.cache.rows],
    "startup_ms": [row["startup_ms"] for row in panel.cache.rows],
    "passes": [p["name"] for p in data["passes"]],
    "diff_lines": sum(len(p["diff"]) for p in data["passes"]),
    "last_ir": "\\n".join(d[1] for d in data["passes"][-1]["diff"] if d[0] != "-"),
    "instances": panel.explorer.instances,
}))"""


def run_cells(cells: list[str]) -> dict:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    return json.loads(nb.cells[-1].outputs[0]["text"])


def test_first_compile_latency_in_a_real_kernel_with_every_pass_shown():
    shown = run_cells([SETUP, WAIT, HEAT, REPORT])
    first, second = shown["cache_ms"]
    print(f"\nfirst %%ti_kernel compile (cache view): {first:.1f} ms, second {second:.1f} ms")
    assert first < 2000 and second < 2000  # a hang guard; the target is the benchmark's
    assert shown["passes"][:3] == ["initial IR", "lower_ast", "type_check"]
    assert shown["diff_lines"] > 100 and "kernel {" in shown["last_ir"]
    assert len(shown["instances"]) == 2


def test_first_compile_straight_after_ti_init():
    """Run All: the cell comes at once after ti.init, so the first compile also waits for the
    rest of the back end's warm-up (imports and LLVM's start on its thread); the cache view
    shows that wait apart from the compile time."""
    shown = run_cells([SETUP, HEAT, REPORT])
    (first, _), (startup, later) = shown["cache_ms"], shown["startup_ms"]
    print(
        f"\nfirst %%ti_kernel compile straight after ti.init (cache view): {first:.1f} ms "
        f"+ {startup:.1f} ms waiting for the back end's start"
    )
    assert first < 3000 and startup < 3000
    assert later == 0.0  # only the first compile waited


def test_pass_texts_print_after_the_cell_not_during_the_call():
    ti.init(arch=ti.cpu)
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("%load_ext tistudio\nimport tistudio as ti").raise_error()
        cell = HEAT + "\nprinted_in_cell = heat.instances()[0].result.records.loaded"
        shell.run_cell(cell).raise_error()
        assert shell.user_ns["printed_in_cell"] is False  # the compile printed no IR
        panels = shell.magics_manager.registry["StudioMagics"].panels
        panel = panels[("heat",)]
        assert len(panel.explorer.instances) == 2
        passes = panel.explorer.data["passes"]  # rendered when the cell ended
        assert passes[0]["name"] == "initial IR" and any(p["added"] for p in passes)
        assert "heat on cpu" in panel.static_text()
    finally:
        for panel in shell.magics_manager.registry["StudioMagics"].panels.values():
            panel.close()
        InteractiveShell.clear_instance()
        ti.reset()
