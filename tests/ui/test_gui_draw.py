"""`ti.GUI`'s drawing, pixel by pixel: each primitive at known coordinates gives known pixels in
the frame (row 0 on top) and in the file `show(file)` writes, with Taichi's coverage rules."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.ui import image_io
from tistudio.ui.gui import GUI


def _frame(gui: GUI) -> np.ndarray:
    return gui.canvas.frame().copy()


def _at(frame: np.ndarray, i: int, j: int) -> tuple[int, ...]:
    """The pixel at Taichi's (x, y) (y up) of a (h, w, 3) frame."""
    return tuple(int(v) for v in frame[frame.shape[0] - 1 - j, i])


def _lit(frame: np.ndarray) -> set[tuple[int, int]]:
    """Taichi (x, y) of every pixel that is not black."""
    rows, cols = np.nonzero(frame.sum(axis=-1))
    return {(int(c), frame.shape[0] - 1 - int(r)) for r, c in zip(rows, cols)}


def test_circle_covers_pixels_within_radius_with_linear_edge() -> None:
    gui = GUI(res=32, show_gui=False)
    gui.circle((0.5, 0.5), color=0xFF0000, radius=3)  # centre at pixel (16, 16)
    frame = _frame(gui)
    assert _at(frame, 16, 16) == (255, 0, 0)
    assert _at(frame, 18, 16) == (255, 0, 0)  # distance 2: coverage 1
    assert _at(frame, 16, 19) == (0, 0, 0)  # distance 3: coverage 0
    # distance sqrt(2^2 + 2^2) = 2.83: coverage 0.17 -> int(0.17 * 255)
    assert _at(frame, 18, 18) == (int(np.float32(3 - np.sqrt(np.float32(8))) * 255), 0, 0)
    lit = _lit(frame)
    assert lit == {
        (i, j) for i in range(10, 23) for j in range(10, 23) if np.hypot(i - 16, j - 16) < 3
    }


def test_line_radius_is_half_width_with_round_caps() -> None:
    gui = GUI(res=32, show_gui=False)
    # from pixel (8, 16.5) to (24, 16.5): row 16's centres lie on it
    gui.line((8 / 32, 16.5 / 32), (24 / 32, 16.5 / 32), radius=1, color=0x00FF00)
    frame = _frame(gui)
    assert all(_at(frame, i, 16) == (0, 255, 0) for i in range(8, 24))
    assert _at(frame, 12, 15) == (0, 0, 0) and _at(frame, 12, 17) == (0, 0, 0)
    assert _at(frame, 7, 16) == (0, 127, 0)  # centre 7.5 is 0.5 from the cap: coverage 0.5
    assert _at(frame, 24, 16) == (0, 127, 0)
    assert _lit(frame) == {(i, 16) for i in range(7, 25)}


def test_long_diagonal_line_is_continuous() -> None:
    gui = GUI(res=(200, 100), show_gui=False)
    gui.line((0.0, 0.0), (1.0, 1.0), radius=1.5, color=0xFFFFFF)
    lit = _lit(_frame(gui))
    for x in range(2, 198):  # every column has the pixel the segment passes through
        y = int((x + 0.5) / 2)
        assert (x, y) in lit


def test_triangle_fills_pixel_centres_inside_or_on_edges() -> None:
    gui = GUI(res=32, show_gui=False)
    gui.triangle((0, 0), (0.5, 0), (0, 0.5), color=0x0000FF)  # legs of 16 pixels
    frame = _frame(gui)
    expected = {(i, j) for i in range(16) for j in range(16) if i + j <= 15}
    assert _lit(frame) == expected
    assert _at(frame, 0, 0) == (0, 0, 255) and _at(frame, 15, 0) == (0, 0, 255)


def test_triangles_later_ones_cover_earlier_ones() -> None:
    gui = GUI(res=16, show_gui=False)
    a = np.array([[0, 0], [0, 0]], np.float32)
    b = np.array([[1, 0], [1, 0]], np.float32)
    c = np.array([[0, 1], [0, 1]], np.float32)
    gui.triangles(a, b, c, color=np.array([0xFF0000, 0x00FF00]))
    assert _at(_frame(gui), 3, 3) == (0, 255, 0)


