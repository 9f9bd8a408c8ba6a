"""The pass explorer's Taichi IR tab in a real JupyterLab (issue #30, stretch): its button runs
Taichi 1.7.4 on the cell's kernel (in a subprocess, from a thread of the kernel), the tab says
"running…" meanwhile, then shows Taichi's IR after the pass matching the selected one; a pass
Taichi has no match for lists Taichi's passes, each clickable. Screenshot:
pass_explorer_taichi_ir.png."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP, wait_until_cell_ran

CELL = """%%ti_kernel --show passes,source --no-debug
a = ti.field(ti.f32, shape=16)
GAIN = 3

@ti.func
def damp(v):
    return v * 0.5

def scale(k: ti.f32):
    for i in a:
        a[i] = damp(a[i]) * k + GAIN

class Box:
    v = 1.0

box = Box()

def peek():
    for i in a:
        a[i] = box.v

scale(1.0)
peek()
"""


def test_taichi_ir_tab_runs_taichi_and_shows_the_matching_pass(lab, page: Page, artifacts):
    run_all(page, lab.notebook("taichi_ir.ipynb", [SETUP, CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    pass_row = lambda name: explorer.locator(".ti-pass").filter(  # noqa: E731
        has=page.locator(".ti-pass-name", has_text=re.compile("^" + re.escape(name) + "$"))
    )
    pass_row("type_check").click()
    explorer.locator(".ti-tab[data-tab='taichi']").click()
    expect(explorer).to_have_attribute("data-tab", "taichi")
    code = explorer.locator(".ti-code.ti-ir")

    run = code.locator("button.ti-taichi-run")
    expect(run).to_have_text("Run Taichi 1.7.4 on this kernel")
    run.click()
    expect(code.locator(".ti-message")).to_have_text("running Taichi 1.7.4…", timeout=10_000)
    title = code.locator(".ti-source-title")
    expect(title).to_have_text("Taichi 1.7.4 after “Typechecked” (our type_check)", timeout=90_000)
    lines = code.locator(".ti-line .ti-text")
    expect(lines.first).to_have_text("kernel {")
    expect(lines.filter(has_text="argload[0]")).to_have_count(1)  # k, typed as Taichi types it
    expect(lines.filter(has_text=re.compile(r"const 3\b"))).not_to_have_count(0)  # GAIN
    links = code.locator(".ti-taichi-passes button")
    expect(links.first).to_have_text("Initial IR")
    expect(links.filter(has_text="Typechecked")).to_have_class(re.compile(r"\bactive\b"))
    explorer.evaluate("(el) => el.scrollIntoView()")
    page.screenshot(path=artifacts / "pass_explorer_taichi_ir.png", clip=explorer.bounding_box())

    # our jam has no Taichi pass: the tab says so; Taichi's "Offloaded" is one click away
    pass_row("jam").click()
    expect(code.locator(".ti-message")).to_have_text(
        re.compile("Taichi has no pass named like “jam”")
    )
    expect(title).to_have_count(0)
    links.filter(has_text=re.compile("^Offloaded$")).click()
    expect(title).to_have_text("Taichi 1.7.4 after “Offloaded”")
    expect(lines.filter(has_text="offloaded")).not_to_have_count(0)

    # another pass with a match: shown at once, Taichi is not run again
    pass_row("lower_access").click()
    expect(title).to_have_text("Taichi 1.7.4 after “Access lowered” (our lower_access)")

    # a kernel the Taichi run cannot recreate: one line saying why, no traceback
    explorer.locator("select.ti-instance").select_option(label="peek()")
    expect(explorer).to_have_attribute("data-tab", "taichi")
    code.locator("button.ti-taichi-run").click()
    reason = "uses the global `box`, a Box, which the Taichi run cannot recreate"
    expect(code.locator(".ti-message")).to_have_text(reason, timeout=30_000)
    expect(code).not_to_contain_text("Traceback")
