"""The compiled last step of a GUI frame gives the bytes the NumPy path gives, and steps aside
where no CPU program runs."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl
from tistudio.ui import frame_kernels
from tistudio.ui.raster import Canvas


def numpy_frame(image: np.ndarray) -> np.ndarray:
    canvas = Canvas(image.shape[0], image.shape[1])  # no kernel: NumPy only
    canvas.set_image(image)
    return np.ascontiguousarray(canvas.frame())


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_the_kernel_frame_equals_the_numpy_frame(dtype) -> None:
    ti.init(arch=ti.cpu)
    rng = np.random.default_rng(3)
    w, h = 67, 41  # not square: a swapped axis shows
    if dtype == np.uint8:
        image = rng.integers(0, 256, (w, h, 3), dtype=np.uint8)
    else:
        image = (rng.random((w, h, 3), dtype=np.float32) * 1.6 - 0.3).astype(np.float32)
        image[1, 2, 0], image[3, 4, 1], image[5, 6, 2] = np.nan, np.inf, -np.inf
    canvas = Canvas(w, h, rows_kernel=frame_kernels.rows)
    canvas.set_image(image)
    frame = canvas.frame()
    assert frame.flags.c_contiguous and frame.shape == (h, w, 3)  # rows, ready to send
    np.testing.assert_array_equal(frame, numpy_frame(image))
    assert tuple(frame[h - 1, 0]) == tuple(numpy_frame(image)[h - 1, 0])  # (x 0, y 0) bottom left


def test_without_a_cpu_program_the_kernel_steps_aside() -> None:
    ti.reset()
    assert impl.current.program is None
    out = np.zeros((4, 5, 3), np.uint8)
    assert frame_kernels.rows(np.ones((5, 4, 3), np.float32), out) is False
    assert impl.current.program is None  # it did not start one
    assert not out.any()
