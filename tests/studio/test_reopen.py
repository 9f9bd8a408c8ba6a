"""A notebook with a studio panel survives saving, closing and reopening.

The notebook runs in JupyterLab, is saved (with the widgets' state: the test server turns
JupyterLab's "save widget state" on, see conftest.py), its kernel is shut down, and it is opened
again with a fresh kernel and nothing re-run. The panel must come back from the saved state,
with no "Error displaying widget" anywhere; the `.ipynb` on disk must hold a readable fallback
(text/html and text/plain) for viewers without the widgets' JavaScript, such as nbviewer.
"""

from __future__ import annotations

import json
import urllib.request

import nbformat
from playwright.sync_api import Page, expect

from tests.studio.lab_page import open_notebook, run_all
from tests.studio.test_browser import KERNEL_CELL, SETUP, wait_until_cell_ran

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def shut_down_kernels(lab, name: str) -> int:
    """Delete the sessions of notebook `name` (their kernels go with them); how many there were."""

    def call(path: str, method: str = "GET") -> bytes:
        request = urllib.request.Request(f"{lab.base}{path}?token={lab.token}", method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    sessions = [s for s in json.loads(call("/api/sessions")) if s["path"] == name]
    for session in sessions:
        call(f"/api/sessions/{session['id']}", "DELETE")
    return len(sessions)


def panel_output(path) -> dict:
    nb = nbformat.read(path, as_version=4)
    shown = [o for o in nb.cells[1].outputs if o.get("output_type") == "display_data"]
    assert len(shown) == 1, nb.cells[1].outputs
    return {"data": shown[0]["data"], "metadata": nb.metadata}


def test_panel_survives_save_close_and_reopen(lab, page: Page, artifacts):
    url = lab.notebook("reopen.ipynb", [SETUP, KERNEL_CELL])
    run_all(page, url)
    wait_until_cell_ran(page, 1, 2)
    expect(page.locator(".tistudio-passes")).to_have_attribute("data-ready", "1")
    expect(page.locator(".tistudio-field")).to_have_attribute("data-ready", "1")
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=15_000)
    page.evaluate("() => window.jupyterapp.commands.execute('application:close-all')")
    expect(page.locator(".jp-Notebook")).to_have_count(0, timeout=15_000)
    assert shut_down_kernels(lab, "reopen.ipynb") == 1

    saved = panel_output(lab.root / "reopen.ipynb")
    size = (lab.root / "reopen.ipynb").stat().st_size
    print(f"saved notebook with one panel (96x96 field): {size} bytes")
    assert size < 1_000_000, size  # widget state + fallback PNG stay small enough for git
    data = saved["data"]
    assert WIDGET_VIEW in data
    assert "tistudio" in data["text/plain"] and "paint on cpu" in data["text/plain"]
    html = data["text/html"]
    assert "paint on cpu" in html and "passes of paint" in html  # header, pass table
    assert "t: f32 (runtime), scale: f32 (runtime)" in html  # the cache row
    assert "data:image/png;base64," in html and "x: min" in html  # the field, as a picture
    state = saved["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert data[WIDGET_VIEW]["model_id"] in state

    open_notebook(page, url)  # reopen: a fresh kernel starts, nothing runs
    panel = page.locator(".tistudio-panel")
    expect(panel).to_have_count(1, timeout=30_000)
    expect(page.locator(".jp-InputPrompt").nth(1)).to_have_text("[2]:")  # not run again
    expect(page.locator(".tistudio-header .ti-chip")).to_have_text(["paint"])
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=30_000)
    expect(page.locator(".tistudio-cache tr.ti-cache-row")).to_have_count(1)
    field = page.locator(".tistudio-field")
    expect(field).to_have_attribute("data-painted", "1", timeout=30_000)
    # the restored explorer still responds: another pass, another IR (no kernel needed)
    ir = explorer.locator(".ti-code.ti-ir")
    explorer.locator(".ti-pass").first.click()
    first_ir = ir.inner_text()
    explorer.locator(".ti-pass", has=page.locator(".ti-delta .a:not(:empty)")).nth(1).click()
    expect(ir).not_to_have_text(first_ir)
    expect(page.locator(".jp-OutputArea-output", has_text="Error displaying widget")).to_have_count(
        0
    )
    assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
    note = page.locator(".tistudio-header .ti-bar").evaluate(
        "(el) => getComputedStyle(el, '::after').content"
    )
    assert "saved view" in note, note  # one quiet note instead of a broken-link icon per part
    panel.screenshot(path=artifacts / "reopened_panel.png")
