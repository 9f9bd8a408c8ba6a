"""A sparse field in the browser: inactive elements grey and hatched, active zeros in the colour
map's colour, the block grid (with its toggle) and the `active: N of M cells` line."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.lab_page import run_all
from tests.studio.test_browser import SETUP

SPARSE_CELL = """x = ti.field(ti.f32, name="x")
ti.root.pointer(ti.ij, 8).dense(ti.ij, 8).place(x)

@ti.kernel
def touch():
    x[3, 3] = 0.0  # block (0, 0): active zeros
    for i, j in ti.ndrange(8, 8):
        x[40 + i, 16 + j] = i + j  # block (5, 2)

touch()
from tistudio.studio import view
view(x)"""
# pixels of element block (bi, bj) of the 64x64 canvas, and white (grid) pixels over it all
PIXELS = """(el, block) => {
  const canvas = el.querySelector('.ti-canvas'), ctx = canvas.getContext('2d');
  const s = canvas.width / 64, [bi, bj] = block;
  const top = Math.ceil(canvas.height - (bj + 1) * 8 * s) + 2, side = Math.floor(8 * s) - 4;
  const box = ctx.getImageData(Math.ceil(bi * 8 * s) + 2, top, side, side).data;
  let grey = 0, hatch = 0, other = 0;
  for (let k = 0; k < box.length; k += 4) {
    const [r, g, b] = [box[k], box[k + 1], box[k + 2]];
    if (r === 200 && g === 200 && b === 200) grey++;
    else if (r === g && g === b && r >= 150 && r < 200) hatch++;  // (or its anti-aliased edge)
    else other++;
  }
  const all = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let white = 0;
  for (let k = 0; k < all.length; k += 4) white += Math.min(all[k], all[k + 1], all[k + 2]) > 220;
  return {grey, hatch, other, white};
}"""


def test_sparse_field_shows_inactive_cells_blocks_and_activity(lab, page: Page, artifacts):
    run_all(page, lab.notebook("sparse.ipynb", [SETUP, SPARSE_CELL]))
    field = page.locator(".tistudio-field")
    expect(field).to_have_attribute("data-ready", "1", timeout=60_000)
    expect(field).to_have_attribute("data-sparse", "1")
    expect(field.locator(".ti-active")).to_have_text("128 of 4,096 cells (3.12 %)")
    inactive = field.evaluate(f"(el) => ({PIXELS})(el, [7, 7])")
    zeros = field.evaluate(f"(el) => ({PIXELS})(el, [0, 0])")
    assert inactive["other"] == 0 and inactive["grey"] > 0 and inactive["hatch"] > 0, inactive
    assert zeros["grey"] == zeros["hatch"] == 0, zeros  # active zeros: viridis' dark purple
    field.screenshot(path=artifacts / "field_view_sparse.png")
    painted = int(field.get_attribute("data-painted"))
    field.locator("label.ti-blocks input").uncheck()
    page.wait_for_function(
        "(n) => document.querySelector('.tistudio-field').dataset.painted > n", arg=painted
    )
    plain = field.evaluate(f"(el) => ({PIXELS})(el, [7, 7])")
    assert plain["white"] < inactive["white"] // 4, (plain, inactive)  # the grid is gone
