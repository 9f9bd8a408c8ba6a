"""`ti.tools`: Taichi's image helpers (`imwrite`, `imread`, `imresize`, `imshow`, and
`VideoManager` from `video`).

Taichi programs save their fields as pictures with these, and `imshow` opens a GUI on one. The
file formats live in `image_io`; this module adds Taichi's conventions: fields and ndarrays are
accepted wherever a NumPy array is, floats in [0, 1] are scaled by 255 and truncated, unsigned
16/32/64-bit integers keep their top byte, and every image is `[x, y(, c)]` with y pointing up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tistudio.ui import image_io
from tistudio.ui.video import VideoManager

__all__ = ["VideoManager", "imread", "imresize", "imshow", "imwrite"]


def _as_numpy(img: Any) -> np.ndarray:
    if isinstance(img, np.ndarray):
        return img
    if hasattr(img, "to_numpy"):
        return img.to_numpy()
    return np.asarray(img)


def cook_image_to_bytes(img: Any) -> np.ndarray:
    """A field, ndarray or NumPy image `[x, y(, c)]` as uint8 `[x, y, c]` (c = 1, 3 or 4).

    float32/float64 are clipped to [0, 1] and scaled by 255, truncating (0.5 gives 127);
    uint16/32/64 are divided by (max // 256) and wrap to 8 bits, as Taichi does; other types
    (signed integers, float16) raise ValueError, as in Taichi.
    """
    img = _as_numpy(img)
    if img.dtype in (np.uint16, np.uint32, np.uint64):
        img = (img // (np.iinfo(img.dtype).max // 256)).astype(np.uint8)
    elif img.dtype in (np.float32, np.float64):
        img = (np.clip(img, 0, 1) * 255.0).astype(np.uint8)
    elif img.dtype != np.uint8:
        raise ValueError(f"Data type {img.dtype} not supported in ti.tools.imwrite")
    if img.ndim not in (2, 3):
        raise AssertionError("Image must be either RGB/RGBA or greyscale")
    if img.ndim == 2:
        img = img[:, :, None]
    if img.shape[2] not in (1, 3, 4):
        raise AssertionError("Image must be either RGB/RGBA or greyscale")
    return img


def imwrite(img: Any, filename: str | Path) -> None:
    """Save a field, ndarray or NumPy image (`[x, y]`, `[x, y, 3]` or `[x, y, 4]`) to a .png,
    .bmp or .jpg file (JPEG needs Pillow)."""
    image_io.imwrite(np.ascontiguousarray(cook_image_to_bytes(img)), filename)


def imread(filename: str | Path, channels: int = 0) -> np.ndarray:
    """Load an image file as uint8 `[x, y, c]`; `channels` 1-4 converts, 0 keeps the file's."""
    return image_io.imread(filename, channels)


def imresize(img: Any, w: int, h: int | None = None) -> np.ndarray:
    """Resize `[x, y(, ...)]` to `[w, h(, ...)]` by nearest neighbour (h defaults to w).

    Output pixel i takes input pixel floor(i * old / new), so a k-times upscale repeats each
    pixel k by k times and keeps the sum times k squared.
    """
    img = _as_numpy(img)
    if h is None:
        h = w
    if (w, h) == img.shape[:2]:
        return img
    if not (isinstance(w, int) and isinstance(h, int) and w > 1 and h > 1):
        raise AssertionError(f"imresize wants integer sizes above 1, got {w} x {h}")
    xs = np.clip(np.arange(w) * (img.shape[0] / w), 0, img.shape[0] - 1).astype(np.int32)
    ys = np.clip(np.arange(h) * (img.shape[1] / h), 0, img.shape[1] - 1).astype(np.int32)
    return img[xs[:, None], ys[None, :]]


def imshow(img: Any, title: str = "imshow") -> None:
    """Show an image in a `ti.GUI` until Escape is pressed or the window closes.

    In a notebook the GUI is the live widget under the cell; headless, the loop runs for
    `TISTUDIO_GUI_MAX_FRAMES` frames (see `tistudio.ui.sink.max_frames`).
    """
    from tistudio.ui.gui import GUI

    img = _as_numpy(img)
    if img.ndim not in (2, 3):
        raise AssertionError("Image must be either RGB/RGBA or greyscale")
    with GUI(title, res=img.shape[:2]) as gui:
        while gui.running:
            if gui.get_event(GUI.ESCAPE):
                gui.running = False
            gui.set_image(img)
            gui.show()