def test_rect_is_four_lines() -> None:
    gui = GUI(res=64, show_gui=False)
    gui.rect((10.5 / 64, 50.5 / 64), (40.5 / 64, 20.5 / 64), radius=1, color=0xFFFF00)
    frame = _frame(gui)
    for i in range(10, 41):
        assert _at(frame, i, 50) == (255, 255, 0) and _at(frame, i, 20) == (255, 255, 0)
    for j in range(20, 51):
        assert _at(frame, 10, j) == (255, 255, 0) and _at(frame, 40, j) == (255, 255, 0)
    assert _at(frame, 25, 35) == (0, 0, 0)


def test_circles_with_radii_colours_and_palette() -> None:
    gui = GUI(res=64, show_gui=False)
    pos = np.array([[0.25, 0.25], [0.75, 0.75]])
    gui.circles(
        pos, radius=np.array([2.0, 5.0]), palette=[0x112233, 0xFFFFFF], palette_indices=[1, 0]
    )
    frame = _frame(gui)
    assert _at(frame, 16, 16) == (255, 255, 255)
    assert _at(frame, 48, 48) == (0x11, 0x22, 0x33)
    assert _at(frame, 52, 48) == (0x11, 0x22, 0x33)  # radius 5 reaches 4 pixels out fully
    assert _at(frame, 19, 16) == (0, 0, 0)  # radius 2 does not reach 3 out
    gui.clear()
    gui.circles(pos, radius=2, color=np.array([0x00FF00, 0x0000FF]))
    frame = _frame(gui)
    assert _at(frame, 16, 16) == (0, 255, 0) and _at(frame, 48, 48) == (0, 0, 255)


def _sequential_circles(res: int, pos: np.ndarray, radius: float, colors: np.ndarray) -> np.ndarray:
    """One circle after another, pixel by pixel: the order-dependent reference."""
    img = np.zeros((res, res, 3), np.float32)
    for (x, y), color in zip(pos * res, colors):
        rgb = np.array([color >> 16, (color >> 8) & 255, color & 255], np.float32) / 255
        for i in range(res):
            for j in range(res):
                a = np.clip(radius - np.hypot(x - i, y - j), 0, 1)
                img[i, j] = img[i, j] * (1 - a) + rgb * a
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)


def test_overlapping_blended_circles_compose_in_drawing_order() -> None:
    rng = np.random.default_rng(3)
    pos = 0.4 + 0.2 * rng.random((40, 2))  # heavily overlapping
    colors = rng.integers(0, 0xFFFFFF, 40)
    gui = GUI(res=24, show_gui=False)
    gui.circles(pos, radius=2.5, color=colors)
    ours = _frame(gui)
    want = _sequential_circles(24, pos.astype(np.float32), 2.5, colors)
    diff = np.abs(ours.astype(int) - want[:, ::-1].transpose(1, 0, 2).astype(int))
    assert diff.max() <= 1


def test_overlapping_circles_of_one_colour_compose_like_one_after_another() -> None:
    rng = np.random.default_rng(4)
    pos = 0.4 + 0.2 * rng.random((60, 2))
    gui = GUI(res=24, background_color=0x204060, show_gui=False)
    gui.circles(pos, radius=2.5, color=0xF0A010)
    ours = _frame(gui)
    reference = GUI(res=24, background_color=0x204060, show_gui=False)
    for p in pos:  # one call per circle: no overlaps within a batch
        reference.circle(p, color=0xF0A010, radius=2.5)
    assert np.abs(ours.astype(int) - _frame(reference)).max() <= 1


def test_arrow_and_point_field() -> None:
    gui = GUI(res=64, show_gui=False)
    gui.arrow((0.25 + 0.5 / 64, 0.5 + 0.5 / 64), (0.5, 0.0), radius=1, color=0xFFFFFF)
    frame = _frame(gui)
    assert all(_at(frame, i, 32) == (255, 255, 255) for i in range(16, 48))
    # the barbs go back from the tip at 45 degrees, a fifth of the length
    assert min(_at(frame, 45, 35)) >= 250 and min(_at(frame, 45, 29)) >= 250  # on the barbs
    assert _at(frame, 44, 35) == (74, 74, 74)  # 0.71 from the barb: coverage 0.29
    gui.clear()
    gui.point_field(np.full((4, 2), 2.0), color=0xFF0000)
    lit = _lit(_frame(gui))
    for x in (8, 24, 40, 56):  # the grid's points: (i + 0.5) / 4 across, (j + 0.5) / 2 up
        for y in (16, 48):
            assert (x, y) in lit


