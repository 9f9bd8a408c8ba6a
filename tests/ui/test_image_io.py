"""PNG, BMP and JPEG files of `tistudio.ui.image_io`: our files open in Pillow and in Taichi
1.7.4 (stb_image) with the same pixels, and we read theirs, plus every PNG variant a plain
reference encoder (tests/ui/png_reference.py) can write."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.ui import png_reference as ref
from tistudio.ui import image_io

RNG = np.random.default_rng(29)
CHANNELS = (1, 3, 4)


def _random_image(w: int, h: int, c: int) -> np.ndarray:
    return RNG.integers(0, 256, (w, h, c), dtype=np.uint8)


def _pillow_rows(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        rows = np.asarray(image)
    return rows[:, :, None] if rows.ndim == 2 else rows


def _as_taichi_bmp(img: np.ndarray) -> np.ndarray:
    """What a 24-bit BMP of `img` holds: grey repeated, RGBA blended on stb's pink (255, 0, 255)
    with C's integer division (which truncates toward zero)."""
    if img.shape[2] == 1:
        return np.repeat(img, 3, axis=2)
    if img.shape[2] == 3:
        return img
    out = np.empty(img.shape[:2] + (3,), dtype=np.uint8)
    for index in np.ndindex(img.shape[:2]):
        r, g, b, a = (int(v) for v in img[index])
        out[index] = [bg + int((v - bg) * a / 255) for v, bg in zip((r, g, b), (255, 0, 255))]
    return out


# ----------------------------------------------------------------------- our own round trips


@pytest.mark.parametrize("c", CHANNELS)
@pytest.mark.parametrize("ext", ["png", "bmp"])
def test_write_then_read_gives_the_pixels_back(tmp_path: Path, c: int, ext: str) -> None:
    img = _random_image(37, 23, c)
    image_io.imwrite(img, tmp_path / f"a.{ext}")
    back = image_io.imread(tmp_path / f"a.{ext}")
    if ext == "bmp":  # 24-bit, as Taichi writes it: grey becomes RGB, RGBA goes on pink
        img = _as_taichi_bmp(img)
    assert back.dtype == np.uint8 and back.shape == img.shape
    np.testing.assert_array_equal(back, img)


def test_layout_is_x_right_y_up(tmp_path: Path) -> None:
    img = np.zeros((4, 3, 3), dtype=np.uint8)
    img[3, 0] = (255, 0, 0)  # x = 3 (right), y = 0 (bottom)
    image_io.imwrite(img, tmp_path / "corner.png")
    rows = image_io.decode_png((tmp_path / "corner.png").read_bytes())
    assert rows.shape == (3, 4, 3)
    assert rows[2, 3].tolist() == [255, 0, 0] and rows.sum() == 255


@pytest.mark.parametrize("c", CHANNELS)
@pytest.mark.parametrize("ext", ["png", "bmp"])
def test_pillow_reads_our_files(tmp_path: Path, c: int, ext: str) -> None:
    pytest.importorskip("PIL")
    img = _random_image(41, 19, c)
    image_io.imwrite(img, tmp_path / f"a.{ext}")
    expected = image_io.to_rows(img)
    if ext == "bmp":
        expected = image_io.to_rows(_as_taichi_bmp(img))
    np.testing.assert_array_equal(_pillow_rows(tmp_path / f"a.{ext}"), expected)


