"""The widgets in a real JupyterLab, driven by Playwright through Debian's chromium.

Each test writes a notebook, runs all its cells and checks the DOM markers the widgets set
(`data-ready`, `data-frame`, `data-status`, ...). A screenshot of every widget is saved under
test-artifacts/studio/.
"""

from __future__ import annotations

import re
import time
import zipfile

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

SETUP = "%load_ext tistudio\nimport tistudio as ti\nimport numpy as np\nimport time"
KERNEL_CELL = """%%ti_kernel --show passes,cache,fields,source,export
x = ti.field(ti.f32, shape=(96, 96))

@ti.func
def bump(v):
    return v * v

def paint(t: ti.f32, scale: ti.f32):
    for i, j in x:
        u = i * 0.08 + t
        x[i, j] = ti.sin(u) * ti.cos(j * 0.11 - t) + bump(scale) * 0.0

paint(0.0, 1.0)
paint(0.3, 1.0)
"""
LIVE_CELL = """y = ti.field(ti.f32, shape=(512, 512), name="y")

@ti.kernel
def wave(t: ti.f32):
    for i, j in y:
        y[i, j] = ti.sin(i * 0.03 + t) * ti.cos(j * 0.021 - 0.7 * t)

wave(0.0)
from tistudio.studio import view
w = view(y, cmap="magma")
w"""
# runs until the test creates the file named {stop!r} (or ten minutes pass: a hang guard), so a
# busy machine cannot end the loop before the test has watched it
LOOP_CELL = """import os
t0 = time.monotonic()
k = 0
while not os.path.exists({stop!r}) and time.monotonic() - t0 < 600:
    wave(k * 0.05)
    k += 1
    time.sleep(0.004)
print("frames sent", w.frame)"""


