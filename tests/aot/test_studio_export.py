"""The studio's export button and `%%ti_kernel --export PATH.tcm`, with the real AOT builder:
the archive they write loads with `tistudio.aot.load` and its kernels run."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

import tistudio as ti
import tistudio.aot
from tests.aot import kernels
from tistudio.studio.export import ExportPanel, aot_available

CELL = """
x = ti.field(ti.f32, shape=(8, 8))

def fill(t: ti.f32):
    for i, j in x:
        x[i, j] = t * i - j

@ti.kernel
def total() -> ti.f32:
    s = 0.0
    for i, j in x:
        s += x[i, j]
    return s

fill(0.5)
"""


def test_export_panel_writes_a_module_that_runs(tmp_path):
    _, x, _, _ = kernels.build(ti.cpu)
    panel = ExportPanel({"init": kernels.init, "total": kernels.total}, {"x": x})
    assert panel.available and aot_available() and panel.message == ""
    target = tmp_path / "out" / "m.tcm"
    panel.start_export(["init", "total"], ["x"], "cpu", str(target))
    panel.worker.join(60)
    assert (panel.status, panel.message) == ("done", str(target))
    names = [f["name"] for f in panel.files]
    assert names == sorted(names) and {"metadata.json", "init.o", "total.o"} <= set(names)
    m = tistudio.aot.load(target)
    m.get_kernel("init")(1.0)
    np.testing.assert_array_equal(m.fields["x"].to_numpy(), kernels.expected_x(1.0))
    assert m.get_kernel("total")() == float(kernels.expected_x(1.0).sum())
    panel.export(["bump"], [], "cpu", str(tmp_path / "t.tcm"))  # unknown to the panel
    assert panel.status == "error" and "unknown kernel or field: bump" in panel.message


def test_export_panel_reports_builder_errors():
    kernels.build(ti.cpu)
    panel = ExportPanel({"bump": kernels.bump})
    panel.export(["bump"], [], "cpu", "never.tcm")
    assert panel.status == "error"
    assert panel.message == "kernel 'bump': template parameter 'f' needs a value in template_args"


@pytest.fixture
def shell():
    ti.init(arch=ti.cpu, offline_cache=False)
    sh = InteractiveShell.instance()
    sh.run_cell("%load_ext tistudio\nimport tistudio as ti").raise_error()
    yield sh
    for panel in sh.magics_manager.registry["StudioMagics"].panels.values():
        panel.close()
    InteractiveShell.clear_instance()
    ti.reset()


def test_magic_export_option_writes_the_cells_module(shell, tmp_path):
    target = tmp_path / "cell.tcm"
    shell.run_cell(f"%%ti_kernel --export {target}\n{CELL}").raise_error()
    panel = shell.magics_manager.registry["StudioMagics"].panels["fill", "total"]
    panel.export.worker.join(60)
    assert panel.export.status == "done", panel.export.message
    m = tistudio.aot.load(target)
    assert m.kernel_names == ["fill", "total"] and list(m.fields) == ["x"]
    m.get_kernel("fill")(2.0)
    i, j = np.indices((8, 8))
    np.testing.assert_array_equal(m.fields["x"].to_numpy(), (2.0 * i - j).astype(np.float32))
    assert m.get_kernel("total")() == float((2.0 * i - j).sum())