def test_text_lands_below_and_right_of_its_position() -> None:
    gui = GUI(res=(100, 60), show_gui=False)
    gui.text("Hi", (0.2, 0.8), font_size=20, color=0xFFFFFF)
    lit = _lit(_frame(gui))
    xs = [x for x, _ in lit]
    ys = [y for _, y in lit]
    assert lit
    assert 20 <= min(xs) <= 25 and max(xs) < 45  # two glyphs from x = 20 + 2
    assert max(ys) <= 47 and min(ys) >= 47 - 20  # the box hangs below y = 48


def test_clear_and_background_colour() -> None:
    gui = GUI(res=8, background_color=0x336699, show_gui=False)
    assert _at(_frame(gui), 3, 3) == (0x33, 0x66, 0x99)
    gui.clear(0xFF0000)
    assert _at(_frame(gui), 3, 3) == (255, 0, 0)
    gui.show()  # show clears to the background for the next frame
    assert _at(_frame(gui), 3, 3) == (0x33, 0x66, 0x99)


def _gradient(w: int, h: int) -> np.ndarray:
    x, y = np.meshgrid(np.arange(w), np.arange(h), indexing="ij")
    return np.stack([x * 7 % 256, y * 5 % 256, (x + y) % 256], axis=-1).astype(np.uint8)


def test_set_image_numpy_is_x_right_y_up() -> None:
    img = _gradient(40, 30)
    gui = GUI(res=(40, 30), show_gui=False)
    gui.set_image(img)
    frame = _frame(gui)
    assert frame.shape == (30, 40, 3)
    assert np.array_equal(frame, img.transpose(1, 0, 2)[::-1])
    gui.set_image(img.astype(np.float32) / 255)  # floats are 0..1, truncated to bytes
    assert np.abs(_frame(gui).astype(int) - frame).max() <= 1
    gui.set_image(img[:, :, 0])  # grey
    assert np.array_equal(_frame(gui)[..., 1], img[:, :, 0].T[::-1])
    rgba = np.concatenate([img, np.zeros((40, 30, 1), np.uint8)], axis=-1)
    gui.set_image(rgba)
    assert np.array_equal(_frame(gui), frame)


def test_set_image_rejects_wrong_size_and_signed_ints() -> None:
    gui = GUI(res=(40, 30), show_gui=False)
    with pytest.raises(AssertionError):
        gui.set_image(np.zeros((30, 40, 3), np.float32))
    with pytest.raises(ValueError):
        gui.set_image(np.zeros((40, 30), np.int32))


@pytest.mark.parametrize("offset", [None, (-5, 7)])
@pytest.mark.parametrize("dtype", [ti.u8, ti.f32, ti.f64])
def test_set_image_of_fields(offset: tuple[int, int] | None, dtype: object) -> None:
    ti.init(arch=ti.cpu)
    img = _gradient(20, 10)
    values = img if dtype is ti.u8 else img / 255.0
    vec = ti.Vector.field(3, dtype=dtype, shape=(20, 10), offset=offset)
    vec.from_numpy(values.astype(np.uint8 if dtype is ti.u8 else np.float64))
    gui = GUI(res=(20, 10), show_gui=False)
    gui.set_image(vec)
    want = img.transpose(1, 0, 2)[::-1].astype(int)
    assert np.abs(_frame(gui).astype(int) - want).max() <= 1
    grey = ti.field(dtype=dtype, shape=(20, 10), offset=offset)
    grey.from_numpy(values[:, :, 0].astype(np.uint8 if dtype is ti.u8 else np.float64))
    gui.set_image(grey)
    assert np.abs(_frame(gui)[..., 2].astype(int) - want[..., 0]).max() <= 1


