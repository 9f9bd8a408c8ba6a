"""A reopened notebook shows the studio panel's saved HTML, with JupyterLab's default settings.

By default ipywidgets does not save the widgets' state with the notebook ("save widget state" is
off), so a reopened notebook with a fresh kernel has no model for the panel's widget view, and
ipywidgets shows "Error displaying widget: model not found". tistudio's JupyterLab extension
(`extension/src/fallback.ts`) renders the same output's `text/html` fallback there instead: the
header, the pass table, the cache row and the field as a PNG. Other libraries' widgets keep
ipywidgets' message (an IntSlider here), so only outputs carrying tistudio's fallback change.
It runs in JupyterLab and in Notebook 7 (the same plugin serves both).

The session's server has "save widget state" on (conftest.py, for test_reopen.py); this test
turns it off through JupyterLab's settings API for its own run and turns it back on afterwards.
"""

from __future__ import annotations

import json
import time
import urllib.request

import nbformat
import pytest
from playwright.sync_api import Page, expect

from tests.studio.lab_page import KERNEL_READY, open_notebook, run_all
from tests.studio.test_browser import KERNEL_CELL, SETUP, wait_until_cell_ran
from tests.studio.test_reopen import WIDGET_STATE, WIDGET_VIEW, shut_down_kernels

WIDGETS_SETTINGS = "/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin"
SLIDER_CELL = "import ipywidgets\nipywidgets.IntSlider(value=3)"
NOT_FOUND = "Error displaying widget: model not found"


def _settings(lab, raw: dict | None = None) -> dict:
    """Read ipywidgets' user settings, or replace them with `raw`."""
    body = None if raw is None else json.dumps({"raw": json.dumps(raw)}).encode()
    request = urllib.request.Request(
        f"{lab.base}{WIDGETS_SETTINGS}",
        data=body,
        method="GET" if raw is None else "PUT",
        headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
    return json.loads(text) if text else {}


@pytest.fixture
def default_widget_settings(lab):
    """JupyterLab's default for the test: the widgets' state is not saved with the notebook."""
    before = json.loads(_settings(lab)["raw"] or "{}")
    _settings(lab, {**before, "saveState": False})
    assert _settings(lab)["settings"]["saveState"] is False
    yield
    _settings(lab, before)


def _saved_panel(path) -> dict:
    """The panel's output in the notebook on disk, once the save has written it (else {})."""
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return {}
    shown = [o for o in nb.cells[1].outputs if o.get("output_type") == "display_data"]
    return shown[0]["data"] if len(shown) == 1 and "text/html" in shown[0]["data"] else {}


@pytest.mark.parametrize("ui", ["lab", "notebook7"])
def test_reopened_panel_shows_saved_html(lab, page: Page, artifacts, default_widget_settings, ui):
    name = f"reopen_default_{ui}.ipynb"
    cells = [SETUP, KERNEL_CELL, SLIDER_CELL]
    url = lab.notebook(name, cells) if ui == "lab" else lab.notebook7(name, cells)
    run_all(page, url)
    wait_until_cell_ran(page, 2, 3)
    live = page.locator(".jp-Cell").nth(1)
    expect(live.locator(".tistudio-passes")).to_have_attribute("data-ready", "1")
    expect(live.locator(".tistudio-field")).to_have_attribute("data-ready", "1")
    expect(live.locator(".tistudio-fallback, .tistudio-static")).to_have_count(0)  # live: as is
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0, timeout=15_000)
    deadline = time.monotonic() + 15
    while not _saved_panel(lab.root / name):
        assert time.monotonic() < deadline, "the notebook was not saved with the panel's output"
        time.sleep(0.2)
    page.goto("about:blank")  # close the notebook
    assert shut_down_kernels(lab, name) == 1

    nb = nbformat.read(lab.root / name, as_version=4)
    assert WIDGET_STATE not in nb.metadata.get("widgets", {})  # the default: no saved state
    (shown,) = [o for o in nb.cells[1].outputs if o.get("output_type") == "display_data"]
    assert WIDGET_VIEW in shown["data"] and 'class="tistudio-static"' in shown["data"]["text/html"]

    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if "tistudio" in m.text else None)
    open_notebook(page, url)  # reopen: a fresh kernel starts, nothing runs
    expect(page.locator(".jp-InputPrompt").nth(1)).to_have_text("[2]:")  # not run again
    cells = page.locator(".jp-Cell")
    slider = cells.nth(2).locator(".jp-OutputArea-output")
    expect(slider).to_have_text(NOT_FOUND, timeout=30_000)  # other widgets: ipywidgets' message
    saved = cells.nth(1).locator(".jp-OutputArea-output.tistudio-fallback")
    expect(saved).to_have_count(1, timeout=30_000)
    static = saved.locator(".tistudio-static").first  # the panel (the field view nests one)
    expect(static).to_contain_text("paint on cpu")  # the header
    passes = static.locator("details")
    passes.locator("summary", has_text="passes of paint").click()  # the pass table, opened
    expect(passes.locator("tr", has=page.locator("td"))).not_to_have_count(0)
    expect(passes.locator("td").first).to_be_visible()
    expect(static).to_contain_text("t: f32 (runtime), scale: f32 (runtime)")  # the cache row
    picture = static.locator("img[src^='data:image/png;base64,']")
    expect(picture).to_have_count(1)  # the field, as a picture
    expect(picture).to_be_visible()
    assert picture.evaluate("(img) => img.complete && img.naturalWidth") > 100
    expect(cells.nth(1).get_by_text("Error displaying widget")).to_have_count(0)
    assert cells.nth(1).inner_text().count("Error displaying widget") == 0
    assert page.locator(".jp-Notebook").inner_text().count("Error displaying widget") == 1
    saved.screenshot(path=artifacts / f"reopened_default_panel_{ui}.png")

    # a kernel restart (still no model for the panel) keeps the saved view, and no error
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:restart-kernel'); }")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    expect(page.locator(KERNEL_READY)).to_have_count(1, timeout=60_000)
    expect(slider).to_have_text(NOT_FOUND, timeout=30_000)
    expect(saved).to_have_count(1)
    expect(static).to_contain_text("paint on cpu")
    expect(cells.nth(1).get_by_text("Error displaying widget")).to_have_count(0)
    assert problems == []
