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

from collections.abc import Callable

import numpy as np

_PIXEL = np.dtype((np.void, 12))  # one float32 RGB pixel as a single item

Shaded = tuple[np.ndarray, np.ndarray, np.ndarray]  # pixel i, pixel j, coverage
Shader = Callable[[np.ndarray, np.ndarray, dict[str, np.ndarray]], Shaded]


def hex_to_rgb_array(colors: np.ndarray) -> np.ndarray:
    """0xRRGGBB integers -> (n, 3) float32 in 0..1, as Taichi's `color_from_hex` (no mask on
    the red byte: bits above 24 push red past 1, which the frame clamps)."""
    c = np.asarray(colors, dtype=np.int64)
    rgb = np.stack([c >> 16, (c >> 8) & 0xFF, c & 0xFF], axis=-1).astype(np.float32)
    return rgb * np.float32(1 / 255)


def _boxes(nx: np.ndarray, ny: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enumerate the cells of one box of nx[k] by ny[k] cells per primitive k, primitive by
    primitive. Returns (primitive, u, v): each cell's primitive and its place in the box."""
    nx = np.maximum(nx, 0)
    ny = np.maximum(ny, 0)
    counts = nx * ny
    prim = np.repeat(np.arange(nx.size, dtype=np.intp), counts)
    starts = np.cumsum(counts) - counts
    cell = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)
    width = np.take(nx, prim)
    return prim, cell % width, cell // width


def _per_fragment(rgb: np.ndarray, prim: np.ndarray | None) -> np.ndarray:
    """Fragment colours: one (3,) colour for all, or each fragment's primitive's row."""
    return rgb if rgb.ndim == 1 else np.take(rgb, prim, axis=0)


