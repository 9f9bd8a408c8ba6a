"""Image files for Taichi's GUIs and `ti.tools`: PNG and BMP in NumPy, JPEG through Pillow.

Taichi reads and writes images with stb_image in C++; we need the same files without a native
library. PNG is zlib plus a per-row filter, which NumPy undoes row by row, or along the
anti-diagonals of the image when a row uses the Average or Paeth filter (each pixel then depends
on its left, upper and upper-left neighbours, and every pixel on one anti-diagonal depends only
on earlier ones). BMP is a header and raw bottom-up rows. JPEG needs a DCT codec, so it goes
through Pillow when Pillow is installed (it is not a dependency), as do formats stb reads that we
do not (GIF, TGA, ...).

Two layouts meet here. Taichi's images are `[x, y(, c)]` arrays with y pointing up (`imwrite`,
`imread`); files and `sink` frames are rows `(h, w, c)` with row 0 on top (`encode_png`,
`decode_png`, ...). `to_rows` and `from_rows` convert between them.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour type -> samples per pixel: grey, RGB, palette index, grey+alpha, RGBA.
_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
# Adam7 interlacing: (x0, y0, dx, dy) of each of the seven passes.
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2))
_ADAM7 += ((0, 1, 1, 2),)


class ImageFileError(RuntimeError):
    """An image file could not be read or written (Taichi raises RuntimeError here too)."""


def to_rows(img: np.ndarray) -> np.ndarray:
    """Taichi's `[x, y(, c)]` (y up) -> file rows `(h, w, c)` (row 0 on top)."""
    if img.ndim == 2:
        img = img[:, :, None]
    return img.swapaxes(0, 1)[::-1]


def from_rows(rows: np.ndarray) -> np.ndarray:
    """File rows `(h, w, c)` (row 0 on top) -> Taichi's `[x, y, c]` (y up)."""
    return rows.swapaxes(0, 1)[:, ::-1]


def imwrite(img: np.ndarray, filename: str | Path) -> None:
    """Write a uint8 image in Taichi's layout (`[x, y]` or `[x, y, c]`, c = 1, 3 or 4).

    The format follows the suffix: `.png`, `.bmp` (24-bit; RGBA is composited on pink, as
    Taichi's stb_image_write does), `.jpg`/`.jpeg` (quality 95, alpha dropped, needs Pillow).
    """
    img = np.asarray(img)
    if img.dtype != np.uint8 or img.ndim not in (2, 3):
        raise ValueError(f"imwrite wants a uint8 [x, y] or [x, y, c] array, got {img.dtype}")
    rows = to_rows(img)
    kind = _suffix(filename)
    if kind == "png":
        data = encode_png(rows)
    elif kind == "bmp":
        data = encode_bmp(_on_pink(rows) if rows.shape[2] == 4 else rows)
    elif kind == "jpg":
        data = _pillow_encode(rows, "JPEG")
    else:
        raise ImageFileError(
            f"Unknown image file suffix of {str(filename)!r}: use .png, .bmp or .jpg"
        )
    Path(filename).write_bytes(data)


def imread(filename: str | Path, channels: int = 0) -> np.ndarray:
    """Read an image file as uint8 `[x, y, c]` (Taichi's layout, y up).

    `channels` 0 keeps the file's own channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA); 1-4 convert
    as stb_image does (grey from RGB is (77 r + 150 g + 29 b) >> 8, a missing alpha is 255).
    """
    if channels not in (0, 1, 2, 3, 4):
        raise ValueError(f"channels must be 0 (as in the file) or 1-4, got {channels}")
    try:
        data = Path(filename).read_bytes()
    except OSError as error:
        raise ImageFileError(f"Cannot read image file [{filename}]: {error}") from None
    rows = decode_image(data)
    if channels:
        rows = convert_channels(rows, channels)
    return np.ascontiguousarray(from_rows(rows))


