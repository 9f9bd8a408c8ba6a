"""The pass explorer's tools in a real JupyterLab (issue #30): hide unchanged passes, search,
the CFG tab's SVG (nesting as the IR nests, nothing overlapping in a ~100-statement kernel) and
the sparklines across two instantiations. Screenshot: pass_explorer_cfg.png."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP, wait_until_cell_ran

CELL = """%%ti_kernel --show passes,source --no-debug
x = ti.field(ti.f32, shape=(16, 16))
y = ti.field(ti.i32, shape=16)

def smooth(t: ti.template(), n: ti.i32):
    for i in range(16):
        for j in range(n):
            if x[i, j] > t:
                x[i, j] = x[i, j] * 0.5 + t
            else:
                x[i, j] = x[i, j] + 1.0
    for i in y:
        c = 0
        while c < 10:
            c += 1
            if c > n:
                break
        y[i] = c

smooth(1, 8)
smooth(2, 8)
"""

# no two boxes (blocks, or the boxes of loops, ifs and tasks) overlap unless one holds the other
OVERLAPS = """(root) => {
  const rect = (g) => g.querySelector(':scope > rect').getBBox();
  const boxes = [...root.querySelectorAll('.cfg-node')].map((g) => [g, rect(g)]);
  const inside = (a, b) => b.contains(a);
  const hit = (p, q) =>
    p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;
  const bad = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      if (!inside(a, b) && !inside(b, a) && hit(ra, rb)) bad.push([a.dataset.kind, b.dataset.kind]);
    }
  const past = (t, r) => t.getBBox().x + t.getBBox().width > r.x + r.width + 1;
  const spill = [...root.querySelectorAll('.cfg-block')].filter((g) => {
    const r = rect(g);
    return [...g.querySelectorAll('text')].some((t) => past(t, r));
  });
  return { bad, spill: spill.length, nodes: boxes.length };
}"""


def test_hide_unchanged_search_cfg_and_sparklines(lab, page: Page, artifacts):
    run_all(page, lab.notebook("explorer_tools.ipynb", [SETUP, CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    rows = explorer.locator(".ti-pass")
    expect(rows.first).to_be_visible(timeout=30_000)
    expect(explorer.locator(".ti-instance option")).to_have_count(2, timeout=30_000)

    # sparklines: two instantiations, a time and a statement-count line per pass
    expect(rows.first.locator("svg.ti-spark")).to_have_count(2)
    assert rows.first.locator("svg.ti-spark polyline").first.get_attribute("points").count(",") == 2

    # hide unchanged: the rows of passes that changed nothing go, the others stay
    total = rows.count()
    unchanged = explorer.locator(".ti-pass.unchanged").count()
    assert unchanged > 0
    explorer.locator(".ti-hide-unchanged").check()
    visible = explorer.locator(".ti-pass:visible")
    expect(visible).not_to_have_count(total, timeout=10_000)
    # only the selected pass may stay (dimmed) while it is one of the hidden
    expect(explorer.locator(".ti-pass.unchanged:visible:not(.selected)")).to_have_count(0)
    expect(explorer.locator(".ti-pass.ti-filtered:visible:not(.selected)")).to_have_count(0)
    grew = explorer.locator(".ti-pass:not(.unchanged):has(.ti-delta .a:not(:empty))")
    expect(grew.locator("visible=true")).to_have_count(grew.count())
    assert grew.count() > 3
    # the keys move between the shown passes only
    visible.first.click()
    for _ in range(4):
        page.keyboard.press("ArrowDown")
        expect(explorer.locator(".ti-pass.selected:not(.unchanged)")).to_have_count(1)
    explorer.locator(".ti-hide-unchanged").uncheck()
    expect(visible).to_have_count(total)
    rows.last.click()

    # search: the list keeps the passes whose IR holds "offloaded" (offload and after), the
    # text marks each match
    explorer.locator(".ti-search").fill("Offloaded")
    expect(explorer.locator(".ti-pass .ti-hits").first).to_be_visible(timeout=10_000)
    shown = visible.count()
    assert 0 < shown < total
    expect(explorer.locator(".ti-code.ti-ir mark.ti-hit")).to_have_text(["offloaded"] * 2)
    expect(explorer.locator(".ti-pass:visible .ti-pass-name").first).to_contain_text("offload")
    # Enter selects the next pass that matches
    explorer.locator(".ti-search").press("Enter")
    expect(explorer.locator(".ti-pass.selected .ti-hits")).to_have_count(1)
    first_hit = int(explorer.get_attribute("data-pass"))
    explorer.locator(".ti-search").press("Enter")
    expect(explorer).not_to_have_attribute("data-pass", str(first_hit))
    expect(explorer.locator(".ti-pass.selected .ti-hits")).to_have_count(1)
    explorer.locator(".ti-search").fill("no such statement")
    expect(explorer.locator(".ti-search-hits")).to_have_text("0 passes · 0 here")
    explorer.locator(".ti-search").fill("")
    expect(visible).to_have_count(total)

    # the CFG of the last pass: two tasks; a range-for inside the first around an if/else; a
    # while in the second with an if inside whose true branch ends in a break
    rows.last.click()
    explorer.locator(".ti-tab[data-tab='cfg']").click()
    svg = explorer.locator(".ti-cfg svg.cfg-svg")
    expect(svg).to_be_visible(timeout=30_000)
    expect(svg.locator(".cfg-graph > .cfg-task")).to_have_count(2)
    first, second = svg.locator(".cfg-task").nth(0), svg.locator(".cfg-task").nth(1)
    expect(first.locator(".cfg-loop[data-loop='range'] .cfg-if .cfg-block")).to_have_count(2)
    expect(first.locator(".cfg-if [data-branch='else'] .cfg-block")).to_have_count(1)
    loop = second.locator(".cfg-loop[data-loop='while']")
    expect(loop).to_have_count(1)
    expect(loop.locator(".cfg-if .cfg-block[data-exit='break']")).to_have_count(2)
    expect(loop.locator(":scope > path.cfg-back")).to_have_count(1)
    expect(loop.locator(":scope > path.cfg-exit")).to_have_count(2)
    layout = svg.evaluate(OVERLAPS)
    assert layout["bad"] == [] and layout["spill"] == 0, layout
    explorer.locator(".ti-hide-unchanged").check()  # as a person reading the pipeline would
    explorer.scroll_into_view_if_needed()
    # the CFG pane scrolled to the second task: its while loop, breaks and back edge in view
    scroll = (
        "(pane) => { pane.scrollTop = pane.querySelectorAll('.cfg-task')[1].getBBox().y - 60; }"
    )
    explorer.locator(".ti-cfg").evaluate(scroll)
    explorer.screenshot(path=artifacts / "pass_explorer_cfg.png")
    explorer.locator(".ti-hide-unchanged").uncheck()

    # the frontend IR (first pass): loops without tasks, the while keeps its condition
    page.locator(".ti-passlist").focus()
    page.keyboard.press("Home")
    expect(explorer).to_have_attribute("data-pass", "0")
    expect(svg.locator(".cfg-task")).to_have_count(0, timeout=30_000)
    expect(svg.locator(".cfg-graph > .cfg-loop[data-loop='range'] > .cfg-loop")).to_have_count(1)
    expect(
        svg.locator(".cfg-loop[data-loop='struct'] > .cfg-loop[data-loop='while']")
    ).to_have_count(1)

    # search marks statements in the CFG too
    explorer.locator(".ti-search").fill("atomic_add")
    expect(svg.locator("text.cfg-stmt.hit")).to_have_count(1)
    expect(svg.locator("text.cfg-stmt.hit")).to_contain_text("atomic_add(@tmp")
    expect(svg.locator("rect.cfg-hit")).to_have_count(1)
    expect(explorer.locator(".ti-search-hits")).to_contain_text("· 1 here")
    explorer.locator(".ti-search").fill("")
    expect(svg.locator("text.cfg-stmt.hit")).to_have_count(0)


BIG_CELL = (
    """%%ti_kernel --show passes --no-debug
