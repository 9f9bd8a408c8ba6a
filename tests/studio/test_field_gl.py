"""The field viewer's WebGL2 drawing (static/field_gl.js) paints the same colours as its 2D
canvas colouring: the module runs in Chromium with a stand-in model, once with WebGL2 and once
with it switched off (`--disable-3d-apis`), on a quantised frame holding every code (the colour
map's levels, NaN, +Inf, -Inf), also as a volume's slice."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tests.studio.conftest import CHROMIUM, CHROMIUM_FLAGS
from tistudio.studio import frames
from tistudio.studio.field_view import COLORMAPS, colormap_luts, field_esm

NI, NJ = 300, 260  # 78,000 elements: above frames.QUANTISE_ABOVE, so the frame is u8 codes
MODEL = """([shape, codes, luts, cmaps]) => {
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const data = bytes(codes), table = bytes(luts);
  const traits = {title: "t", shape, encoding: "u8", vmin: 0, vmax: 1, mean: 0.5, nan_count: 1,
    inf_count: 2, vector: false, arrows: new DataView(new ArrayBuffer(0)), arrow_shape: [],
    show_arrows: true, cmap: "magma", cmaps, luts: new DataView(table.buffer), slice_axis: 0,
    slice_index: 1, paused: false, active: new DataView(new ArrayBuffer(0)), blocks: [],
    show_blocks: true, activity: "", lengths: "", frame: 1, explainable: false, explanation: {},
    data: new DataView(data.buffer)};
  const model = {get: (k) => traits[k], set: (k, v) => { traits[k] = v; }, save_changes() {},
    on() {}, off() {}, send() {}};
  const el = document.createElement("div");
  document.body.replaceChildren(el);
  window.FieldView.render({model, el});
  return el.dataset.renderer;
}"""
PIXELS = """([cells, ni, nj]) => {
  const gl = document.querySelector(".ti-gl"), flat = document.querySelector(".ti-canvas");
  const onGl = gl && gl.style.display !== "none";
  const canvas = onGl ? gl : flat, w = canvas.width, h = canvas.height;
  let read;
  if (onGl) {
    const ctx = gl.getContext("webgl2"), all = new Uint8Array(w * h * 4);
    ctx.readPixels(0, 0, w, h, ctx.RGBA, ctx.UNSIGNED_BYTE, all);
    const at = (x, y) => 4 * ((h - 1 - y) * w + x);
    read = (x, y) => Array.from(all.subarray(at(x, y), at(x, y) + 3));
  } else {
    const all = flat.getContext("2d").getImageData(0, 0, w, h).data;
    read = (x, y) => Array.from(all.subarray(4 * (y * w + x), 4 * (y * w + x) + 3));
  }
  const x = (i) => Math.floor(((i + 0.5) * w) / ni);
  const y = (j) => Math.floor(((nj - 1 - j + 0.5) * h) / nj);
  return cells.map(([i, j]) => read(x(i), y(j)));
}"""


def codes_frame(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, frames.LEVELS + 1, size=shape, dtype=np.uint8)
    for plane in codes.reshape(-1, NI, NJ):  # in every slice
        plane[5, 7], plane[6, 7] = frames.NAN_CODE, frames.POS_INF_CODE
        plane[7, 7] = frames.NEG_INF_CODE
    return codes


def colours(browser_type, extra: list[str], shape: tuple[int, ...], cells: list) -> tuple:
    browser = browser_type.launch(executable_path=CHROMIUM, args=[*CHROMIUM_FLAGS, *extra])
    try:
        page = browser.new_page(viewport={"width": 900, "height": 700})
        page.set_content("<html><body></body></html>")
        page.add_script_tag(content=field_esm().replace("export default", "window.FieldView ="))
        codes = base64.b64encode(codes_frame(shape).tobytes()).decode()
        luts = base64.b64encode(colormap_luts()).decode()
        renderer = page.evaluate(MODEL, [list(shape), codes, luts, list(COLORMAPS)])
        return renderer, page.evaluate(PIXELS, [cells, NI, NJ])
    finally:
        browser.close()


@pytest.mark.parametrize("shape", [(NI, NJ), (3, NI, NJ)], ids=["2d", "volume slice"])
def test_webgl_and_2d_canvas_paint_the_same_colours(browser_type, shape) -> None:
    cells = [[5, 7], [6, 7], [7, 7], [0, 0], [NI - 1, NJ - 1], [0, NJ - 1], [NI - 1, 0]]
    rng = np.random.default_rng(3)
    cells += [[int(i), int(j)] for i, j in zip(rng.integers(0, NI, 60), rng.integers(0, NJ, 60))]
    gl_renderer, on_gl = colours(browser_type, [], shape, cells)
    flat_renderer, on_2d = colours(browser_type, ["--disable-3d-apis"], shape, cells)
    assert (gl_renderer, flat_renderer) == ("webgl2", "2d")
    assert on_gl == on_2d
    assert on_gl[0] == [255, 0, 255] and on_gl[1] == on_gl[2] == [0, 229, 255]  # NaN, +-Inf
    codes = codes_frame(shape).reshape(-1, NI, NJ)[1 if len(shape) == 3 else 0]
    lut = np.frombuffer(colormap_luts(), np.uint8).reshape(len(COLORMAPS), 256, 3)
    magma = lut[COLORMAPS.index("magma")]
    for (i, j), rgb in zip(cells[3:], on_gl[3:]):
        level = int(int(codes[i, j]) * 255 / frames.LEVELS + 0.5)  # JavaScript's Math.round
        assert rgb == magma[level].tolist(), (i, j, codes[i, j])