class Canvas:
    """The picture `ti.GUI` draws on: float32 RGB, (height, width, 3), row 0 at the top.

    Most GUI loops fill the whole picture each frame (`set_image`, or `clear` then nothing), so
    the float picture is built only when a primitive draws on it: until then the canvas keeps
    what would fill it (a colour, or the image in its own [x, y, 3] layout) and `frame()`
    converts that straight to bytes."""

    def __init__(
        self, width: int, height: int, rows_kernel: Callable[..., bool] | None = None
    ) -> None:
        # turns a pending image into the frame's rows in one compiled pass, or returns False
        self.rows_kernel = rows_kernel or (lambda source, out: False)
        self.width = int(width)
        self.height = int(height)
        self._rgb = np.zeros((self.height, self.width, 3), np.float32)
        self._flat = self._rgb.reshape(-1, 3)
        # the same memory as one 12-byte item per pixel: np.put writes a pixel at once
        self._pixels = self._flat.view(_PIXEL).reshape(-1)
        self._owner = np.empty(self.width * self.height, np.int32)
        self._keep = np.ones(self.width * self.height, np.float32)
        self._frame = np.empty((self.height, self.width, 3), np.uint8)
        self._buffers: dict[str, np.ndarray] = {}  # scratch arrays, made on first use
        # what fills the picture while the float one is stale: a colour or an image
        self._fill: np.ndarray | None = None
        self._source: np.ndarray | None = None  # [x, y, 3], float32 0..1 or uint8 0..255

    # --- whole picture ---------------------------------------------------------------------

    @property
    def rgb(self) -> np.ndarray:
        """The float picture, (height, width, 3), built from a pending fill first."""
        self._materialise()
        return self._rgb

    def clear(self, rgb: tuple[float, float, float] | np.ndarray) -> None:
        """Fill with one colour (kept as the colour until something draws)."""
        self._fill = np.asarray(rgb, np.float32).reshape(3).copy()
        self._source = None

    def set_image(self, image: np.ndarray) -> None:
        """Copy a Taichi-layout image ([x, y, c], y up, c >= 3) onto the canvas: float (0..1)
        or uint8 (0..255, as Taichi scales it: u * float32(1/255))."""
        kind = "bytes" if image.dtype == np.uint8 else "floats"
        source = self._buffer(kind, (self.width, self.height, 3), _SOURCE_TYPES[kind])
        np.copyto(source, image[:, :, :3], casting="same_kind")
        self._source, self._fill = source, None

    def set_planes(self, planes: list[np.ndarray]) -> None:
        """Copy 1-3 channels given as [x, y] arrays (y up); missing channels become 0."""
        source = self._buffer("floats", (self.width, self.height, 3), np.float32)
        for k in range(3):
            if k < len(planes):
                np.copyto(source[:, :, k], planes[k], casting="same_kind")
            else:
                source[:, :, k] = 0
        self._source, self._fill = source, None

    def set_rows(self, rgb: np.ndarray) -> None:
        """Replace the float picture with `rgb` ((height, width, 3), row 0 at the top)."""
        self._source = self._fill = None
        self._rgb[...] = rgb

    def frame(self) -> np.ndarray:
        """The picture as (height, width, 3) uint8, rounding as Taichi's screenshots do
        (255 * clamp(v, 0, 1), truncated). The array is reused by the next call.

        After `set_image` (nothing drawn since) `rows_kernel` makes the rows in one compiled
        pass where it can (a CPU program); otherwise the frame is a view of the image's bytes
        in their own [x, y, 3] layout: whoever keeps the frame copies it as it lies and turns it
        into rows when needed (the notebook widget does that in its sender thread)."""
        if self._fill is not None:
            self._frame[...] = _to_bytes(self._fill)
        elif self._source is not None and self.rows_kernel(self._source, self._frame):
            pass  # one compiled pass: clamp, scale and transpose (ui/frame_kernels.py)
        elif self._source is not None and self._source.dtype == np.uint8:
            # u * float32(1/255) comes back to u through 255 * v truncated, for every byte
            return _rows_view(self._source)
        elif self._source is not None:
            shape = self._source.shape
            scratch = self._buffer("scaled", shape, np.float32)
            np.clip(self._source, 0, 1, out=scratch)
            columns = self._buffer("columns", shape, np.uint8)
            # float -> uint8 on the way out truncates, as C++'s cast does (NaN gives 0, quietly)
            with np.errstate(invalid="ignore"):
                np.multiply(scratch, np.float32(255), out=columns, casting="unsafe")
            return _rows_view(columns)
        else:
            scratch = self._buffer("scaled", self._rgb.shape, np.float32)
            np.clip(self._rgb, 0, 1, out=scratch)
            np.multiply(scratch, np.float32(255), out=self._frame, casting="unsafe")
        return self._frame

    def _materialise(self) -> None:
        """Build the float picture from a pending colour or image (before drawing on it)."""
        if self._fill is not None:
            self._rgb[...] = self._fill
        elif self._source is not None and self._source.dtype == np.uint8:
            floats = self._buffer("floats", self._source.shape, np.float32)
            np.multiply(self._source, np.float32(1 / 255), out=floats)
            _transpose_pixels(floats, self._rgb)
        elif self._source is not None:
            _transpose_pixels(self._source, self._rgb)
        self._fill = self._source = None

    def _buffer(self, name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        buffer = self._buffers.get(name)
        if buffer is None or buffer.shape != shape or buffer.dtype != dtype:
            buffer = self._buffers[name] = np.empty(shape, dtype)
        return buffer

    # --- fragments ---------------------------------------------------------------------------

    def _keys(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray | bool]:
        """Flat indices of canvas pixels (i, j) (y up), and which of them are on the canvas
        (True when all are)."""
        keys = (self.height - 1 - j) * self.width + i
        if i.size == 0 or j.size == 0:
            return keys, True
        if i.min() >= 0 and i.max() < self.width and j.min() >= 0 and j.max() < self.height:
            return keys, True
        return keys, (i >= 0) & (i < self.width) & (j >= 0) & (j < self.height)

    def _put(self, keys: np.ndarray, rgb: np.ndarray) -> None:
        """Write (n, 3) float32 colours to pixels `keys`; with repeats, the last one stays."""
        self._materialise()
        values = np.ascontiguousarray(np.broadcast_to(rgb, (keys.size, 3)), np.float32)
        np.put(self._pixels, keys, values.view(_PIXEL).reshape(-1))

    def _blend(self, keys: np.ndarray, alpha: np.ndarray, rgb: np.ndarray) -> None:
        """Blend fragments (dest = (1 - a) dest + a colour) in their order. `rgb` is one (3,)
        colour or one row per fragment.

        With one colour for all the order does not matter: n blends of colour c leave
        dest * P + c * (1 - P) with P = prod(1 - a), one product per pixel. Otherwise
        fragments that share a pixel are peeled into layers, each holding at most one
        fragment per pixel, applied from the first-drawn to the last-drawn."""
        self._materialise()
        keys = keys.astype(np.intp, copy=False)
        if rgb.ndim == 1:
            self._mix_products(keys, alpha, rgb)
            return
        order = np.arange(keys.size, dtype=np.int32)
        np.put(self._owner, keys, order)  # with repeated pixels the last write stays
        last = np.take(self._owner, keys) == order
        if last.all():  # no pixel twice
            self._mix(keys, alpha, rgb)
            return
        for layer in reversed(self._layers(keys, last)):
            self._mix(np.take(keys, layer), np.take(alpha, layer), np.take(rgb, layer, axis=0))

    def _layers(self, keys: np.ndarray, last: np.ndarray) -> list[np.ndarray]:
        """Fragment indices by layer, last-drawn layer first; `last` marks the first layer."""
        layers = [np.flatnonzero(last)]
        remaining = np.flatnonzero(~last)
        while remaining.size:
            k = np.take(keys, remaining)
            np.put(self._owner, k, remaining)
            top = np.take(self._owner, k) == remaining
            layers.append(np.take(remaining, np.flatnonzero(top)))
            remaining = np.take(remaining, np.flatnonzero(~top))
        return layers

    def _mix(self, keys: np.ndarray, alpha: np.ndarray, rgb: np.ndarray) -> None:
        """dest = dest * (1 - a) + colour * a at distinct pixels, in flat (3n,) arrays (NumPy's
        loops are slow over a trailing axis of 3)."""
        a = np.repeat(alpha, 3)
        c = np.tile(rgb, keys.size) if rgb.ndim == 1 else rgb.reshape(-1)
        dest = np.take(self._flat, keys, axis=0).reshape(-1)
        mixed = dest * (np.float32(1) - a) + c * a
        np.put(self._pixels, keys, mixed.view(_PIXEL))

    def _mix_products(self, keys: np.ndarray, alpha: np.ndarray, rgb: np.ndarray) -> None:
        """One colour over possibly repeated pixels: dest = dest * P + c * (1 - P), P the
        product of (1 - a) at the pixel (1 - a itself, as Taichi blends, for one fragment).
        Repeated pixels compute the same value from the same old one, so writing them all
        is right."""
        keep = self._keep  # all ones between calls
        np.multiply.at(keep, keys, np.float32(1) - alpha)
        product = np.repeat(np.take(keep, keys), 3)
        np.put(keep, keys, np.float32(1))
        dest = np.take(self._flat, keys, axis=0).reshape(-1)
        mixed = dest * product + np.tile(rgb, keys.size) * (np.float32(1) - product)
        np.put(self._pixels, keys, mixed.view(_PIXEL))

    # --- primitives --------------------------------------------------------------------------

    def _fragments(
        self,
        nx: np.ndarray,
        ny: np.ndarray,
        params: dict[str, np.ndarray],
        shade: Shader,
        ordered: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The covered pixels of a batch of primitives: (keys, coverage, primitive), listed
        primitive by primitive when `ordered` (otherwise in no order, primitive unknown).
        Primitive k may touch the nx[k] x ny[k] box `shade` places it in; `shade(u, v,
        params)` gives each cell's pixel (i, j) and coverage (> 0: drawn).

        Boxes of similar size are padded to the largest and laid out (box rows, box columns,
        primitives), primitives last: `params` then broadcast with no gathering and NumPy runs
        long inner loops. Very uneven boxes are listed one cell at a time instead."""
        nx, ny = np.maximum(nx, 0), np.maximum(ny, 0)
        n, kx, ky = nx.size, int(nx.max()), int(ny.max())
        if kx * ky * n > 2 * int((nx * ny).sum()) + 65536:
            prim, u, v = _boxes(nx, ny)
            i, j, cover = shade(u, v, {name: np.take(p, prim) for name, p in params.items()})
            keys, inside = self._keys(i, j)
            where = np.flatnonzero(inside & (cover > 0))
            return np.take(keys, where), np.take(cover, where), np.take(prim, where)
        u = np.arange(kx).reshape(1, kx, 1)
        v = np.arange(ky).reshape(ky, 1, 1)
        i, j, cover = shade(u, v, params)
        keys, inside = self._keys(i, j)
        keep = cover > 0
        if inside is not True:
            keep &= inside
        if ordered:
            where = np.flatnonzero(keep.transpose(2, 0, 1))  # primitive-major positions
            prim = where // (kx * ky)
            where = (where - prim * (kx * ky)) * n + prim  # the same cells, primitives last
        else:  # the caller draws in any order and needs no primitive (one colour)
            where = np.flatnonzero(keep)
            prim = None
        keys = np.take(np.broadcast_to(keys, keep.shape).reshape(-1), where)
        cover = np.take(np.broadcast_to(cover, keep.shape).reshape(-1), where)
        return keys, cover, prim

    def circles(self, cx: np.ndarray, cy: np.ndarray, radius: np.ndarray, rgb: np.ndarray) -> None:
        """Anti-aliased discs at (cx, cy) canvas pixels; `radius` one number or one per
        circle; `rgb` one (3,) colour or (n, 3)."""
        cx = np.asarray(cx, np.float32)
        cy = np.asarray(cy, np.float32)
        r = np.broadcast_to(np.asarray(radius, np.float32), cx.shape)
        i0 = np.ceil(cx - r).astype(np.intp)
        j0 = np.ceil(cy - r).astype(np.intp)
        nx = np.floor(cx + r).astype(np.intp) - i0 + 1
        ny = np.floor(cy + r).astype(np.intp) - j0 + 1
        params = {"cx": cx, "cy": cy, "r": r, "i0": i0, "j0": j0}
        keys, alpha, prim = self._fragments(nx, ny, params, _shade_circle, rgb.ndim > 1)
        self._blend(keys, np.minimum(alpha, np.float32(1)), _per_fragment(rgb, prim))

    def segments(self, a: np.ndarray, b: np.ndarray, radius: np.ndarray, rgb: np.ndarray) -> None:
        """Anti-aliased thick segments from a[k] to b[k] ((n, 2) canvas pixels).

        Each segment is walked along its longer axis one pixel column (or row) at a time,
        covering a band around the segment wide enough for its round caps, so a pixel is
        visited at most once per segment however long the segment is."""
        ax, ay, bx, by = (
            np.ascontiguousarray(p, np.float32) for p in (a[:, 0], a[:, 1], b[:, 0], b[:, 1])
        )
        r = np.ascontiguousarray(np.broadcast_to(np.asarray(radius, np.float32), ax.shape))
        steep = np.abs(by - ay) > np.abs(bx - ax)
        a_major, b_major = np.where(steep, ay, ax), np.where(steep, by, bx)
        a_minor, b_minor = np.where(steep, ax, ay), np.where(steep, bx, by)
        reach = np.ceil(r).astype(np.intp) + 1
        lo, hi = np.minimum(a_major, b_major), np.maximum(a_major, b_major)
        first = np.floor(lo).astype(np.intp) - reach
        count = np.floor(hi).astype(np.intp) + reach - first + 1
        half = np.ceil(2 * r).astype(np.intp) + 2  # rows each side: enough for the caps too
        span = b_major - a_major
        slope = np.divide(b_minor - a_minor, span, out=np.zeros_like(span), where=span != 0)
        ex, ey = bx - ax, by - ay
        length = np.sqrt(ex * ex + ey * ey)
        safe = np.where(length > 0, length, np.float32(1))
        params = {
            "first": first, "half": half, "lo": lo, "hi": hi, "slope": slope, "steep": steep,
            "a_major": a_major, "a_minor": a_minor, "ax": ax, "ay": ay, "r": r, "length": length,
            "dx": np.where(length > 0, ex / safe, np.float32(1)),
            "dy": np.where(length > 0, ey / safe, np.float32(0)),
        }  # fmt: skip
        keys, alpha, prim = self._fragments(
            count, 2 * half + 1, params, _shade_segment, rgb.ndim > 1
        )
        self._blend(keys, np.minimum(alpha, np.float32(1)), _per_fragment(rgb, prim))

    def triangles(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, rgb: np.ndarray) -> None:
        """Solid triangles ((n, 2) canvas pixels each corner): a pixel whose centre is inside
        or on an edge takes the colour of the last triangle covering it."""
        xs = np.stack([a[:, 0], b[:, 0], c[:, 0]]).astype(np.float32)  # (3, n)
        ys = np.stack([a[:, 1], b[:, 1], c[:, 1]]).astype(np.float32)
        i0 = np.floor(xs.min(axis=0)).astype(np.intp)
        j0 = np.floor(ys.min(axis=0)).astype(np.intp)
        nx = np.ceil(xs.max(axis=0)).astype(np.intp) - i0
        ny = np.ceil(ys.max(axis=0)).astype(np.intp) - j0
        params = {"i0": i0, "j0": j0, "nx": nx, "ny": ny}
        for k in range(3):  # edge k runs from corner k to corner k + 1
            params[f"x{k}"], params[f"y{k}"] = xs[k], ys[k]
            params[f"ex{k}"], params[f"ey{k}"] = xs[(k + 1) % 3] - xs[k], ys[(k + 1) % 3] - ys[k]
        keys, _, prim = self._fragments(nx, ny, params, _shade_triangle)
        self._put(keys, _per_fragment(rgb, prim))  # repeated pixels: the last triangle wins

    def blend_mask(self, left: int, top: int, mask: np.ndarray, rgb: np.ndarray) -> None:
        """Blend `rgb` through a coverage mask (rows from the top, values 0..1) whose top-left
        cell is canvas pixel (left, top) (y up, so the mask's rows go down from `top`)."""
        rows, cols = mask.shape
        j = top - np.arange(rows)[:, None] + np.zeros((1, cols), np.int64)
        i = left + np.arange(cols)[None, :] + np.zeros((rows, 1), np.int64)
        keys, inside = self._keys(i, j)
        alpha = mask.astype(np.float32)
        where = np.flatnonzero(inside & (alpha > 0))
        self._blend(np.take(keys, where), np.take(alpha, where), np.asarray(rgb, np.float32))


_SOURCE_TYPES = {"bytes": np.uint8, "floats": np.float32}


def _to_bytes(rgb: np.ndarray) -> np.ndarray:
    """Float colours -> uint8 as a frame rounds them: 255 * clamp(v, 0, 1), truncated."""
    return (np.clip(rgb, 0, 1) * np.float32(255)).astype(np.uint8)


def _rows_view(columns: np.ndarray) -> np.ndarray:
    """[x, y, 3] pixels (y up) seen as (height, width, 3) rows from the top, without copying."""
    return columns[:, ::-1].transpose(1, 0, 2)


def _transpose_pixels(source: np.ndarray, out: np.ndarray) -> None:
    """out[row, col] = source[col, height - 1 - row] for contiguous [x, y, 3] pixels: Taichi's
    layout (y up) to rows from the top. Each pixel moves as one opaque item (NumPy's loops are
    slow over a trailing axis of 3)."""
    width, height = source.shape[:2]
    item = np.dtype((np.void, 3 * source.itemsize))
    pixels = source.reshape(width, -1).view(item)  # (width, height)
    out.reshape(height, -1).view(item)[...] = pixels[:, ::-1].T


def _shade_circle(u: np.ndarray, v: np.ndarray, p: dict[str, np.ndarray]) -> Shaded:
    """Taichi's disc: pixel (i, j) sits at (i, j); coverage r - distance to the centre."""
    i, j = p["i0"] + u, p["j0"] + v
    dx = p["cx"] - i.astype(np.float32)
    dy = p["cy"] - j.astype(np.float32)
    return i, j, p["r"] - np.sqrt(dx * dx + dy * dy)


def _shade_segment(u: np.ndarray, v: np.ndarray, p: dict[str, np.ndarray]) -> Shaded:
    """Taichi's stroke: coverage r - distance from the pixel centre to the segment. Cell (u, v)
    is column u of the walk along the major axis and row v of the band around the segment."""
    col = p["first"] + u
    centre = np.clip(col.astype(np.float32) + np.float32(0.5), p["lo"], p["hi"])
    along = p["a_minor"] + (centre - p["a_major"]) * p["slope"]
    row = np.floor(along).astype(np.intp) - p["half"] + v
    i = np.where(p["steep"], row, col)
    j = np.where(p["steep"], col, row)
    px = i.astype(np.float32) + np.float32(0.5) - p["ax"]
    py = j.astype(np.float32) + np.float32(0.5) - p["ay"]
    across = px * -p["dy"] + py * p["dx"]
    ahead = px * p["dx"] + py * p["dy"]
    ahead = np.where(ahead > 0, np.maximum(np.float32(0), ahead - p["length"]), ahead)
    return i, j, p["r"] - np.sqrt(across * across + ahead * ahead)


def _shade_triangle(u: np.ndarray, v: np.ndarray, p: dict[str, np.ndarray]) -> Shaded:
    """Taichi's fill: the pixel centre is on the same side of all three edges (or on one)."""
    i, j = p["i0"] + u, p["j0"] + v
    px = i.astype(np.float32) + np.float32(0.5)
    py = j.astype(np.float32) + np.float32(0.5)
    sides = [
        (px - p[f"x{k}"]) * p[f"ey{k}"] - (py - p[f"y{k}"]) * p[f"ex{k}"] <= 0 for k in range(3)
    ]
    inside = (sides[0] == sides[1]) & (sides[0] == sides[2]) & (u < p["nx"]) & (v < p["ny"])
    return i, j, inside
