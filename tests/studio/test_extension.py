"""The JupyterLab extension (extension/, shipped prebuilt in tistudio/labextension) in a real
JupyterLab: `%%ti_kernel` cells get their decorations on top of Python highlighting, other cells
get none, and the command palette's "Insert %%ti_kernel cell" inserts a template that runs.
Also: the committed build belongs to extension/package.json and `pip install` put it where
JupyterLab finds it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.studio.test_browser import SETUP, run_all

KERNEL_CELL = """%%ti_kernel --show cache
x = ti.field(ti.f32, shape=16)

def fill(t: ti.f32):
    for i in x:
        x[i] = ti.sin(i * t)

fill(0.5)"""
PLAIN_CELL = "y = ti.field(ti.f32, shape=4)  # not a %%ti_kernel cell: no decorations"

# the colour CodeMirror gives a token, and JupyterLab's colour for Python keywords
TOKEN_COLOR = """([cell, word]) => {
    const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
    for (const line of cells[cell].querySelectorAll('.cm-line')) {
        for (const span of line.querySelectorAll('span')) {
            if (span.textContent === word) return getComputedStyle(span).color;
        }
    }
    return null;
}"""
KEYWORD_COLOR = """() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--jp-mirror-editor-keyword-color)';
    document.body.appendChild(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
}"""


ROOT = Path(__file__).resolve().parents[2]


def test_prebuilt_extension_matches_its_package_and_is_installed() -> None:
    source = json.loads((ROOT / "extension" / "package.json").read_text())
    built = json.loads((ROOT / "tistudio" / "labextension" / "package.json").read_text())
    assert (built["name"], built["version"]) == (source["name"], source["version"])
    assert (ROOT / "tistudio" / "labextension" / built["jupyterlab"]["_build"]["load"]).is_file()
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"], capture_output=True, text=True
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)  # drop colours
    assert re.search(rf"tistudio v{source['version']} enabled\s+OK", text), text


def cell(page: Page, index: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def test_ti_kernel_cells_are_highlighted_and_python_colours_kept(lab, page: Page, artifacts):
    run_all(page, lab.notebook("highlight.ipynb", [SETUP, KERNEL_CELL, PLAIN_CELL]))
    kernel_cell = cell(page, 1)
    expect(kernel_cell.locator(".cm-line.ti-magic-line")).to_have_count(1, timeout=30_000)
    expect(kernel_cell.locator(".cm-line").first).to_have_class("cm-line ti-magic-line")
    names = kernel_cell.locator(".ti-builtin")
    expect(names).to_have_text(["ti.field", "ti.f32", "ti.f32", "ti.sin"])
    expect(cell(page, 2).locator(".ti-builtin, .ti-magic-line")).to_have_count(0)
    expect(cell(page, 0).locator(".ti-builtin, .ti-magic-line")).to_have_count(0)
    keyword = page.evaluate(KEYWORD_COLOR)
    assert page.evaluate(TOKEN_COLOR, [1, "def"]) == keyword  # Python highlighting stays on
    assert page.evaluate(TOKEN_COLOR, [1, "for"]) == keyword
    builtin = names.first.evaluate("e => getComputedStyle(e).fontWeight")
    assert int(builtin) >= 600
    # the cell still runs as a studio cell
    expect(page.locator(".tistudio-cache tr.ti-cache-row")).to_have_count(1, timeout=60_000)
    kernel_cell.locator(".jp-Editor").screenshot(path=artifacts / "ti_kernel_highlight.png")


def test_palette_inserts_a_template_cell_that_runs(lab, page: Page, artifacts):
    run_all(page, lab.notebook("palette.ipynb", [SETUP]))
    expect(page.locator(".jp-Cell .jp-InputPrompt").first).to_have_text("[1]:", timeout=60_000)
    cell(page, 0).locator(".jp-InputPrompt").click()  # command mode on the first cell
    page.keyboard.press("Control+Shift+C")
    palette = page.locator("#command-palette")
    palette.locator(".lm-CommandPalette-input").fill("ti_kernel")
    item = palette.locator(".lm-CommandPalette-item", has_text="Insert %%ti_kernel cell")
    expect(item).to_have_count(1)
    top = {"x": 0, "y": 0, "width": 1000, "height": 220}
    page.screenshot(path=artifacts / "palette.png", clip=top)
    item.click()
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(2)
    inserted = cell(page, 1)
    first_line = inserted.locator(".cm-line").first
    expect(first_line).to_have_text("%%ti_kernel --show passes,cache,fields")
    expect(inserted.locator(".cm-line.ti-magic-line")).to_have_count(1)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    explorer = inserted.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(inserted.locator(".tistudio-field")).to_have_count(1, timeout=30_000)
