"""A vector field in the browser: magnitude with arrows, live while a loop of launches runs.

The `%%ti_kernel --show fields` panel shows the `ti.Vector.field` its kernel writes; a later
cell launches the kernel in a loop for a few seconds, and the canvas must change while the
kernel is busy (frames counted, pixels read back). One cell holds NaN: it is painted magenta,
a colour no colour map and no arrow uses, and counted.
"""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP

VECTOR_CELL = """%%ti_kernel --show fields
v = ti.Vector.field(2, ti.f32, shape=(128, 128), name="v")

def swirl(t: ti.f32):
    for i, j in v:
        a = ti.atan2(j - 64.0, i - 64.0) + t
        v[i, j] = ti.Vector([ti.cos(a), ti.sin(a)]) * (1.0 + 0.5 * ti.sin(i * 0.1 + t))
    v[100, 30] = ti.Vector([ti.math.nan, 0.0])

swirl(0.0)"""
LOOP_CELL = """t0 = time.monotonic()
k = 0
while time.monotonic() - t0 < 3.0:
    swirl(k * 0.05)
    k += 1
    time.sleep(0.01)
print("launches", k)"""
# counts of pixels on the field's canvas: magenta (NaN), white (arrow cores) and a checksum
PIXELS = """(args) => {
  const [el, cell] = args;
  const canvas = el.querySelector('.ti-canvas');
  const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let magenta = 0, white = 0, sum = 0;
  for (let k = 0; k < px.length; k += 4) {
    const r = px[k], g = px[k + 1], b = px[k + 2];
    if (r === 255 && g === 0 && b === 255) magenta++;
    if (r > 240 && g > 240 && b > 240) white++;
    sum = (sum * 31 + r + 7 * g + 13 * b) % 1000000007;
  }
  const [i, j, side] = cell, sx = canvas.width / side, sy = canvas.height / side;
  const top = Math.floor(canvas.height - (j + 1) * sy);
  const box = canvas.getContext('2d').getImageData(
    Math.floor(i * sx), top, Math.floor(sx), Math.floor(sy)).data;
  let inCell = 0;
  for (let k = 0; k < box.length; k += 4) {
    inCell += box[k] === 255 && box[k + 1] === 0 && box[k + 2] === 255;
  }
  return {magenta, white, sum, inCell, cellPixels: box.length / 4};
}"""
NAN_CELL = [100, 30, 128]


def pixels(field) -> dict:
    return field.evaluate(f"(el) => ({PIXELS})([el, {NAN_CELL}])")


def test_vector_field_shows_magnitude_arrows_and_nan_live(lab, page: Page, artifacts):
    run_all(page, lab.notebook("vector.ipynb", [SETUP, VECTOR_CELL, LOOP_CELL]))
    field = page.locator(".tistudio-field")
    expect(field).to_have_attribute("data-ready", "1", timeout=60_000)
    busy = page.locator(".jp-Notebook-ExecutionIndicator[data-status='busy']")
    page.wait_for_function(
        "document.querySelector('.tistudio-field').dataset.frame > 3", timeout=30_000
    )
    frame0, before, t0 = int(field.get_attribute("data-frame")), pixels(field), time.monotonic()
    page.wait_for_timeout(600)
    frame1, after = int(field.get_attribute("data-frame")), pixels(field)
    assert busy.count() == 1, "the loop ended before the measurement did"
    print(f"vector view: {(frame1 - frame0) / (time.monotonic() - t0):.1f} frames/s (128x128)")
    assert frame1 > frame0 and after["sum"] != before["sum"], (frame0, frame1)
    expect(field).to_have_attribute("data-nan", "1")
    expect(field.locator(".ti-nan")).to_have_text("1")
    assert after["white"] > 200, after  # the arrows
    # the NaN cell, between the rotating arrows (two frames: one arrow may cover it in one)
    assert before["magenta"] + after["magenta"] >= 1, (before, after)
    field.screenshot(path=artifacts / "field_view_vector_live.png")
    expect(busy).to_have_count(0, timeout=30_000)
    painted = int(field.get_attribute("data-painted"))
    field.locator("label", has_text="arrows").locator("input").uncheck()
    page.wait_for_function(
        "(n) => document.querySelector('.tistudio-field').dataset.painted > n", arg=painted
    )
    plain = pixels(field)
    assert plain["white"] == 0, plain  # magnitude alone: viridis has no white
    assert plain["inCell"] == plain["cellPixels"] == plain["magenta"], plain  # only the NaN cell
