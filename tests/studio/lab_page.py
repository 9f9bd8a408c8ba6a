"""Opening a notebook and running all its cells, without fixed waits.

`tests/studio/test_browser.py`'s `run_all` waits five seconds for a "Select Kernel" dialog that
rarely comes; this waits for whichever comes first, the dialog or the kernel's name in the
toolbar, so a test spends no time on a dialog that is not there. It works in JupyterLab and in
Notebook 7 (both expose `window.jupyterapp` on the test server).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

KERNEL_READY = ".jp-Notebook-ExecutionIndicator[data-status='idle']"


def open_notebook(page: Page, url: str) -> None:
    """Open `url` and wait until its kernel is idle, accepting "Select Kernel" if asked."""
    page.goto(url)
    page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    named = page.locator(".jp-KernelName", has_text="Python 3")
    accept.or_(named).first.wait_for(timeout=60_000)
    if accept.count():
        accept.click()
    expect(page.locator(KERNEL_READY)).to_have_count(1, timeout=60_000)


def run_all(page: Page, url: str) -> None:
    """Open the notebook and start running all its cells (returns at once)."""
    open_notebook(page, url)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
