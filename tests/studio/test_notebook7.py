"""The studio in Jupyter Notebook 7 (`/notebooks/...`), served by the browser tests' server.

Notebook 7 loads the same prebuilt labextensions as JupyterLab (anywidget's and ours); this
runs a `%%ti_kernel` cell there and checks the pass explorer, the cache view and the field view
render and respond: clicking a pass changes the IR shown, a later cell's call updates the cache.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import KERNEL_CELL, SETUP, wait_until_cell_ran


def test_panel_works_in_notebook7(lab, page: Page, artifacts):
    cells = [SETUP, KERNEL_CELL, "paint(0.6, 1.0)"]
    run_all(page, lab.notebook7("nb7.ipynb", cells))
    assert "/notebooks/nb7.ipynb" in page.url and "/lab" not in page.url
    wait_until_cell_ran(page, 2, 3)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=30_000)
    rows = page.locator(".tistudio-cache tr.ti-cache-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-hits", "2")  # the third cell's call, live
    ir = explorer.locator(".ti-code.ti-ir")
    explorer.locator(".ti-pass").first.click()
    expect(explorer).to_have_attribute("data-pass", "0")
    first_ir = ir.inner_text()
    changed = explorer.locator(".ti-pass", has=page.locator(".ti-delta .a:not(:empty)")).nth(1)
    changed.click()
    expect(explorer).to_have_attribute("data-pass", changed.get_attribute("data-index") or "")
    assert explorer.get_attribute("data-pass") != "0"
    expect(ir).not_to_have_text(first_ir)
    explorer.locator(".ti-tab[data-tab='diff']").click()
    expect(explorer.locator(".ti-code.ti-ir .ti-line.add").first).to_be_visible()
    field = page.locator(".tistudio-field")
    expect(field).to_have_count(1)
    expect(field).to_have_attribute("data-ready", "1")
    assert int(field.get_attribute("data-painted") or 0) >= 1
    field.locator(".ti-canvas").hover(position={"x": 40, "y": 40})
    expect(field.locator(".ti-tip")).to_contain_text("x[")
    page.locator(".tistudio-panel").screenshot(path=artifacts / "notebook7_panel.png")
