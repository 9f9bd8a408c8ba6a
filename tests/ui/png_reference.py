"""A deliberately plain PNG encoder for the tests: every filter type, bit depth, colour type and
Adam7 interlacing, written with Python loops straight from the PNG specification, so the NumPy
decoder in `tistudio.ui.image_io` is checked against an independent reading of the format."""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2))
ADAM7 += ((0, 1, 1, 2),)


def chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload)
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def pack_row(samples: np.ndarray, bits: int) -> bytes:
    """One row of samples (w, c) as PNG bytes: big-endian for 16 bits, packed high bits first
    below 8."""
    flat = [int(v) for v in samples.reshape(-1)]
    if bits == 16:
        return b"".join(struct.pack(">H", v) for v in flat)
    if bits == 8:
        return bytes(flat)
    per_byte = 8 // bits
    out = bytearray()
    for start in range(0, len(flat), per_byte):
        group = flat[start : start + per_byte] + [0] * (per_byte - len(flat[start:]))
        byte = 0
        for value in group:
            byte = (byte << bits) | value
        out.append(byte)
    return bytes(out)


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(kind: int, line: bytes, prior: bytes, bpp: int) -> bytes:
    out = bytearray([kind])
    for i, value in enumerate(line):
        a = line[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        predicted = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((value - predicted) % 256)
    return bytes(out)


def filtered_image(samples: np.ndarray, bits: int, filters: list[int]) -> bytes:
    h, _, c = samples.shape
    bpp = max(1, c * bits // 8)
    lines = [pack_row(samples[y], bits) for y in range(h)]
    prior = bytes(len(lines[0]))
    out = b""
    for y, line in enumerate(lines):
        out += filter_row(filters[y % len(filters)], line, prior, bpp)
        prior = line
    return out


def encode(
    samples: np.ndarray,
    bits: int,
    color: int,
    filters: list[int],
    interlace: bool = False,
    extra: bytes = b"",
) -> bytes:
    """A PNG of `samples` (h, w, c): raw sample values of depth `bits`; `extra` holds PLTE/tRNS
    chunks; row y uses filter `filters[y % len(filters)]` (per pass when interlaced)."""
    h, w, _ = samples.shape
    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            part = samples[y0::dy, x0::dx]
            if part.shape[0] and part.shape[1]:
                data += filtered_image(part, bits, filters)
    else:
        data = filtered_image(samples, bits, filters)
    header = struct.pack(">IIBBBBB", w, h, bits, color, 0, 0, int(interlace))
    body = chunk(b"IHDR", header) + extra + chunk(b"IDAT", zlib.compress(data))
    return SIGNATURE + body + chunk(b"IEND", b"")