def decode_image(data: bytes) -> np.ndarray:
    """Decode PNG, BMP or (with Pillow) anything else to uint8 rows `(h, w, c)`."""
    if data.startswith(PNG_SIGNATURE):
        return decode_png(data)
    if data.startswith(b"BM"):
        return decode_bmp(data)
    return _pillow_decode(data)


def _on_pink(rows: np.ndarray) -> np.ndarray:
    """RGBA composited on stb_image_write's pink (255, 0, 255), C's truncating division."""
    pink = np.array([255, 0, 255])
    weighted = (rows[:, :, :3].astype(np.int32) - pink) * rows[:, :, 3:4]
    return (pink + np.sign(weighted) * (np.abs(weighted) // 255)).astype(np.uint8)


def _suffix(filename: str | Path) -> str:
    suffix = Path(filename).suffix.lower()
    return {".png": "png", ".bmp": "bmp", ".jpg": "jpg", ".jpeg": "jpg"}.get(suffix, "")


def convert_channels(rows: np.ndarray, channels: int) -> np.ndarray:
    """Convert uint8 rows between 1-4 channels with stb_image's rules."""
    have = rows.shape[2]
    if have == channels:
        return rows
    if have <= 2:
        grey, alpha = rows[:, :, :1], rows[:, :, 1:2] if have == 2 else None
    else:
        rgb = rows[:, :, :3].astype(np.uint32)
        luma = (rgb[:, :, 0] * 77 + rgb[:, :, 1] * 150 + rgb[:, :, 2] * 29) >> 8
        grey, alpha = luma.astype(np.uint8)[:, :, None], rows[:, :, 3:4] if have == 4 else None
    if alpha is None:
        alpha = np.full_like(grey, 255)
    colour = grey if channels <= 2 else (rows[:, :, :3] if have >= 3 else np.repeat(grey, 3, 2))
    parts = [colour, alpha] if channels in (2, 4) else [colour]
    return np.concatenate(parts, axis=2)


# ----------------------------------------------------------------------------------------- PNG


def encode_png(rows: np.ndarray, level: int = 3) -> bytes:
    """Encode uint8 rows `(h, w, c)`, c = 1-4, as an 8-bit PNG.

    Every row uses the Up filter (the difference to the row above): one NumPy subtraction, and
    it compresses GUI frames (flat areas, gradients) well at a low zlib level, which is fast.
    """
    rows = np.asarray(rows, dtype=np.uint8)
    if rows.ndim == 2:
        rows = rows[:, :, None]
    h, w, c = rows.shape
    if c not in _PNG_COLOR_TYPE or h == 0 or w == 0:
        raise ValueError(f"PNG wants (h, w, 1-4) with h, w > 0, got {rows.shape}")
    raw = np.empty((h, 1 + w * c), dtype=np.uint8)
    raw[:, 0] = 2
    flat = rows.reshape(h, w * c)
    raw[0, 1:] = flat[0]
    np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])
    header = struct.pack(">IIBBBBB", w, h, 8, _PNG_COLOR_TYPE[c], 0, 0, 0)
    body = zlib.compress(raw.tobytes(), level)
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(payload, zlib.crc32(kind))
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def decode_png(data: bytes) -> np.ndarray:
    """Decode a PNG (any colour type, 1-16 bits, interlaced or not) to uint8 rows `(h, w, c)`.

    16-bit samples keep their high byte and 1/2/4-bit grey is scaled to 0-255, as stb_image does.
    A palette becomes RGB, or RGBA when the file has a tRNS chunk; a tRNS colour key on grey or
    RGB adds an alpha channel (0 where the pixel equals the key).
    """
    if not data.startswith(PNG_SIGNATURE):
        raise ImageFileError("not a PNG file")
    chunks = _png_chunks(data)
    if b"IHDR" not in chunks or b"IDAT" not in chunks:
        raise ImageFileError("PNG file without IHDR or IDAT chunk")
    w, h, bits, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0][:13])
    if color not in _PNG_CHANNELS or bits not in _PNG_DEPTHS[color] or interlace > 1:
        raise ImageFileError(f"bad PNG header: bit depth {bits}, colour type {color}")
    try:
        stream = zlib.decompress(b"".join(chunks[b"IDAT"]))
    except zlib.error as error:
        raise ImageFileError(f"corrupt PNG data: {error}") from None
    channels = _PNG_CHANNELS[color]
    if interlace:
        samples = _adam7_samples(stream, w, h, bits, channels)
    else:
        samples = _png_samples(stream, w, h, bits, channels)
    trns = chunks.get(b"tRNS", [None])[0]
    if color == 3:
        return _apply_palette(samples, chunks.get(b"PLTE", [b""])[0], trns)
    return _to_8bit(samples, bits, trns)


