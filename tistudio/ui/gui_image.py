"""Images for `ti.GUI`: what `set_image`, fast-GUI mode and `contour` do to their input.

Taichi's GUI accepts fields, ndarrays and NumPy arrays in its own layout ([x, y(, c)], y up),
of unsigned integers (scaled by their type's maximum) or floats (0..1), grey, RG, RGB or RGBA.
These functions turn them into what `raster.Canvas` takes, with Taichi's rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_numpy(value: Any) -> np.ndarray:
    """A NumPy array of `value`: Taichi fields and ndarrays through their `to_numpy()`."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "to_numpy"):
        return value.to_numpy()
    return np.asarray(value)


def host_array(value: Any) -> np.ndarray:
    """`value`'s elements as a NumPy array to read at once (the GUI copies what it keeps): a
    dense field's own storage where it has one (no copy), else `as_numpy(value)`."""
    view = _storage(value)
    return view if view is not None else as_numpy(value)


def _storage(field: Any) -> np.ndarray | None:
    """A dense scalar field's elements in place (current on the host), or None."""
    host_view = getattr(field, "_host_view", None)
    if host_view is None:
        return None
    view = host_view()
    return view if isinstance(view, np.ndarray) and view.shape == tuple(field.shape) else None


def float_planes(img: Any) -> list[np.ndarray] | None:
    """The channels of a 2-D float vector field as [x, y] arrays (each component is its own
    field here, read in place where it can be), or None for anything else."""
    components = getattr(img, "components", None)
    dtype = getattr(img, "dtype", None)
    if components is None or not getattr(dtype, "is_float", False) or len(img.shape) != 2:
        return None
    if getattr(img, "m", 1) != 1 or len(components) > 4:
        return None
    return [host_array(c) for c in components[:3]]


def interleaved(planes: list[np.ndarray]) -> np.ndarray | None:
    """The planes as one [x, y, c] array without copying, when they lie side by side in memory
    (a vector field's components: Taichi's AOS layout), else None."""
    first = planes[0]
    size = first.itemsize
    start = first.__array_interface__["data"][0]
    for k, plane in enumerate(planes):
        same = plane.dtype == first.dtype and plane.shape == first.shape
        if not same or plane.strides != first.strides:
            return None
        if plane.__array_interface__["data"][0] != start + k * size:
            return None
    shape = first.shape + (len(planes),)
    return np.lib.stride_tricks.as_strided(first, shape, first.strides + (size,), writeable=False)


def cook_image(img: np.ndarray, res: tuple[int, int]) -> np.ndarray:
    """Taichi's `GUI.cook_image`: a [x, y(, c)] array -> float32 [x, y, 3+] in 0..1 (integers
    are divided by their type's maximum; grey is repeated over RGB; RG gets a zero blue)."""
    if img.dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        img = img.astype(np.float32) * np.float32(1 / np.iinfo(img.dtype).max)
    elif img.dtype in (np.float16, np.float32, np.float64):
        img = img.astype(np.float32, copy=False)
    else:
        raise ValueError(f"Data type {img.dtype} not supported in GUI.set_image")
    if img.ndim == 2:
        img = img[..., None]
    channels = img.shape[2]
    if channels == 1:
        img = np.repeat(img, 3, axis=2)
    elif channels == 2:
        img = np.concatenate([img, np.zeros(img.shape[:2] + (1,), np.float32)], axis=2)
    assert img.shape[2] in (3, 4), "Image must be grayscale, RG, RGB or RGBA"
    assert tuple(img.shape[:2]) == tuple(res), "Image resolution does not match GUI resolution"
    return img


def fast_image(img: np.ndarray) -> np.ndarray:
    """Taichi's fast-GUI pixels: [x, y, c] -> uint32 0xRRGGBB per pixel, rows from the top.
    Floats become min(255, max(0, int(v * 255))) in the image's own precision."""
    rgb = img[:, ::-1, :3].transpose(1, 0, 2)  # rows from the top
    if rgb.dtype == np.uint8:
        channels = rgb.astype(np.uint32)
    else:
        scaled = rgb * rgb.dtype.type(255)
        channels = np.clip(np.trunc(scaled), 0, 255).astype(np.uint32)
    packed = (channels[..., 0] << 16) | (channels[..., 1] << 8) | channels[..., 2]
    return np.ascontiguousarray(packed.reshape(-1))


def resample(values: np.ndarray, res: tuple[int, int]) -> np.ndarray:
    """Bilinear resampling of a 2-D array to `res`, the grid's corners on the array's corners
    (what Taichi's `contour` does when the field and the window differ in size)."""
    out = values.astype(np.float64)
    for axis, size in enumerate(res):
        n = out.shape[axis]
        coord = np.linspace(0.0, 1.0, size) * (n - 1)
        low = coord.astype(np.int64)
        high = np.minimum(low + 1, n - 1)
        frac = coord - low
        shape = [1, 1]
        shape[axis] = size
        frac = frac.reshape(shape)
        out = np.take(out, low, axis=axis) * (1 - frac) + np.take(out, high, axis=axis) * frac
    return out
