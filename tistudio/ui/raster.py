"""A 2-D rasteriser in NumPy for `ti.GUI`: circles, thick lines, triangles and images.

Taichi's GUI draws on a float RGBA canvas in C++, one primitive after another, each pixel by
pixel. Here every primitive of a batch becomes a set of *fragments* (pixel, coverage, colour)
computed at once with array operations, and the fragments are blended in primitive order. The
coverage rules are Taichi's, so pictures match pixel for pixel up to float rounding:

- circle: a pixel (i, j) sits at (i, j) in canvas pixels; coverage is clamp(r - distance).
- line: a pixel's centre is (i + 0.5, j + 0.5); coverage is clamp(r - distance to the segment),
  so `radius` is half the stroke width.
- triangle: a pixel whose centre is inside (edges included) takes the colour, no blending.

Coordinates are Taichi's canvas pixels: x to the right, y up. The canvas keeps a float32
(height, width, 3) picture with row 0 at the top, the order of the frames a viewer shows.
"""

from __future__ import annotations

import numpy as np


def hex_to_rgb_array(colors: np.ndarray) -> np.ndarray:
    """0xRRGGBB integers -> (n, 3) float32 in 0..1, as Taichi's `color_from_hex` (no mask on
    the red byte: bits above 24 push red past 1, which the frame clamps)."""
    c = np.asarray(colors, dtype=np.int64)
    rgb = np.stack([c >> 16, (c >> 8) & 0xFF, c & 0xFF], axis=-1).astype(np.float32)
    return rgb * np.float32(1 / 255)


