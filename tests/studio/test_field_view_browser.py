"""The field viewer in a real JupyterLab (Chromium through Playwright): its frame rates, drawn by
WebGL2 from the frame's u8 codes, printed for 512x512 and 2048x2048; and a click on a NaN
element, which shows where the NaN came from (`explain_nan`, issue #30).

Rates are printed, not asserted: this 2-core machine runs five engineers' tests at once. What
is asserted is that the picture is drawn by WebGL2 with the right colours, that the rates were
measured, and that the click explains the right line.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all

SETUP = "%load_ext tistudio\nimport tistudio as ti\nimport numpy as np\nimport time, os"
FIELD_CELL = """ti.init(arch=ti.cpu)
y = ti.field(ti.f32, shape=(512, 512), name="y")
z = ti.field(ti.f32, shape=(2048, 2048), name="z")
from tistudio.studio import view
w = view(y, cmap="magma", max_fps=240)

@ti.kernel
def wave(t: ti.f32):
    for i, j in y:
        g = ti.abs(i - 64.0) + ti.abs(j - 400.0) - 12.0
        y[i, j] = ti.sin(i * 0.03 + t) * ti.cos(j * 0.021 - 0.7 * t) + ti.log(g)

@ti.kernel
def big(t: ti.f32):
    for i, j in z:
        z[i, j] = ti.sin(i * 0.004 + t) * ti.cos(j * 0.003)

wave(0.0)
big(0.0)
w"""
BIG_CELL = "w2 = view(z, cmap='viridis', max_fps=240)\nw2"
# runs until the test creates the stop file (or ten minutes pass: a hang guard)
LOOP_CELL = """t0 = time.monotonic()
k = 0
while not os.path.exists({stop!r}) and time.monotonic() - t0 < 600:
    wave(k * 0.05)
    k += 1
    time.sleep(0.002)
wave(0.0)"""
MEASURE_CELL = "w.measure_draw_rate(2.0)\ntime.sleep(3.5)\nw2.measure_draw_rate(2.0)"


def test_frame_rates_and_a_click_on_a_nan_explains_it(lab, page: Page, artifacts):
    stop = lab.root / "stop-field-loop"
    cells = [SETUP, FIELD_CELL, BIG_CELL, LOOP_CELL.format(stop=str(stop)), MEASURE_CELL]
    run_all(page, lab.notebook("field_rates.ipynb", cells))
    views = page.locator(".tistudio-field")
    expect(views).to_have_count(2, timeout=90_000)
    small, large = views.nth(0), views.nth(1)
    expect(small).to_have_attribute("data-renderer", "webgl2", timeout=60_000)
    expect(large).to_have_attribute("data-painted", "1", timeout=60_000)

    # end to end: frames of the running kernel loop, encoded, sent and drawn
    busy = page.locator(".jp-Notebook-ExecutionIndicator[data-status='busy']")
    expect(busy).to_have_count(1, timeout=60_000)
    page.wait_for_function(
        "document.querySelector('.tistudio-field').dataset.frame > 5", timeout=60_000
    )
    painted0, t0 = int(small.get_attribute("data-painted")), time.monotonic()
    frame0 = int(small.get_attribute("data-frame"))
    page.wait_for_timeout(3000)
    painted1, t1 = int(small.get_attribute("data-painted")), time.monotonic()
    frame1 = int(small.get_attribute("data-frame"))
    assert busy.count() == 1, "the loop ended before the test stopped it"
    stop.touch()
    painted, arrived = (painted1 - painted0) / (t1 - t0), (frame1 - frame0) / (t1 - t0)
    print(f"field view 512x512 end to end: {painted:.1f} frames/s painted, {arrived:.1f} arrived")

    # the browser's drawing rate, each frame uploaded and drawn as if new
    expect(large).to_have_attribute("data-paced-fps", re.compile(r"\d"), timeout=60_000)
    for name, view in (("512x512", small), ("2048x2048", large)):
        drawn, paced = view.get_attribute("data-draw-fps"), view.get_attribute("data-paced-fps")
        rates = f"{drawn} frames/s back to back, {paced} per animation frame"
        print(f"field view {name} drawn in Chromium: {rates}")
        assert float(drawn) > 0 and float(paced) > 0

    # the WebGL picture has the colour map's colours: NaN magenta at the clicked element
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    expect(idle).to_have_count(1, timeout=60_000)
    canvas = small.locator(".ti-canvas")
    box = canvas.bounding_box()
    assert box is not None
    x = (64 + 0.5) / 512 * box["width"]
    y = (511 - 400 + 0.5) / 512 * box["height"]
    canvas.hover(position={"x": x, "y": y})
    tip = small.locator(".ti-tip")
    expect(tip).to_contain_text("≈ — · click: where from?")  # a NaN (420 px show 512 elements)
    i, j = map(int, re.search(r"y\[(\d+), (\d+)\]", tip.inner_text()).groups())
    g = abs(i - 64) + abs(j - 400) - 12.0
    assert g < 0
    pixel = small.evaluate(  # the picture of a quantised frame lies on the WebGL canvas
        """(el, [x, y]) => {
            const canvas = el.querySelector('.ti-gl'), gl = canvas.getContext('webgl2');
            const px = Math.floor(x * canvas.width / canvas.clientWidth);
            const py = canvas.height - 1 - Math.floor(y * canvas.height / canvas.clientHeight);
            const out = new Uint8Array(4);
            gl.readPixels(px, py, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, out);
            return Array.from(out);
        }""",
        [x, y],
    )
    assert pixel == [255, 0, 255, 255], pixel  # the NaN colour
    canvas.click(position={"x": x, "y": y})
    explain = small.locator(".ti-explain")
    expect(explain).to_contain_text(f"y[{i}, {j}]", timeout=30_000)
    expect(explain).to_contain_text(f"log({g}) = nan")
    expect(explain).to_contain_text("y[i, j] = ti.sin(i * 0.03 + t)")
    expect(explain).to_contain_text("(kernel wave")
    small.screenshot(path=artifacts / "field_view_nan.png")