@pytest.mark.parametrize("channels", [2, 4])
def test_set_image_of_rg_and_rgba_vector_fields(channels: int) -> None:
    ti.init(arch=ti.cpu)
    img = _gradient(8, 6)
    values = np.concatenate([img, np.full((8, 6, 1), 255, np.uint8)], axis=-1)[..., :channels]
    field = ti.Vector.field(channels, ti.f32, shape=(8, 6))
    field.from_numpy(values.astype(np.float32) / 255)
    gui = GUI(res=(8, 6), show_gui=False)
    gui.set_image(field)
    want = img.transpose(1, 0, 2)[::-1].astype(int)
    if channels == 2:
        want[..., 2] = 0  # RG: no blue
    assert np.abs(_frame(gui).astype(int) - want).max() <= 1


def test_get_image_is_taichis_rgba_layout() -> None:
    gui = GUI(res=(8, 6), show_gui=False)
    img = _gradient(8, 6)
    gui.set_image(img)
    got = gui.get_image()
    assert got.shape == (8, 6, 4) and got.dtype == np.float32
    assert np.abs(got[..., :3] * 255 - img).max() < 0.01
    assert (got[..., 3] == 1).all()


def test_set_image_of_ndarray() -> None:
    ti.init(arch=ti.cpu)
    arr = ti.Vector.ndarray(3, ti.f32, shape=(12, 8))
    img = _gradient(12, 8)
    arr.from_numpy(img.astype(np.float32) / 255)
    gui = GUI(res=(12, 8), show_gui=False)
    gui.set_image(arr)
    assert np.abs(_frame(gui).astype(int) - img.transpose(1, 0, 2)[::-1]).max() <= 1


def test_fast_gui_packs_rows_from_the_top() -> None:
    ti.init(arch=ti.cpu)
    img = _gradient(6, 4)
    field = ti.Vector.field(3, ti.u8, shape=(6, 4))
    field.from_numpy(img)
    gui = GUI(res=(6, 4), show_gui=False, fast_gui=True)
    gui.set_image(field)
    packed = gui.img.reshape(4, 6)
    for x in range(6):
        for y in range(4):
            r, g, b = (int(v) for v in img[x, y])
            assert packed[3 - y, x] == (r << 16) | (g << 8) | b
    assert np.array_equal(_frame(gui), img.transpose(1, 0, 2)[::-1])
    floats = ti.Vector.field(4, ti.f32, shape=(6, 4))
    floats.fill(0.5)
    gui.set_image(floats)
    assert gui.img[0] == (127 << 16) | (127 << 8) | 127
    with pytest.raises(AssertionError):
        gui.set_image(np.zeros((6, 4, 3), np.float32))


def test_contour_uses_plasma_and_resamples() -> None:
    from matplotlib import colormaps

    ti.init(arch=ti.cpu)
    field = ti.field(ti.f32, shape=(2, 2))
    field.from_numpy(np.array([[0.0, 0.5], [0.5, 1.0]], np.float32))
    gui = GUI(res=(3, 3), show_gui=False)
    gui.contour(field)
    frame = _frame(gui)
    centre = (np.float32(colormaps["plasma"](0.5)[:3]) * 255).astype(int)
    assert np.abs(np.array(_at(frame, 1, 1)) - centre).max() <= 1
    corner = (np.float32(colormaps["plasma"](1.0)[:3]) * 255).astype(int)
    assert np.abs(np.array(_at(frame, 2, 2)) - corner).max() <= 1
    gui.contour(field, normalize=True)
    assert np.abs(np.array(_at(_frame(gui), 2, 2)) - corner).max() <= 1


def test_show_file_writes_the_frame(tmp_path) -> None:
    gui = GUI(res=(40, 30), show_gui=False)
    img = _gradient(40, 30)
    gui.set_image(img)
    gui.circle((0.5, 0.5), color=0xFFFFFF, radius=4)
    want = _frame(gui).transpose(1, 0, 2)[:, ::-1]
    path = tmp_path / "frame.png"
    gui.show(str(path))
    assert np.array_equal(image_io.imread(str(path)), want)
    assert gui.frame == 1


def test_get_os_name_uses_taichis_words() -> None:
    import platform

    from tistudio._lib.utils import get_os_name

    words = {"Linux": "linux", "Darwin": "osx", "Windows": "win"}
    assert get_os_name() == words[platform.system()]