def _boxes(
    i0: np.ndarray, j0: np.ndarray, nx: np.ndarray, ny: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate the cells of one box per primitive (box k: nx[k] by ny[k] cells from
    (i0[k], j0[k])), primitive by primitive. Returns (primitive, u, v) with u, v the cell's
    place inside its box; i0/j0 are only used for their length."""
    nx = np.maximum(nx, 0)
    ny = np.maximum(ny, 0)
    if nx.size and (nx == nx[0]).all() and (ny == ny[0]).all():
        w, h = int(nx[0]), int(ny[0])
        n = nx.size
        prim = np.repeat(np.arange(n), w * h)
        cell = np.tile(np.arange(w * h), n)
        return prim, cell % max(w, 1), cell // max(w, 1)
    counts = nx * ny
    prim = np.repeat(np.arange(nx.size), counts)
    starts = np.cumsum(counts) - counts
    cell = np.arange(int(counts.sum())) - np.repeat(starts, counts)
    width = nx[prim]
    return prim, cell % width, cell // width


class Canvas:
    """The picture `ti.GUI` draws on: float32 RGB, (height, width, 3), row 0 at the top."""

    def __init__(self, width: int, height: int) -> None:
        self.width = int(width)
        self.height = int(height)
        self.rgb = np.zeros((self.height, self.width, 3), np.float32)
        self._flat = self.rgb.reshape(-1, 3)
        self._owner = np.empty(self.width * self.height, np.int64)
        self._frame = np.empty((self.height, self.width, 3), np.uint8)
        self._scratch = np.empty((self.height, self.width, 3), np.float32)

    # --- whole picture ---------------------------------------------------------------------

    def clear(self, rgb: tuple[float, float, float]) -> None:
        self.rgb[...] = np.asarray(rgb, np.float32)

    def set_image(self, image: np.ndarray) -> None:
        """Copy a Taichi-layout float32 image ([x, y, c], y up, c >= 3) onto the canvas."""
        self.rgb[...] = image[:, ::-1, :3].transpose(1, 0, 2)

    def frame(self) -> np.ndarray:
        """The picture as (height, width, 3) uint8, rounding as Taichi's screenshots do
        (255 * clamp(v, 0, 1), truncated). The array is reused by the next call."""
        np.clip(self.rgb, 0, 1, out=self._scratch)
        np.multiply(self._scratch, np.float32(255), out=self._scratch)
        self._frame[...] = self._scratch  # float -> uint8 truncates, as C++'s cast does
        return self._frame

    # --- fragments ---------------------------------------------------------------------------

    def _keys(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat indices of canvas pixels (i, j) (y up), and which of them are on the canvas."""
        inside = (i >= 0) & (i < self.width) & (j >= 0) & (j < self.height)
        return (self.height - 1 - j) * self.width + i, inside

    def _blend(self, keys: np.ndarray, alpha: np.ndarray, rgb: np.ndarray) -> None:
        """Blend fragments (dest = (1 - a) dest + a colour) in their order: fragments that
        share a pixel are peeled into layers, each layer holding at most one fragment per
        pixel, and the layers are applied from the first-drawn to the last-drawn."""
        layers = []
        remaining = np.arange(keys.size)
        owner = self._owner
        while remaining.size:
            k = keys[remaining]
            owner[k] = remaining  # with repeated pixels the last assignment stays
            last = owner[k] == remaining
            layers.append(remaining[last])
            remaining = remaining[~last]
        flat = self._flat
        for layer in reversed(layers):
            k = keys[layer]
            a = alpha[layer, None]
            flat[k] = flat[k] * (np.float32(1) - a) + rgb[layer] * a

    # --- primitives --------------------------------------------------------------------------

    def circles(self, cx: np.ndarray, cy: np.ndarray, radius: np.ndarray, rgb: np.ndarray) -> None:
        """Anti-aliased discs at (cx, cy) canvas pixels; radius and rgb per circle."""
        cx = np.asarray(cx, np.float32)
        cy = np.asarray(cy, np.float32)
        radius = np.broadcast_to(np.asarray(radius, np.float32), cx.shape)
        i0 = np.ceil(cx - radius).astype(np.int64)
        j0 = np.ceil(cy - radius).astype(np.int64)
        nx = np.floor(cx + radius).astype(np.int64) - i0 + 1
        ny = np.floor(cy + radius).astype(np.int64) - j0 + 1
        if radius.size and (radius == radius[0]).all():  # one stencil for all: no ragged boxes
            size = int(np.floor(2 * radius[0])) + 2
            nx = np.full_like(nx, size)
            ny = np.full_like(ny, size)
        prim, u, v = _boxes(i0, j0, nx, ny)
        i = i0[prim] + u
        j = j0[prim] + v
        dx = cx[prim] - i.astype(np.float32)
        dy = cy[prim] - j.astype(np.float32)
        alpha = np.clip(radius[prim] - np.sqrt(dx * dx + dy * dy), 0, 1)
        keys, inside = self._keys(i, j)
        keep = inside & (alpha > 0)
        self._blend(keys[keep], alpha[keep], rgb[prim[keep]])

    def segments(self, a: np.ndarray, b: np.ndarray, radius: np.ndarray, rgb: np.ndarray) -> None:
        """Anti-aliased thick segments from a[k] to b[k] ((n, 2) canvas pixels).

        Each segment is walked along its longer axis one pixel column (or row) at a time,
        covering a band around the segment wide enough for its round caps, so a pixel is
        visited at most once per segment however long the segment is."""
        a = np.asarray(a, np.float32).reshape(-1, 2)
        b = np.asarray(b, np.float32).reshape(-1, 2)
        radius = np.broadcast_to(np.asarray(radius, np.float32), (a.shape[0],))
        steep = np.abs(b[:, 1] - a[:, 1]) > np.abs(b[:, 0] - a[:, 0])
        major = np.where(steep, 1, 0)  # the axis the walk follows
        minor = 1 - major
        rows = np.arange(a.shape[0])
        a_major, b_major = a[rows, major], b[rows, major]
        a_minor, b_minor = a[rows, minor], b[rows, minor]
        reach = np.ceil(radius).astype(np.int64) + 1
        first = np.floor(np.minimum(a_major, b_major)).astype(np.int64) - reach
        count = np.floor(np.maximum(a_major, b_major)).astype(np.int64) + reach - first + 1
        band = 2 * (np.ceil(2 * radius).astype(np.int64) + 2) + 1
        prim, u, v = _boxes(first, first, count, band)
        col = first[prim] + u  # pixel index along the major axis
        span = b_major - a_major
        slope = np.divide(b_minor - a_minor, span, out=np.zeros_like(span), where=span != 0)
        centre = (col.astype(np.float32) + np.float32(0.5)).clip(
            np.minimum(a_major, b_major)[prim], np.maximum(a_major, b_major)[prim]
        )
        along = a_minor[prim] + (centre - a_major[prim]) * slope[prim]
        row = np.floor(along).astype(np.int64) - (band[prim] // 2) + v
        i = np.where(steep[prim], row, col)
        j = np.where(steep[prim], col, row)
        alpha = np.clip(radius[prim] - _segment_distance(i, j, a[prim], b[prim]), 0, 1)
        keys, inside = self._keys(i, j)
        keep = inside & (alpha > 0)
        self._blend(keys[keep], alpha[keep], rgb[prim[keep]])

    def triangles(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, rgb: np.ndarray) -> None:
        """Solid triangles ((n, 2) canvas pixels each corner): a pixel whose centre is inside
        or on an edge takes the colour of the last triangle covering it."""
        a, b, c = (np.asarray(p, np.float32).reshape(-1, 2) for p in (a, b, c))
        lo = np.minimum(np.minimum(a, b), c)
        hi = np.maximum(np.maximum(a, b), c)
        start = np.floor(lo).astype(np.int64)
        size = np.ceil(hi).astype(np.int64) - start
        prim, u, v = _boxes(start[:, 0], start[:, 1], size[:, 0], size[:, 1])
        i = start[prim, 0] + u
        j = start[prim, 1] + v
        p = np.stack([i, j], axis=-1).astype(np.float32) + np.float32(0.5)
        pa, pb, pc = a[prim], b[prim], c[prim]
        side_a = _cross(p - pa, pb - pa) <= 0
        side_b = _cross(p - pb, pc - pb) <= 0
        side_c = _cross(p - pc, pa - pc) <= 0
        keys, inside = self._keys(i, j)
        keep = inside & (side_a == side_b) & (side_a == side_c)
        self._flat[keys[keep]] = rgb[prim[keep]]  # repeated pixels: the last triangle wins

    def blend_mask(self, left: int, top: int, mask: np.ndarray, rgb: np.ndarray) -> None:
        """Blend `rgb` through a coverage mask (rows from the top, values 0..1) whose top-left
        cell is canvas pixel (left, top) (y up, so the mask's rows go down from `top`)."""
        rows, cols = mask.shape
        j = top - np.arange(rows)[:, None] + np.zeros((1, cols), np.int64)
        i = left + np.arange(cols)[None, :] + np.zeros((rows, 1), np.int64)
        keys, inside = self._keys(i.ravel(), j.ravel())
        alpha = mask.ravel().astype(np.float32)
        keep = inside & (alpha > 0)
        flat = self._flat
        k = keys[keep]
        a = alpha[keep, None]
        flat[k] = flat[k] * (np.float32(1) - a) + np.asarray(rgb, np.float32) * a


def _cross(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]


def _segment_distance(i: np.ndarray, j: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from pixel centres (i + 0.5, j + 0.5) to segments a-b (rows of (n, 2))."""
    px = i.astype(np.float32) + np.float32(0.5) - a[:, 0]
    py = j.astype(np.float32) + np.float32(0.5) - a[:, 1]
    d = b - a
    length = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])
    safe = np.where(length > 0, length, np.float32(1))
    dx = np.where(length > 0, d[:, 0] / safe, np.float32(1))
    dy = np.where(length > 0, d[:, 1] / safe, np.float32(0))
    across = px * -dy + py * dx
    along = px * dx + py * dy
    along = np.where(along > 0, np.maximum(np.float32(0), along - length), along)
    return np.sqrt(across * across + along * along)
