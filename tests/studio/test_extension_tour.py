"""The tour notebook (what Binder opens) in a real JupyterLab: it runs to the end with nothing
on stderr, its `%%ti_kernel` cells are highlighted by the extension, and its widgets render."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.studio.test_browser import run_all

TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "01_tour.ipynb"


def test_tour_notebook_runs_in_jupyterlab(lab, page: Page, artifacts):
    shutil.copy(TOUR, lab.root / "tour.ipynb")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    run_all(page, f"{lab.base}/lab/tree/tour.ipynb?reset&token={lab.token}")
    code_cells = page.locator(".jp-Notebook .jp-CodeCell")
    count = code_cells.count()
    last_prompt = code_cells.nth(count - 1).locator(".jp-InputPrompt")
    # Run All stops at the first error, so the last cell has its count only if none failed
    expect(last_prompt).to_have_text(f"[{count}]:", timeout=120_000)
    # errors and stderr both render with the stderr mime type: the tour writes to neither
    stderr = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    expect(stderr).to_have_count(0)
    expect(page.locator(".cm-line.ti-magic-line")).to_have_count(3)
    expect(page.locator(".tistudio-passes")).to_have_attribute("data-ready", "1")
    expect(page.locator(".tistudio-cache")).to_have_count(3)
    fields = page.locator(".tistudio-field")
    expect(fields).to_have_count(1)
    expect(fields.first).to_have_attribute("data-ready", "1")
    assert not errors, errors
    page.screenshot(path=artifacts / "tour.png", full_page=True)