def run_all(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=60_000
    )
    accept = page.locator(".jp-Dialog .jp-mod-accept")  # "Select Kernel", when JupyterLab asks
    try:
        accept.wait_for(timeout=5_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    # start the command without waiting for its promise (it settles only when all cells ran)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def wait_until_cell_ran(page: Page, index: int, count: int) -> None:
    """Wait until cell `index` shows execution count `count` (the panel is redrawn once, with
    its final static HTML, when its cell ends)."""
    prompt = page.locator(".jp-Cell .jp-InputPrompt").nth(index)
    expect(prompt).to_have_text(f"[{count}]:", timeout=60_000)


def test_panel_renders_and_pass_diff_highlights_lines(lab, page: Page, artifacts):
    run_all(page, lab.notebook("panel.ipynb", [SETUP, KERNEL_CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(explorer.locator(".ti-pass").first).to_be_visible(timeout=30_000)
    expect(page.locator(".tistudio-header .ti-chip")).to_have_text(["paint"])
    rows = page.locator(".tistudio-cache tr.ti-cache-row")
    expect(rows).to_have_count(1, timeout=30_000)
    expect(rows.first).to_have_attribute("data-hits", "1")
    why = rows.first.locator("td.why")  # why it compiled: short in the cell, whole in a tooltip
    expect(why).to_have_text("first call of paint")
    expect(why).to_have_attribute(
        "title", re.compile(r"^first call of paint; compiled in [\d.]+ ms$")
    )
    # pick a pass that changed the IR, look at its diff
    changed = explorer.locator(".ti-pass", has=page.locator(".ti-delta .a:not(:empty)")).nth(1)
    changed.click()
    explorer.locator(".ti-tab[data-tab='diff']").click()
    expect(explorer).to_have_attribute("data-tab", "diff")
    expect(explorer.locator(".ti-code.ti-ir .ti-line.add").first).to_be_visible()
    # a statement's Python line, and back
    explorer.locator(".ti-code.ti-ir .ti-line[data-src]").nth(4).click()
    expect(explorer.locator(".ti-source .ti-line.linked")).to_have_count(1)
    linked = explorer.get_attribute("data-linked")
    explorer.locator(f".ti-source .ti-line[data-src='{linked}']").click()  # toggles off
    explorer.locator(".ti-source .ti-line", has_text="x[i, j] =").click()
    expect(explorer.locator(".ti-code.ti-ir .ti-line.linked").first).to_be_visible()
    # keyboard: down and up between passes
    explorer.locator(".ti-pass.selected").click()
    before = int(explorer.get_attribute("data-pass"))
    page.keyboard.press("ArrowDown")
    expect(explorer).to_have_attribute("data-pass", str(before + 1))
    page.keyboard.press("k")
    expect(explorer).to_have_attribute("data-pass", str(before))
    explorer.locator(".ti-tab[data-tab='wgsl']").click()
    expect(explorer.locator(".ti-message")).to_contain_text("WebGPU back end not available")
    explorer.locator(".ti-tab[data-tab='diff']").click()
    explorer.screenshot(path=artifacts / "pass_explorer.png")
    page.locator(".tistudio-cache").screenshot(path=artifacts / "cache_view.png")
    page.locator(".tistudio-panel").screenshot(path=artifacts / "panel.png")
    export = page.locator(".tistudio-export")  # the AOT builder exists: ready to export
    expect(export.locator(".ti-status")).to_have_attribute("data-status", "idle")
    expect(export.locator(".ti-export-button")).to_be_enabled()


JAM_CELL = """%%ti_kernel --show passes --no-debug
m = ti.field(ti.f32, shape=(16, 128))
r = ti.field(ti.f32, shape=16)

def row_sums():
    for i in r:
        t = 0.0
        for j in range(128):
            t += m[i, j]
        r[i] = t

row_sums()
"""


def test_pass_explorer_shows_the_back_ends_own_passes(lab, page: Page, artifacts):
    """The CPU's unroll-and-jam is a named pass (passes/jam.py): the explorer lists it last and
    its diff shows the decision it recorded on the task (issue #26). Without debug checks: a
    task with bounds checks is not jammed."""
    run_all(page, lab.notebook("jam.ipynb", [SETUP, JAM_CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    jam = explorer.locator(".ti-pass", has=page.locator(".ti-pass-name", has_text="jam"))
    expect(jam).to_have_count(1, timeout=30_000)
    expect(explorer.locator(".ti-pass .ti-pass-name").last).to_have_text("jam")
    jam.click()
    explorer.locator(".ti-tab[data-tab='diff']").click()
    expect(explorer).to_have_attribute("data-tab", "diff")
    explorer.screenshot(path=artifacts / "pass_explorer_jam.png")
    added = explorer.locator(".ti-code.ti-ir .ti-line.add", has_text="jam(4)")
    expect(added.first).to_be_visible(timeout=30_000)


def test_field_view_updates_live_during_a_running_loop(lab, page: Page, artifacts):
    """Frames sent while a cell still runs are painted while it runs, and pausing stops the
    painting. How many frames a second it paints is a speed, which no test asserts: the rate
    is printed here, and belongs in a benchmark (benchmarks/ has no browser case yet)."""
    stop = lab.root / "stop-live-loop"
    loop = LOOP_CELL.format(stop=str(stop))
    run_all(page, lab.notebook("live.ipynb", [SETUP, LIVE_CELL, loop]))
    field = page.locator(".tistudio-field")
    expect(field).to_have_attribute("data-ready", "1", timeout=60_000)
    busy = page.locator(".jp-Notebook-ExecutionIndicator[data-status='busy']")
    expect(busy).to_have_count(1, timeout=60_000)
    page.wait_for_function(
        "document.querySelector('.tistudio-field').dataset.frame > 3", timeout=60_000
    )
    painted0, frame0 = int(field.get_attribute("data-painted")), field.get_attribute("data-frame")
    t0 = time.monotonic()
    page.wait_for_function(  # three more frames painted, each a newer frame from the kernel
        f"document.querySelector('.tistudio-field').dataset.painted >= {painted0 + 3}",
        timeout=60_000,
    )
    painted1, t1 = int(field.get_attribute("data-painted")), time.monotonic()
    assert int(field.get_attribute("data-frame")) > int(frame0)
    assert busy.count() == 1, "the loop ended before the test stopped it"
    print(f"field view: {(painted1 - painted0) / (t1 - t0):.1f} frames/s painted for 512x512")
    field.locator(".ti-canvas").hover(position={"x": 100, "y": 60})
    expect(field.locator(".ti-tip")).to_contain_text("y[")
    field.screenshot(path=artifacts / "field_view_2d.png")
    field.locator(".ti-pause").click()
    expect(field).to_have_attribute("data-paused", "1")
    frozen = field.get_attribute("data-painted")
    page.wait_for_timeout(400)
    assert busy.count() == 1, "the loop ended before the pause was watched"
    assert field.get_attribute("data-painted") == frozen
    field.locator(".ti-pause").click()
    stop.touch()
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    expect(idle).to_have_count(1, timeout=60_000)


VIEWS_CELL = """from tistudio.studio import view
g = np.mgrid[0:64, 0:64].astype(np.float32) - 32
vec = np.stack([-g[1], g[0]], axis=-1) / 32
vec[10, 10] = np.nan
v2 = view(vec, vector=True, title="swirl", cmap="viridis")
line = np.sin(np.linspace(0, 12, 400)).astype(np.float32)
line[200] = np.inf
v1 = view(line, title="line")
vol = np.sin(np.mgrid[0:32, 0:48, 0:40].astype(np.float32).sum(axis=0) * 0.1)
v3 = view(vol, title="volume", cmap="coolwarm")
display(v2, v1, v3)"""


def test_vector_line_and_volume_views_render(lab, page: Page, artifacts):
    run_all(page, lab.notebook("views.ipynb", [SETUP, VIEWS_CELL]))
    fields = page.locator(".tistudio-field")
    expect(fields).to_have_count(3, timeout=60_000)
    for i, name in enumerate(["field_view_vector", "field_view_1d", "field_view_3d"]):
        expect(fields.nth(i)).to_have_attribute("data-painted", "1", timeout=30_000)
        fields.nth(i).screenshot(path=artifacts / f"{name}.png")
    expect(fields.nth(0)).to_have_attribute("data-nan", "1")
    expect(fields.nth(0).locator(".ti-nan")).to_have_text("1")
    slider = fields.nth(2).locator(".ti-slider")
    slider.fill("5")
    expect(fields.nth(2)).to_have_attribute("data-painted", "2")


EXPORT_CELL = """from tistudio.studio import ExportPanel

@ti.kernel
def init_x():
    for i in range(4):
        pass

ExportPanel({"init_x": init_x}, path="out/module.tcm")  # the real AOT builder"""
MODULE_FILES = [
    "__content__",
    "__version__",
    "graphs.json",
    "init_x.ll",
    "init_x.o",
    "metadata.json",
]


def test_export_button_writes_a_file(lab, page: Page, artifacts):
    run_all(page, lab.notebook("export.ipynb", [SETUP, EXPORT_CELL]))
    export = page.locator(".tistudio-export")
    expect(export).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(1)
    export.locator(".ti-export-button").click()
    status = export.locator(".ti-status")
    expect(status).to_have_attribute("data-status", "done", timeout=30_000)
    expect(export.locator("tr.ti-file")).to_have_count(len(MODULE_FILES))
    expect(export.locator("a.ti-download")).to_have_attribute("download", "module.tcm")
    expect(export.locator("pre.ti-dask")).to_contain_text("from tistudio.distributed import sweep")
    target = lab.root / "out" / "module.tcm"
    assert zipfile.ZipFile(target).namelist() == MODULE_FILES
    export.screenshot(path=artifacts / "export_panel.png")
    export.locator(".ti-path").fill("out/module.zip")
    export.locator(".ti-export-button").click()
    expect(status).to_have_attribute("data-status", "error", timeout=30_000)
    expect(status).to_contain_text("must end in .tcm")


STENCIL_CELL = """%%ti_kernel --show passes --no-debug --arch gpu
a = ti.field(ti.f32, shape=(128, 128))
b = ti.field(ti.f32, shape=(128, 128))

def smooth():
    for i, j in ti.ndrange((1, 127), (1, 127)):
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

smooth()
"""


def test_pass_explorer_shows_the_gpus_padding_and_vectorize_passes(lab, page: Page, artifacts):
    """On the GPU (lavapipe here) a stencil over `ti.ndrange` goes through `pad_ndrange` right
    after `lower_ast` (its rows widened to 128 cells, from 126) and `vectorize` near the end
    (vec4 loads and stores): both are named passes in the explorer, with their diffs (#26)."""
    run_all(page, lab.notebook("stencil.ipynb", [SETUP, STENCIL_CELL]))
    wait_until_cell_ran(page, 1, 2)
    explorer = page.locator(".tistudio-passes")
    expect(explorer).to_have_attribute("data-ready", "1", timeout=60_000)
    names = explorer.locator(".ti-pass .ti-pass-name")
    expect(names.nth(2)).to_have_text("pad_ndrange", timeout=30_000)  # after initial IR, lower_ast
    pad = explorer.locator(".ti-pass", has=page.locator(".ti-pass-name", has_text="pad_ndrange"))
    pad.click()
    explorer.locator(".ti-tab[data-tab='diff']").click()
    expect(
        explorer.locator(".ti-code.ti-ir .ti-line.add", has_text="const 128").first
    ).to_be_visible(timeout=30_000)
    vectorize = explorer.locator(
        ".ti-pass", has=page.locator(".ti-pass-name", has_text="vectorize")
    )
    expect(vectorize).to_have_count(1)
    vectorize.click()
    expect(explorer).to_have_attribute("data-tab", "diff")
    added = explorer.locator(".ti-code.ti-ir .ti-line.add", has_text="vectorize(4")
    expect(added.first).to_be_visible(timeout=30_000)
    added.first.scroll_into_view_if_needed()
    explorer.screenshot(path=artifacts / "pass_explorer_vectorize.png")
