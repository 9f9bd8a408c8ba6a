"""`ti.GUI` against Taichi 1.7.4's GUI: the same drawing calls, written with `show(file)` by
both, give the same pixels (Taichi runs headless in a subprocess; text uses another font, so
only its place is compared)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tistudio.ui import image_io
from tistudio.ui.gui import GUI

pytest.importorskip("taichi")

# each scene: the statements that draw on `gui` (with NumPy as `np`)
SCENES = {
    "circle": "gui.circle((0.31, 0.42), color=0xFF8000, radius=7.3)",
    "circles": (
        "rs = np.random.RandomState(0)\n"
        "gui.circles(rs.rand(300, 2), radius=rs.rand(300) * 4, color=rs.randint(0, 2**24, 300))"
    ),
    # deep overlaps: blending order matters (colours as an array: Taichi's palette path reads
    # its colours from a freed NumPy buffer, so its palette pictures are not reproducible)
    "particles": (
        "rs = np.random.RandomState(1)\n"
        "pos = 0.3 + 0.4 * rs.rand(2000, 2)\n"
        "gui.circles(pos, radius=1.5, color=np.array([0x068587, 0xED553B, 0xEEEEF0])"
        "[rs.randint(0, 3, 2000)])"
    ),
    "lines": (
        "rs = np.random.RandomState(2)\n"
        "gui.lines(rs.rand(40, 2), rs.rand(40, 2), radius=rs.rand(40) * 3, color=0x3366FF)\n"
        "gui.line((0.1, 0.8), (0.5, 0.1), radius=1, color=0xFFFFFF)"
    ),
    "triangles": (
        "rs = np.random.RandomState(3)\n"
        "gui.triangles(rs.rand(30, 2), rs.rand(30, 2), rs.rand(30, 2),"
        " color=rs.randint(0, 2**24, 30))\n"
        "gui.triangle((0.1, 0.1), (0.9, 0.3), (0.4, 0.95), color=0xFF00FF)"
    ),
    "rect_arrows": (
        "gui.rect((0.2, 0.8), (0.7, 0.3), radius=2, color=0xFFFF00)\n"
        "gui.arrows(np.array([[0.1, 0.1], [0.5, 0.5]]), np.array([[0.3, 0.1], [-0.2, 0.3]]),"
        " radius=1.5, color=0x00FFFF)"
    ),
    "image_and_circle": (
        "x, y = np.meshgrid(np.linspace(0, 1, 96), np.linspace(0, 1, 64), indexing='ij')\n"
        "gui.set_image(np.stack([x, y, x * y], axis=-1).astype(np.float32))\n"
        "gui.circle((0.5, 0.5), color=0x000000, radius=10)"
    ),
    "text": "gui.text('Hello 42', (0.1, 0.9), font_size=24, color=0xFFFFFF)",
}
RES = (96, 64)

TAICHI_SCRIPT = """
import json, sys
import numpy as np
import taichi as ti
ti.init(arch=ti.cpu)
out, scenes, res = sys.argv[1], json.loads(sys.argv[2]), tuple(json.loads(sys.argv[3]))
for name, code in scenes.items():
    gui = ti.GUI("t", res=res, show_gui=False)
    exec(code, {"gui": gui, "np": np})
    gui.show(f"{out}/{name}.png")
"""


@pytest.fixture(scope="module")
def taichi_pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("taichi_gui")
    done = subprocess.run(
        [sys.executable, "-c", TAICHI_SCRIPT, str(out), json.dumps(SCENES), json.dumps(RES)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def _ours(name: str, out: Path) -> np.ndarray:
    gui = GUI("t", res=RES, show_gui=False)
    exec(SCENES[name], {"gui": gui, "np": np})
    gui.show(str(out / f"{name}.png"))
    return image_io.imread(str(out / f"{name}.png"))


@pytest.mark.parametrize("name", [n for n in SCENES if n != "text"])
def test_primitives_match_taichi(name: str, taichi_pictures: Path, tmp_path: Path) -> None:
    theirs = image_io.imread(str(taichi_pictures / f"{name}.png")).astype(int)
    ours = _ours(name, tmp_path).astype(int)
    assert ours.shape == theirs.shape
    # coverage: the same pixels are drawn, but for a few edge pixels
    covered = np.abs(ours.sum(-1) > 0).astype(int) - (theirs.sum(-1) > 0)
    assert np.count_nonzero(covered) <= 3
    # colours: float rounding may move a byte by one; at most a few edge pixels differ more
    off = np.abs(ours - theirs).max(axis=-1)
    assert np.count_nonzero(off > 2) <= 3, np.argwhere(off > 2)[:10]


def test_text_lands_where_taichi_puts_it(taichi_pictures: Path, tmp_path: Path) -> None:
    theirs = image_io.imread(str(taichi_pictures / "text.png")).sum(-1) > 0
    ours = _ours("text", tmp_path).sum(-1) > 0

    def box(lit: np.ndarray) -> np.ndarray:
        xs, ys = np.nonzero(lit)
        return np.array([xs.min(), xs.max(), ys.min(), ys.max()])

    # another font: same top-left corner within 2 pixels, same size within a few
    assert np.abs(box(ours)[[0, 3]] - box(theirs)[[0, 3]]).max() <= 2
    assert np.abs(box(ours) - box(theirs)).max() <= 6
