"""Lineage in the pass explorer, in a real JupyterLab (issue #30): a clicked Python line marks
the passes that created, rewrote or deleted its statements and its lines in the IR, the LLVM
IR and the assembly; a clicked IR statement shows its source line and the passes that made and
changed it, each a link to that pass. Screenshots: pass_explorer_lineage.png and
pass_explorer_lineage_asm.png."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP, wait_until_cell_ran

CELL = """%%ti_kernel --show passes,source --no-debug
a = ti.field(ti.f32, shape=16)
b = ti.field(ti.f32, shape=16)

def scale(k: ti.f32):
    for i in a:
        x = a[i] * 1.0
        b[i] = x + k * 2.0

scale(1.0)
"""


def shoot(page: Page, explorer, path) -> None:
    """The explorer as the page shows it (an element screenshot of the widget came out shifted
    by the notebook's scrolling, cutting off its bar and tabs)."""
    page.screenshot(path=path, clip=explorer.bounding_box())


def test_python_line_and_ir_statement_link_through_the_passes(lab, page: Page, artifacts):
    run_all(page, lab.notebook("lineage.ipynb", [SETUP, CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(explorer.locator(".ti-pass").first).to_be_visible(timeout=30_000)
    pass_row = lambda name: explorer.locator(".ti-pass").filter(  # noqa: E731
        has=page.locator(".ti-pass-name", has_text=re.compile("^" + re.escape(name)))
    )

    # a Python line: the passes that touched its statements get badges
    explorer.locator(".ti-source .ti-line", has_text="x = a[i] * 1.0").click()
    expect(explorer).not_to_have_attribute("data-linked", "")
    line = explorer.get_attribute("data-linked")
    expect(pass_row("alg_simp (simplify I)").locator(".ti-lineage .d")).to_have_text("−1")
    expect(pass_row("lower_ast").locator(".ti-lineage .c")).to_have_text(re.compile(r"^\+\d"))
    expect(pass_row("type_check").locator(".ti-lineage")).to_have_count(0)

    # ... and its statements in each pass's IR: lower_ast made the load, the 1.0 and the mul
    pass_row("lower_ast").click()
    linked = explorer.locator(".ti-code.ti-ir .ti-line.linked")
    expect(linked.filter(has_text="global load")).to_have_count(1, timeout=10_000)
    expect(linked.filter(has_text="const 1.0")).to_have_count(1)
    expect(linked.filter(has_text="mul")).to_have_count(1)

    # ... and in the diffs, the lines a pass deleted included
    pass_row("alg_simp (simplify I)").click()
    explorer.locator(".ti-tab[data-tab='diff']").click()
    deleted = explorer.locator(".ti-code.ti-ir .ti-line.del.linked")
    expect(deleted).to_have_count(1, timeout=10_000)
    expect(deleted).to_contain_text("= mul ")

    # ... and in the final LLVM IR (lines defining values named after the final IR)
    explorer.locator(".ti-tab[data-tab='llvm']").click()
    expect(explorer).to_have_attribute("data-tab", "llvm")
    llvm = explorer.locator(f".ti-code.ti-ir .ti-line.linked[data-src='{line}']")
    expect(llvm.filter(has_text="load float")).not_to_have_count(0, timeout=10_000)
    # ... and in the assembly (made again with a line table, debug_lines.py): the vectorised
    # and the scalar loop's additions of `b[i] = x + k * 2.0` (the load of a[i] folds into them)
    explorer.locator(".ti-tab[data-tab='asm']").click()
    expect(explorer).to_have_attribute("data-tab", "asm")
    explorer.locator(".ti-source .ti-line", has_text="b[i] = x + k * 2.0").click()
    store_line = explorer.get_attribute("data-linked")
    assert store_line != line
    asm = explorer.locator(f".ti-code.ti-ir .ti-line.linked[data-src='{store_line}']")
    expect(asm.filter(has_text=re.compile(r"\tvaddps"))).not_to_have_count(0, timeout=10_000)
    expect(asm.filter(has_text=re.compile(r"\tvaddss"))).not_to_have_count(0)
    expect(explorer.locator(".ti-lineage-info")).to_be_hidden()
    asm.filter(has_text=re.compile(r"\tvaddps")).first.scroll_into_view_if_needed()
    shoot(page, explorer, artifacts / "pass_explorer_lineage_asm.png")
    # an instruction names its statement, and the statement's source line
    explorer.locator(".ti-code.ti-ir .ti-line", has_text=re.compile(r"\tvaddps")).first.click()
    expect(explorer.locator(".ti-lineage-info")).to_contain_text("b[i] = x + k * 2.0")
    expect(explorer.locator(".ti-lineage-info")).to_contain_text("created by lower_ast")
    explorer.locator(".ti-code.ti-ir .ti-line", has_text=re.compile(r"\tvaddps")).first.click()
    expect(explorer).to_have_attribute("data-stmt", "")  # clicked again: the selection clears

    # an IR statement of the last pass: its line, and the passes that made and changed it
    explorer.locator(".ti-tab[data-tab='ir']").click()
    page.locator(".ti-passlist").focus()
    page.keyboard.press("End")
    add = explorer.locator(".ti-code.ti-ir .ti-line", has_text=re.compile(r"= add \$"))
    add.click()
    info = explorer.locator(".ti-lineage-info")
    expect(info).to_contain_text("b[i] = x + k * 2.0", timeout=10_000)
    expect(info).to_contain_text("created by lower_ast")
    expect(info).to_contain_text("rewritten by store_forwarding (simplify I)")
    expect(explorer.locator(".ti-code .ti-line.same-stmt")).to_have_count(1)
    shoot(page, explorer, artifacts / "pass_explorer_lineage.png")
    # the creating pass is a link: its IR shows the same statement (another number), marked
    info.locator(".ti-pass-link", has_text="lower_ast").click()
    expect(pass_row("lower_ast")).to_have_class(re.compile("selected"), timeout=10_000)
    same = explorer.locator(".ti-code .ti-line.same-stmt")
    expect(same).to_have_count(1)
    expect(same).to_contain_text("= add $")
    # clicking it again clears the selection
    same.click()
    expect(explorer).to_have_attribute("data-stmt", "")
    expect(explorer.locator(".ti-lineage-info")).to_be_hidden()


def test_wgsl_lines_link_to_python_lines_and_statements(lab, page: Page, artifacts):
    run_all(page, lab.notebook("lineage_gpu.ipynb", [SETUP + "\nti.init(arch=ti.gpu)", CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(explorer.locator(".ti-pass").first).to_be_visible(timeout=30_000)
    explorer.locator(".ti-tab[data-tab='wgsl']").click()
    expect(explorer).to_have_attribute("data-tab", "wgsl")
    # a Python line: its `// file:line` comments and the WGSL below them light up
    explorer.locator(".ti-source .ti-line", has_text="b[i] = x + k * 2.0").click()
    linked = explorer.locator(".ti-code.ti-ir .ti-line.linked")
    expect(linked.filter(has_text="b[i] = x + k * 2.0")).not_to_have_count(0, timeout=10_000)
    expect(
        linked.filter(has_text=re.compile(r"let s\d+: f32 = \(s\d+ \+ s\d+\)"))
    ).not_to_have_count(0)
    # a WGSL line that defines a statement's value: its line and its passes
    explorer.locator(
        ".ti-code.ti-ir .ti-line", has_text=re.compile(r"= \(s\d+ \+ s\d+\)")
    ).first.click()
    info = explorer.locator(".ti-lineage-info")
    expect(info).to_contain_text("b[i] = x + k * 2.0", timeout=10_000)
    expect(info).to_contain_text("created by lower_ast")
    expect(explorer.locator(".ti-code .ti-line.same-stmt")).not_to_have_count(0)
    shoot(page, explorer, artifacts / "pass_explorer_lineage_wgsl.png")


def test_lineage_clicks_work_in_notebook7(lab, page: Page):
    run_all(page, lab.notebook7("lineage_nb7.ipynb", [SETUP, CELL]))
    assert "/notebooks/lineage_nb7.ipynb" in page.url and "/lab" not in page.url
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    explorer.locator(".ti-source .ti-line", has_text="x = a[i] * 1.0").click()
    expect(explorer.locator(".ti-pass.lineage")).not_to_have_count(0, timeout=10_000)
    explorer.locator(".ti-code.ti-ir .ti-line", has_text=re.compile(r"= add \$")).click()
    info = explorer.locator(".ti-lineage-info")
    expect(info).to_contain_text("b[i] = x + k * 2.0", timeout=10_000)
    expect(info).to_contain_text("created by lower_ast")
