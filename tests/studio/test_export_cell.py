"""The export button of a `%%ti_kernel` panel, end to end in JupyterLab.

The cell defines a kernel that writes a field; the panel's export section is clicked in the
browser (the kernel is idle, so the request reaches Python), the worker builds the `.tcm` with
`tistudio.aot.Module`, the widget lists its files, and the module on disk loads with
`tistudio.aot.load` and computes what the notebook's kernel computed.
"""

from __future__ import annotations

import numpy as np
from playwright.sync_api import Page, expect

import tistudio.aot
from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP, wait_until_cell_ran

CELL = """%%ti_kernel --show passes,export
x = ti.field(ti.f32, shape=(16, 8))

def paint(t: ti.f32):
    for i, j in x:
        x[i, j] = ti.sin(i * 0.5 + t) * j

paint(0.25)"""


def test_export_button_of_a_ti_kernel_cell_writes_a_loadable_module(lab, page: Page, artifacts):
    run_all(page, lab.notebook("export_cell.ipynb", [SETUP, CELL]))
    wait_until_cell_ran(page, 1, 2)
    export = page.locator(".tistudio-panel .tistudio-export")
    expect(export).to_have_attribute("data-ready", "1", timeout=30_000)
    expect(export.locator("input[type='checkbox']")).to_have_count(2)  # kernel paint, field x
    for box in export.locator("input[type='checkbox']").all():
        expect(box).to_be_checked()
    export.locator(".ti-path").fill("out/cell.tcm")
    export.locator(".ti-export-button").click()
    status = export.locator(".ti-status")
    expect(status).to_have_attribute("data-status", "done", timeout=30_000)
    expect(export.locator("tr.ti-file", has_text="paint")).not_to_have_count(0)
    expect(export.locator("a.ti-download")).to_have_attribute("download", "cell.tcm")
    export.screenshot(path=artifacts / "export_from_cell.png")
    module = tistudio.aot.load(lab.root / "out" / "cell.tcm")
    assert module.kernel_names == ["paint"] and list(module.fields) == ["x"]
    module.get_kernel("paint")(1.5)
    i, j = np.mgrid[0:16, 0:8].astype(np.float32)
    np.testing.assert_allclose(module.fields["x"].to_numpy(), np.sin(i * 0.5 + 1.5) * j, atol=1e-5)