def _png_chunks(data: bytes) -> dict[bytes, list[bytes]]:
    chunks: dict[bytes, list[bytes]] = {}
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunks.setdefault(kind, []).append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
        if kind == b"IEND":
            break
    return chunks


def _png_samples(stream: bytes, w: int, h: int, bits: int, channels: int) -> np.ndarray:
    """Unfilter one (sub-)image of `stream` and unpack it to samples `(h, w, channels)`."""
    stride = (w * channels * bits + 7) // 8
    if len(stream) < h * (stride + 1):
        raise ImageFileError("PNG data is shorter than its header says")
    raw = np.frombuffer(stream, dtype=np.uint8, count=h * (stride + 1)).reshape(h, stride + 1)
    bpp = max(1, channels * bits // 8)
    data = _unfilter(raw[:, 0], raw[:, 1:], bpp)
    if bits == 16:
        return data.reshape(h, w, channels, 2).astype(np.uint16) @ np.array([256, 1], np.uint16)
    if bits == 8:
        return data.reshape(h, w, channels)
    per_byte = 8 // bits
    shifts = np.arange(8 - bits, -1, -bits, dtype=np.uint8)
    unpacked = (data[:, :, None] >> shifts) & ((1 << bits) - 1)
    return unpacked.reshape(h, stride * per_byte)[:, :w, None]


def _adam7_samples(stream: bytes, w: int, h: int, bits: int, channels: int) -> np.ndarray:
    dtype = np.uint16 if bits == 16 else np.uint8
    out = np.zeros((h, w, channels), dtype=dtype)
    pos = 0
    for x0, y0, dx, dy in _ADAM7:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw <= 0 or ph <= 0:
            continue
        size = ph * ((pw * channels * bits + 7) // 8 + 1)
        out[y0::dy, x0::dx] = _png_samples(stream[pos : pos + size], pw, ph, bits, channels)
        pos += size
    return out


def _unfilter(filters: np.ndarray, data: np.ndarray, bpp: int) -> np.ndarray:
    """Undo PNG row filters: 0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth; bytes `(h, stride)`."""
    if filters.size and filters.max() > 4:
        raise ImageFileError(f"bad PNG filter type {filters.max()}")
    if filters.size and filters.max() > 2:
        return _unfilter_wavefront(filters, data, bpp)
    out = data.copy()
    h, stride = out.shape
    sub = filters == 1
    if sub.any():
        pixels = out[sub].reshape(-1, stride // bpp, bpp)
        out[sub] = np.cumsum(pixels, axis=1, dtype=np.uint8).reshape(-1, stride)
    for y in np.flatnonzero(filters[1:] == 2) + 1:
        out[y] += out[y - 1]
    return out


def _unfilter_wavefront(filters: np.ndarray, data: np.ndarray, bpp: int) -> np.ndarray:
    """Undo any mix of filters one anti-diagonal of pixels at a time (see the module docstring).

    The image is stored skewed, `done[d + 2, y + 1]` holding pixel (y, x = d - y), so that each
    anti-diagonal is one contiguous row and the left (y, x-1), upper (y-1, x) and upper-left
    (y-1, x-1) neighbours are plain slices of the two diagonals before it. The zero diagonals and
    zero column around it are the neighbours the PNG filters assume outside the image.
    """
    h, stride = data.shape
    n = stride // bpp
    ys, xs = np.indices((h, n))
    raw = np.zeros((h + n - 1, h, bpp), dtype=np.int16)
    raw[ys + xs, ys] = data.reshape(h, n, bpp)
    done = np.zeros((h + n + 1, h + 1, bpp), dtype=np.int16)
    kinds = filters.astype(np.intp)[:, None]
    for d in range(h + n - 1):
        lo, hi = max(0, d - n + 1), min(d, h - 1) + 1
        a = done[d + 1, lo + 1 : hi + 1]
        b = done[d + 1, lo:hi]
        c = done[d, lo:hi]
        up, left = b - c, a - c  # Paeth's distances: |p - a| = |b - c|, |p - b| = |a - c|
        pa, pb, pc = np.abs(up), np.abs(left), np.abs(up + left)
        paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
        predicted = np.choose(kinds[lo:hi], (0, a, b, (a + b) >> 1, paeth))
        done[d + 2, lo + 1 : hi + 1] = (raw[d, lo:hi] + predicted) & 255
    out = done[ys + xs + 2, ys + 1]
    return out.astype(np.uint8).reshape(h, stride)


def _apply_palette(indices: np.ndarray, plte: bytes, trns: bytes | None) -> np.ndarray:
    if not plte or len(plte) % 3:
        raise ImageFileError("palette PNG without a valid PLTE chunk")
    table = np.zeros((256, 4), dtype=np.uint8)
    colours = np.frombuffer(plte, dtype=np.uint8).reshape(-1, 3)[:256]
    table[: len(colours), :3] = colours
    table[:, 3] = 255
    if trns is not None:
        alpha = np.frombuffer(trns, dtype=np.uint8)[:256]
        table[: len(alpha), 3] = alpha
    return table[indices[:, :, 0]][:, :, : 4 if trns is not None else 3]


def _to_8bit(samples: np.ndarray, bits: int, trns: bytes | None) -> np.ndarray:
    if bits == 16:
        rows = (samples >> 8).astype(np.uint8)
    else:
        rows = (samples * (255 // ((1 << bits) - 1))).astype(np.uint8)
    if trns is None or samples.shape[2] not in (1, 3):
        return rows
    key = np.frombuffer(trns, dtype=">u2")[: samples.shape[2]]
    alpha = np.where((samples == key).all(axis=2), 0, 255).astype(np.uint8)
    return np.concatenate([rows, alpha[:, :, None]], axis=2)


# ----------------------------------------------------------------------------------------- BMP


def encode_bmp(rows: np.ndarray) -> bytes:
    """Encode uint8 rows `(h, w, c)` as a BMP: 24-bit for c = 1 or 3 (grey is repeated), 32-bit
    with an alpha mask (BITMAPV4HEADER) for c = 4."""
    rows = np.asarray(rows, dtype=np.uint8)
    h, w, c = rows.shape
    if c == 1:
        rows, c = np.repeat(rows, 3, axis=2), 3
    if c not in (3, 4):
        raise ValueError(f"BMP wants 1, 3 or 4 channels, got {c}")
    order = [2, 1, 0, 3][:c]  # BMP stores blue, green, red (, alpha)
    stride = (w * c + 3) // 4 * 4
    pixels = np.zeros((h, stride), dtype=np.uint8)
    pixels[:, : w * c] = rows[::-1, :, order].reshape(h, w * c)
    size = 40 if c == 3 else 108
    compression = 0 if c == 3 else 3  # BI_RGB, or BI_BITFIELDS with the masks below
    info = struct.pack(
        "<IiiHHIIiiII", size, w, h, 1, 8 * c, compression, pixels.size, 2835, 2835, 0, 0
    )
    if c == 4:
        info += struct.pack("<4I", 0xFF0000, 0xFF00, 0xFF, 0xFF000000) + b"BGRs" + bytes(48)
    offset = 14 + len(info)
    head = b"BM" + struct.pack("<IHHI", offset + pixels.size, 0, 0, offset)
    return head + info + pixels.tobytes()


def decode_bmp(data: bytes) -> np.ndarray:
    """Decode an uncompressed 24- or 32-bit BMP (or an 8-bit one with a palette) to uint8 rows.

    32-bit files give RGBA (alpha 255 throughout when the file's alpha is all zero, as
    stb_image does) unless their bit fields declare no alpha; the others give RGB.
    """
    if len(data) < 54 or not data.startswith(b"BM"):
        raise ImageFileError("not a BMP file")
    offset, size = struct.unpack("<II", data[10:18])
    w, h, _, bpp, compression = struct.unpack("<iiHHI", data[18:34])
    masks = _bmp_masks(data, size, bpp, compression)
    if bpp not in (8, 24, 32) or masks is None or w <= 0 or h == 0:
        raise ImageFileError(f"unsupported BMP: {bpp} bits, compression {compression}")
    height = abs(h)
    stride = (w * bpp // 8 + 3) // 4 * 4
    if len(data) < offset + stride * height:
        raise ImageFileError("BMP data is shorter than its header says")
    raw = np.frombuffer(data, dtype=np.uint8, count=stride * height, offset=offset)
    raw = raw.reshape(height, stride)[:, : w * bpp // 8]
    if h > 0:
        raw = raw[::-1]  # bottom-up rows, the usual case
    if bpp == 8:
        return _bmp_palette(data, 14 + size, raw)
    if bpp == 24:
        return np.ascontiguousarray(raw.reshape(height, w, 3)[:, :, ::-1])
    words = raw.reshape(height, w, 4).view("<u4")[:, :, 0]
    channels = [_bmp_field(words, mask) for mask in masks if mask]
    rows = np.stack(channels, axis=2)
    if rows.shape[2] == 4 and not rows[:, :, 3].any():
        rows[:, :, 3] = 255
    return rows


def _bmp_masks(data: bytes, size: int, bpp: int, compression: int) -> tuple[int, ...] | None:
    if compression == 0:
        return (0xFF0000, 0xFF00, 0xFF, 0xFF000000 if bpp == 32 else 0)
    if compression != 3 or bpp != 32:
        return None
    count = 4 if size >= 56 else 3
    masks = struct.unpack(f"<{count}I", data[54 : 54 + 4 * count])
    return masks + (0,) * (4 - count)


def _bmp_field(words: np.ndarray, mask: int) -> np.ndarray:
    shift = (mask & -mask).bit_length() - 1
    top = mask >> shift
    value = (words >> np.uint32(shift)) & np.uint32(top)
    return (value * 255 // top).astype(np.uint8)


def _bmp_palette(data: bytes, start: int, indices: np.ndarray) -> np.ndarray:
    table = np.zeros((256, 3), dtype=np.uint8)
    entries = np.frombuffer(data[start : start + 1024], dtype=np.uint8)
    entries = entries[: len(entries) // 4 * 4].reshape(-1, 4)
    table[: len(entries)] = entries[:, 2::-1]
    return table[indices]


# -------------------------------------------------------------------------- Pillow (optional)


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            "this image format (JPEG, GIF, ...) needs the optional package Pillow: "
            "pip install pillow (PNG and BMP work without it)"
        ) from None
    return Image


def _pillow_encode(rows: np.ndarray, kind: str) -> bytes:
    import io

    image = _pillow().fromarray(rows[:, :, 0] if rows.shape[2] == 1 else rows[:, :, :3])
    buffer = io.BytesIO()
    image.save(buffer, format=kind, quality=95)
    return buffer.getvalue()


def _pillow_decode(data: bytes) -> np.ndarray:
    import io

    Image = _pillow()
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as error:  # Pillow raises many kinds; all mean "cannot read"
        raise ImageFileError(f"Cannot read image file: {error}") from None
    modes = {"L": "L", "LA": "LA", "RGB": "RGB", "RGBA": "RGBA"}
    has_alpha = "A" in image.getbands() or "transparency" in image.info
    image = image.convert(modes.get(image.mode, "RGBA" if has_alpha else "RGB"))
    rows = np.asarray(image, dtype=np.uint8)
    return np.ascontiguousarray(rows[:, :, None] if rows.ndim == 2 else rows)
