"""Vertex and instance rows of GGUI's three kinds of geometry, shared by canvas and scene.

A mesh is rows of position, normal and colour (one per vertex); particles and circles are one
row per instance (centre, radius, colour), expanded to a quad by the vertex shader; lines are one
row per segment (two ends and their colours), also expanded by the vertex shader. Offsets and
counts follow Taichi's `vertex_offset`/`vertex_count`/`index_offset`/`index_count`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.ui.ggui import data


def mesh_rows(positions: np.ndarray, normal: np.ndarray, rgba: np.ndarray) -> np.ndarray:
    """(n, 10) float32 rows: position, normal, colour."""
    n = len(positions)
    return np.ascontiguousarray(np.hstack([positions, normal[:n], rgba[:n]]), dtype=np.float32)


def sphere_rows(centers: Any, radius: float, per_radius: Any, rgba: np.ndarray) -> np.ndarray:
    """(n, 8) float32 rows: centre, radius, colour."""
    n = len(centers)
    out = np.zeros((n, 8), dtype=np.float32)
    out[:, :3] = centers
    out[:, 3] = float(radius) if per_radius is None else data.rows(per_radius, 1)[:n, 0]
    out[:, 4:8] = rgba[:n]
    return out


def line_rows(points: np.ndarray, rgba: np.ndarray, index: np.ndarray | None) -> np.ndarray:
    """(k, 16) float32 rows, one per segment: two ends (xyz, pad) and their colours. Without
    `index` the points pair up in order (an odd last point is dropped)."""
    order = index if index is not None else np.arange(len(points) // 2 * 2, dtype=np.uint32)
    order = order[: len(order) // 2 * 2].reshape(-1, 2)
    out = np.zeros((len(order), 16), dtype=np.float32)
    out[:, 0:3] = points[order[:, 0]]
    out[:, 4:7] = points[order[:, 1]]
    out[:, 8:12] = rgba[order[:, 0]]
    out[:, 12:16] = rgba[order[:, 1]]
    return out


def select(
    count: int,
    index: np.ndarray | None,
    vertex_offset: int,
    vertex_count: int | None,
    index_offset: int,
    index_count: int | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The vertex numbers to draw and the index list (shifted by `vertex_offset`), Taichi's
    way: with indices, `index_offset`/`index_count` pick indices; without, `vertex_offset`/
    `vertex_count` pick vertices."""
    if index is None:
        stop = count if vertex_count is None else min(count, vertex_offset + vertex_count)
        return np.arange(vertex_offset, stop, dtype=np.uint32), None
    stop = len(index) if index_count is None else index_offset + index_count
    picked = index[index_offset:stop].astype(np.int64) + vertex_offset
    return np.arange(count, dtype=np.uint32), picked.astype(np.uint32)
