"""Turning what Taichi programs hand to GGUI (fields, ndarrays, NumPy arrays) into vertex rows.

GGUI works the same whatever the arch: a field is read with `to_numpy()` and its rows are
uploaded as vertex or instance data (Taichi copies them into a vertex buffer with a kernel; here
NumPy does it). Images keep Taichi's [x, y] layout with y up and become RGBA8 rows with row 0 at
Taichi's y = 0, the way the renderer's image shader samples them.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def to_numpy(source: Any) -> np.ndarray:
    """A NumPy copy of a field, an ndarray, a NumPy array or a nested sequence."""
    if hasattr(source, "to_numpy"):
        return np.asarray(source.to_numpy())
    return np.asarray(source)


def rows(source: Any, width: int) -> np.ndarray:
    """(n, width) float32: one vector per element; shorter vectors are padded with zeros."""
    array = to_numpy(source).astype(np.float32)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    array = array.reshape(-1, array.shape[-1])
    if array.shape[1] >= width:
        return np.ascontiguousarray(array[:, :width])
    padded = np.zeros((len(array), width), dtype=np.float32)
    padded[:, : array.shape[1]] = array
    return padded


def indices(source: Any) -> np.ndarray | None:
    """The flat uint32 index list of an index field (scalar or vector), or None."""
    if source is None:
        return None
    return np.ascontiguousarray(to_numpy(source).reshape(-1).astype(np.uint32))


def colors(per_vertex_color: Any, count: int, color: Any) -> np.ndarray:
    """(count, 4) float32 colours: per vertex when given (alpha 1 unless it has one), else
    `color` everywhere."""
    if per_vertex_color is not None:
        rgba = rows(per_vertex_color, 4)
        if to_numpy(per_vertex_color).reshape(len(rgba), -1).shape[1] < 4:
            rgba[:, 3] = 1.0
        return rgba[:count]
    rgba = np.ones((count, 4), dtype=np.float32)
    rgba[:, :3] = np.asarray(color, dtype=np.float32)[:3]
    return rgba


def normals(positions: np.ndarray, index: np.ndarray | None) -> np.ndarray:
    """Taichi's generated normals: each triangle's (a - b) x (a - c), normalised; for an
    indexed mesh, a vertex's normal is the mean of its triangles' normals."""
    if index is None:
        tri = positions[: len(positions) // 3 * 3].reshape(-1, 3, 3)
        face = _unit(np.cross(tri[:, 0] - tri[:, 1], tri[:, 0] - tri[:, 2]))
        out = np.zeros_like(positions)
        out[: len(face) * 3] = np.repeat(face, 3, axis=0)
        return out
    corners = index[: len(index) // 3 * 3].reshape(-1, 3)
    a, b, c = (positions[corners[:, k]] for k in range(3))
    face = _unit(np.cross(a - b, a - c))
    total = np.zeros_like(positions)
    weight = np.zeros(len(positions), dtype=np.float32)
    for k in range(3):
        np.add.at(total, corners[:, k], face)
        np.add.at(weight, corners[:, k], 1.0)
    return total / np.maximum(weight, 1.0)[:, None]


def _unit(v: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(length > 0, length, 1.0)


def image_rgba8(image: Any) -> np.ndarray:
    """(h, w, 4) uint8 texture rows (row k = Taichi's y = k) from an [x, y] image: grey, RGB or
    RGBA; uint8 as is, floats clamped to [0, 1] and scaled by 255 then truncated (Taichi's)."""
    array = to_numpy(image)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in (1, 3, 4):
        raise ValueError(f"set_image: an image of shape {array.shape} is not (w, h[, 1|3|4])")
    if array.dtype == np.uint8:
        pixels = array
    else:
        pixels = (np.clip(array.astype(np.float32), 0.0, 1.0) * 255).astype(np.uint8)
    w, h, channels = pixels.shape
    out = np.full((h, w, 4), 255, dtype=np.uint8)
    if channels == 1:
        out[:, :, :3] = pixels.transpose(1, 0, 2)
    else:
        out[:, :, :channels] = pixels.transpose(1, 0, 2)
    return out