def test_32_bit_bmp_keeps_alpha_in_pillow_and_back(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    rows = image_io.to_rows(_random_image(13, 9, 4))
    (tmp_path / "a.bmp").write_bytes(image_io.encode_bmp(rows))
    np.testing.assert_array_equal(_pillow_rows(tmp_path / "a.bmp"), rows)
    np.testing.assert_array_equal(image_io.decode_bmp((tmp_path / "a.bmp").read_bytes()), rows)


def test_top_down_bmp(tmp_path: Path) -> None:
    rows = image_io.to_rows(_random_image(6, 5, 3))
    data = bytearray(image_io.encode_bmp(rows[::-1]))  # stored bottom-up: now rows top-down
    data[22:26] = struct.pack("<i", -5)
    np.testing.assert_array_equal(image_io.decode_bmp(bytes(data)), rows)


# --------------------------------------------------------------- PNG variants other tools write


def _variant(samples: np.ndarray, bits: int, color: int, interlace: bool = False) -> bytes:
    return ref.encode(samples, bits, color, filters=[0, 1, 2, 3, 4], interlace=interlace)


@pytest.mark.parametrize("interlace", [False, True])
@pytest.mark.parametrize("color,c", [(0, 1), (4, 2), (2, 3), (6, 4)])
@pytest.mark.parametrize("bits", [8, 16])
def test_png_every_filter_and_colour_type(interlace: bool, color: int, c: int, bits: int) -> None:
    samples = RNG.integers(0, 1 << bits, (11, 13, c))
    rows = image_io.decode_png(_variant(samples, bits, color, interlace))
    expected = samples >> 8 if bits == 16 else samples  # stb keeps the high byte
    np.testing.assert_array_equal(rows, expected)


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_png_low_bit_grey_is_scaled_to_255(bits: int) -> None:
    samples = RNG.integers(0, 1 << bits, (7, 11, 1))
    rows = image_io.decode_png(_variant(samples, bits, 0))
    np.testing.assert_array_equal(rows, samples * (255 // ((1 << bits) - 1)))


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
@pytest.mark.parametrize("transparent", [False, True])
def test_png_palette(bits: int, transparent: bool) -> None:
    size = 1 << bits
    palette = RNG.integers(0, 256, (size, 3), dtype=np.uint8)
    alpha = RNG.integers(0, 256, size - 1, dtype=np.uint8)  # tRNS may be shorter: 255 after
    extra = ref.chunk(b"PLTE", palette.tobytes())
    if transparent:
        extra += ref.chunk(b"tRNS", alpha.tobytes())
    samples = RNG.integers(0, size, (9, 10, 1))
    data = ref.encode(samples, bits, 3, filters=[0, 1, 2, 3, 4], extra=extra)
    rows = image_io.decode_png(data)
    expected = palette[samples[:, :, 0]]
    if transparent:
        full = np.append(alpha, 255)
        expected = np.concatenate([expected, full[samples[:, :, 0]][:, :, None]], axis=2)
    np.testing.assert_array_equal(rows, expected)


def test_png_colour_key_becomes_alpha() -> None:
    samples = RNG.integers(0, 4, (5, 6, 3))
    samples[0, 0] = (1, 2, 3)
    extra = ref.chunk(b"tRNS", struct.pack(">3H", 1, 2, 3))
    rows = image_io.decode_png(ref.encode(samples, 8, 2, filters=[0], extra=extra))
    keyed = (samples == (1, 2, 3)).all(axis=2)
    np.testing.assert_array_equal(rows[:, :, :3], samples)
    np.testing.assert_array_equal(rows[:, :, 3], np.where(keyed, 0, 255))


@pytest.mark.parametrize("mode", ["1", "L", "LA", "RGB", "RGBA", "P", "I;16"])
def test_png_written_by_pillow(tmp_path: Path, mode: str) -> None:
    Image = pytest.importorskip("PIL.Image")
    x, y = np.meshgrid(np.arange(64), np.arange(48))
    smooth = np.stack([x * 4, y * 5, (x + y) * 2, 255 - x], axis=2).astype(np.uint8)
    source = Image.fromarray(smooth, "RGBA")
    source = (
        source.convert(mode)
        if mode != "I;16"
        else Image.fromarray((x * 1000 + y).astype(np.uint16))
    )
    source.save(tmp_path / "p.png")
    rows = image_io.decode_png((tmp_path / "p.png").read_bytes())
    with Image.open(tmp_path / "p.png") as image:
        if mode == "I;16":
            expected = (np.asarray(image).astype(np.uint32) >> 8)[:, :, None]
        else:
            palette = "RGBA" if "transparency" in image.info else "RGB"
            image = image.convert({"1": "L", "P": palette}.get(mode, mode))
            expected = np.asarray(image)
    np.testing.assert_array_equal(rows, expected.reshape(rows.shape))


def test_broken_pngs_are_clear_errors() -> None:
    good = image_io.encode_png(np.zeros((4, 4, 3), dtype=np.uint8))
    with pytest.raises(image_io.ImageFileError, match="corrupt PNG"):
        image_io.decode_png(good[:-30] + bytes(30))
    bad_depth = ref.encode(np.zeros((2, 2, 3), dtype=int), 8, 2, [0]).replace(
        b"IHDR" + struct.pack(">II", 2, 2) + b"\x08", b"IHDR" + struct.pack(">II", 2, 2) + b"\x04"
    )
    with pytest.raises(image_io.ImageFileError, match="bit depth 4"):
        image_io.decode_png(bad_depth)
    with pytest.raises(image_io.ImageFileError, match="filter type 7"):
        raw = zlib.compress(b"\x07" + bytes(3))
        data = ref.SIGNATURE + ref.chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        image_io.decode_png(data + ref.chunk(b"IDAT", raw) + ref.chunk(b"IEND", b""))


# ------------------------------------------------------------------------ file names and errors


def test_unknown_suffix_and_missing_file_are_runtime_errors(tmp_path: Path) -> None:
    img = _random_image(4, 4, 3)
    with pytest.raises(RuntimeError, match="suffix"):
        image_io.imwrite(img, tmp_path / "a.gif")
    with pytest.raises(RuntimeError, match="Cannot read image file"):
        image_io.imread(tmp_path / "missing.png")


def test_read_channels_converts_as_stb_does(tmp_path: Path) -> None:
    img = np.array([[[200, 100, 50, 7]]], dtype=np.uint8)
    image_io.imwrite(img, tmp_path / "a.png")
    grey = (200 * 77 + 100 * 150 + 50 * 29) >> 8
    assert image_io.imread(tmp_path / "a.png", 1).tolist() == [[[grey]]]
    assert image_io.imread(tmp_path / "a.png", 2).tolist() == [[[grey, 7]]]
    assert image_io.imread(tmp_path / "a.png", 3).tolist() == [[[200, 100, 50]]]
    image_io.imwrite(img[:, :, :1], tmp_path / "g.png")
    assert image_io.imread(tmp_path / "g.png", 4).tolist() == [[[200, 200, 200, 255]]]
    assert image_io.imread(tmp_path / "g.png", 2).tolist() == [[[200, 255]]]


def test_jpeg_through_pillow(tmp_path: Path) -> None:
    pytest.importorskip("PIL")
    x, y = np.meshgrid(np.arange(32), np.arange(24), indexing="ij")
    img = np.stack([x * 8, y * 10, np.full_like(x, 128)], axis=2).astype(np.uint8)
    image_io.imwrite(img, tmp_path / "a.jpg")
    assert np.abs(_pillow_rows(tmp_path / "a.jpg").astype(int) - image_io.to_rows(img)).max() < 12
    back = image_io.imread(tmp_path / "a.jpg")
    assert back.shape == img.shape and np.abs(back.astype(int) - img).max() < 12


def test_jpeg_without_pillow_names_the_package(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['PIL'] = None\n"
        "import numpy as np\n"
        "from tistudio.ui import image_io\n"
        "try:\n"
        "    image_io.imwrite(np.zeros((2, 2, 3), np.uint8), sys.argv[1])\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "a.jpg")], capture_output=True, text=True
    )
    assert "Pillow" in done.stdout and "pip install pillow" in done.stdout, done.stderr
    assert not (tmp_path / "a.jpg").exists()


def test_png_speed_512_rgb() -> None:
    x, y = np.meshgrid(np.arange(512), np.arange(512), indexing="ij")
    img = np.stack([x // 2, y // 2, (x // 32 + y // 32) % 2 * 200], axis=2).astype(np.uint8)
    rows = image_io.to_rows(img)
    image_io.decode_png(image_io.encode_png(rows))  # warm up
    start = time.perf_counter()
    for _ in range(5):
        data = image_io.encode_png(rows)
    encode = (time.perf_counter() - start) / 5
    start = time.perf_counter()
    for _ in range(5):
        back = image_io.decode_png(data)
    decode = (time.perf_counter() - start) / 5
    np.testing.assert_array_equal(back, rows)
    assert encode < 0.03 and decode < 0.03, (encode, decode)


# ---------------------------------------------------------------- against Taichi 1.7.4 (stb)

ORACLE = """
import sys
import numpy as np
import taichi as ti

images = np.load("images.npz")
out = {}
for name in images.files:
    c, ext = name.split("_")
    ti.tools.imwrite(images[name], f"taichi_{c}.{ext}")
    out[name] = ti.tools.imread(f"ours_{c}.{ext}")
np.savez("taichi_read.npz", **out)
"""


@pytest.fixture(scope="module")
def taichi_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("taichi")
    folder = tmp_path_factory.mktemp("taichi_image_io")
    images = {f"{c}_{ext}": _random_image(29, 17, c) for c in CHANNELS for ext in ("png", "bmp")}
    for name, img in images.items():
        c, ext = name.split("_")
        image_io.imwrite(img, folder / f"ours_{c}.{ext}")
    np.savez(folder / "images.npz", **images)
    (folder / "oracle.py").write_text(ORACLE)
    done = subprocess.run(
        [sys.executable, "oracle.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TI_LOG_LEVEL": "error"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.mark.parametrize("c", CHANNELS)
@pytest.mark.parametrize("ext", ["png", "bmp"])
def test_files_agree_with_taichi_both_ways(taichi_folder: Path, c: int, ext: str) -> None:
    with np.load(taichi_folder / "images.npz") as images:
        img = images[f"{c}_{ext}"]
    with np.load(taichi_folder / "taichi_read.npz") as read:
        taichi_read_ours = read[f"{c}_{ext}"]
    ours_read_taichi = image_io.imread(taichi_folder / f"taichi_{c}.{ext}")
    if ext == "bmp":
        img = _as_taichi_bmp(img)
    np.testing.assert_array_equal(taichi_read_ours, img)
    np.testing.assert_array_equal(ours_read_taichi, img)
