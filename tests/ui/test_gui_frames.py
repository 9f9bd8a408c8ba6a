"""`ti.GUI`'s frame path: a whole-picture `set_image` or `clear` goes straight to bytes, the float
canvas is built only when a primitive draws, and the pixels stay Taichi's either way."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tistudio as ti
from tistudio.ui.gui import GUI
from tistudio.ui.gui_image import cook_image, float_planes, interleaved
from tistudio.ui.raster import Canvas


def _float_frame(image: np.ndarray) -> np.ndarray:
    """Taichi's rounding of a [x, y, 3] float image, as rows from the top."""
    rgb = image[:, ::-1, :3].transpose(1, 0, 2).astype(np.float32)
    return (np.clip(rgb, 0, 1) * np.float32(255)).astype(np.uint8)


@pytest.fixture(autouse=True)
def _cpu() -> None:
    ti.init(arch=ti.cpu)


def _painted_field(width: int, height: int, n: int = 3) -> object:
    """A float vector field with values below 0, inside 0..1 and above 1."""
    field = ti.Vector.field(n, ti.f32, shape=(width, height))
    values = np.random.default_rng(1).uniform(-0.5, 1.5, (width, height, n)).astype(np.float32)
    field.from_numpy(values)
    return field


@pytest.mark.parametrize("n", [3, 4])
def test_vector_field_frame_matches_taichis_rounding(n: int) -> None:
    field = _painted_field(24, 16, n)
    gui = GUI(res=(24, 16), show_gui=False)
    gui.set_image(field)
    assert np.array_equal(gui.canvas.frame(), _float_frame(field.to_numpy()))


def test_a_vector_fields_components_are_read_in_place_as_one_array() -> None:
    field = _painted_field(8, 6)
    pixels = interleaved(float_planes(field))
    assert pixels is not None and pixels.shape == (8, 6, 3)
    assert np.array_equal(pixels, field.to_numpy())
    apart = [np.zeros((8, 6), np.float32) for _ in range(3)]  # separate arrays: no view
    assert interleaved(apart) is None


def test_set_image_keeps_the_image_as_it_was_then() -> None:
    field = _painted_field(8, 8)
    before = field.to_numpy()
    gui = GUI(res=8, show_gui=False)
    gui.set_image(field)
    field.fill(0.25)  # the program changes the field before show()
    assert np.array_equal(gui.canvas.frame(), _float_frame(before))
    gui.circle((0.5, 0.5), radius=0.1)  # drawing builds the float canvas from the old image too
    untouched = _float_frame(before)[0]
    assert np.array_equal(gui.canvas.frame()[0], untouched)


def test_drawing_after_set_image_blends_with_the_unclamped_floats() -> None:
    image = np.full((4, 4, 3), 2.0, np.float32)  # above 1: clamped only when shown
    canvas = Canvas(4, 4)
    canvas.set_image(image)
    assert canvas.frame()[0, 0].tolist() == [255, 255, 255]
    keys = np.arange(16)
    canvas._blend(keys, np.full(16, 0.5, np.float32), np.zeros(3, np.float32))
    assert canvas.frame()[0, 0].tolist() == [255, 255, 255]  # 2 * 0.5 = 1.0, not 0.5


def test_uint8_images_round_as_their_float_scaling_does() -> None:
    values = np.arange(256, dtype=np.uint8)
    image = np.stack([values, values[::-1], values], axis=-1).reshape(16, 16, 3)
    floats = cook_image(image, (16, 16))
    by_bytes, by_floats = Canvas(16, 16), Canvas(16, 16)
    by_bytes.set_image(image)
    by_floats.set_image(floats)
    assert np.array_equal(by_bytes.frame(), by_floats.frame())
    for canvas in (by_bytes, by_floats):  # and once a primitive draws on them
        canvas.circles(np.array([8.0]), np.array([8.0]), np.array([5.0]), np.ones(3, np.float32))
    assert np.array_equal(by_bytes.frame(), by_floats.frame())
    assert np.array_equal(by_bytes.rgb, by_floats.rgb)


def test_uint8_field_through_gui_is_its_bytes() -> None:
    field = ti.field(ti.u8, shape=(10, 6, 3))
    data = np.random.default_rng(2).integers(0, 256, (10, 6, 3), dtype=np.uint8)
    field.from_numpy(data)
    gui = GUI(res=(10, 6), show_gui=False)
    gui.set_image(field)
    assert np.array_equal(gui.canvas.frame(), data[:, ::-1].transpose(1, 0, 2))
    assert np.allclose(gui.get_image()[..., :3], data / 255, atol=1e-6)


def test_clear_is_one_colour_until_something_draws() -> None:
    canvas = Canvas(6, 4)
    canvas.clear((0.5, 1.5, -1.0))
    assert (canvas.frame() == [127, 255, 0]).all()
    canvas.set_image(np.zeros((6, 4, 3), np.float32))
    canvas.clear((0.2, 0.4, 0.6))  # a clear after set_image replaces the image
    assert np.allclose(canvas.rgb, np.float32([0.2, 0.4, 0.6]))
    canvas.circles(np.array([0.0]), np.array([0.0]), np.array([2.0]), np.ones(3, np.float32))
    frame = canvas.frame()
    assert frame[3, 0].tolist() == [255, 255, 255]  # the circle, on the cleared picture
    assert frame[0, 5].tolist() == [51, 102, 153]


def test_a_1024_frame_of_a_field_costs_a_few_milliseconds() -> None:
    """set_image + show of a 1024x1024 float vector field, headless: 3-4 ms (the best of 12)
    on the project's loaded 2-core machine, where the float canvas path took 28-34 ms."""
    field = _painted_field(1024, 1024)
    gui = GUI(res=1024, show_gui=False)
    times = []
    for _ in range(12):
        start = time.perf_counter()
        gui.set_image(field)
        gui.show()
        times.append(time.perf_counter() - start)
    assert min(times) < 0.015, times