a = ti.field(ti.f32, shape=64)

def big(n: ti.i32):
    for i in a:
        v = a[i]
"""
    + "".join(
        f"""        if v > {k}.0:
            v = v * 0.5 + {k}.0
        else:
            v = v + ti.sin(v) * {k}.0
"""
        for k in range(12)
    )
    + """        a[i] = v

big(3)
"""
)


def test_the_cfg_of_a_hundred_statement_kernel_stays_readable(lab, page: Page, artifacts):
    run_all(page, lab.notebook("explorer_big.ipynb", [SETUP, BIG_CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    explorer.locator(".ti-tab[data-tab='cfg']").click()
    svg = explorer.locator(".ti-cfg svg.cfg-svg")
    expect(svg).to_be_visible(timeout=30_000)
    stmts = svg.locator("text.cfg-stmt").count() + svg.locator(".cfg-head").count()
    expect(svg.locator(".cfg-if")).to_have_count(12)
    layout = svg.evaluate(OVERLAPS)
    assert layout["bad"] == [] and layout["spill"] == 0, layout
    width = float(svg.get_attribute("width"))
    height = float(svg.get_attribute("height"))
    print(f"\n100-statement CFG: {stmts} statements shown, {width:.0f} x {height:.0f} px")
    assert width < 1200  # ifs in a row stack down the page: no sideways scrolling to read it
    # the pane scrolls through it (the explorer does not grow with the graph)
    pane = explorer.locator(".ti-cfg")
    sizes = pane.evaluate("(p) => { p.scrollTop = 800; return [p.scrollTop, p.clientHeight]; }")
    assert sizes[0] == 800 and sizes[1] < 700, sizes
    # a long straight-line block folds; clicking "… N more" unfolds it
    more = svg.locator(".cfg-more")
    if more.count():
        before = svg.locator("text.cfg-stmt").count()
        more.first.click()
        expect(svg.locator("text.cfg-stmt")).not_to_have_count(before)
    explorer.screenshot(path=artifacts / "pass_explorer_cfg_big.png")
