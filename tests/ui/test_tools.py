"""`ti.tools` (tistudio.ui.tools): fields, ndarrays and arrays of every dtype Taichi accepts
become the same PNG pixels as Taichi 1.7.4 writes, `imresize` picks the same pixels as
Taichi's, and the dtypes Taichi refuses are refused with its errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.ui import image_io, tools

RNG = np.random.default_rng(1729)
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
FLOATS = ("float32", "float64")


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)


def _values(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype in FLOATS:  # some outside [0, 1] (clipped) and exact multiples of 1/255 and 1/2
        values = RNG.uniform(-0.2, 1.2, shape)
        values.flat[:4] = (0.5, 1 / 255, 254 / 255, 1.0)
        return values.astype(dtype)
    top = np.iinfo(dtype).max
    values = RNG.integers(0, top, shape, dtype=dtype, endpoint=True)
    values.flat[:3] = (top, top // 256 * 255, top // 256 * 256)  # the last wraps to 0 in Taichi
    return values


def _cases() -> dict[str, np.ndarray]:
    cases = {}
    for dtype in UNSIGNED + FLOATS:
        cases[f"numpy-{dtype}"] = _values(dtype, (23, 17, 3))
        cases[f"scalar-{dtype}"] = _values(dtype, (23, 17))
        cases[f"vector4-{dtype}"] = _values(dtype, (23, 17, 4))
    cases["ndarray-float32"] = _values("float32", (23, 17, 3))
    return cases


ORACLE = """
import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)
cases = np.load("cases.npz")
resized = {}
for name in cases.files:
    kind, dtype = name.split("-")
    values = cases[name]
    dt = {"uint8": ti.u8, "uint16": ti.u16, "uint32": ti.u32, "uint64": ti.u64}.get(dtype)
    dt = dt or {"float32": ti.f32, "float64": ti.f64}[dtype]
    if kind == "numpy":
        img = values
    elif kind == "scalar":
        img = ti.field(dt, values.shape)
    elif kind == "ndarray":
        img = ti.Vector.ndarray(values.shape[-1], dt, values.shape[:2])
    else:
        img = ti.Vector.field(values.shape[-1], dt, values.shape[:2])
    if kind != "numpy":
        img.from_numpy(values)
    ti.tools.imwrite(img, f"taichi-{name}.png")
    for w, h in ((46, 34), (69, None), (10, 7), (23, 50)):
        resized[f"{name}-{w}-{h}"] = ti.tools.imresize(img, w, h)
np.savez("resized.npz", **resized)
"""


def _make(kind: str, values: np.ndarray) -> object:
    dt = {"uint8": ti.u8, "uint16": ti.u16, "uint32": ti.u32, "uint64": ti.u64}
    dt |= {"float32": ti.f32, "float64": ti.f64}
    dtype = dt[str(values.dtype)]
    if kind == "numpy":
        return values
    if kind == "scalar":
        img = ti.field(dtype, values.shape)
    elif kind == "ndarray":
        img = ti.Vector.ndarray(values.shape[-1], dtype, values.shape[:2])
    else:
        img = ti.Vector.field(values.shape[-1], dtype, values.shape[:2])
    img.from_numpy(values)
    return img


@pytest.fixture(scope="module")
def taichi_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("taichi")
    folder = tmp_path_factory.mktemp("taichi_tools")
    np.savez(folder / "cases.npz", **_cases())
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


@pytest.mark.parametrize("name", sorted(_cases()))
def test_imwrite_matches_taichi(taichi_folder: Path, tmp_path: Path, name: str) -> None:
    kind, _ = name.split("-")
    with np.load(taichi_folder / "cases.npz") as cases:
        values = cases[name]
    tools.imwrite(_make(kind, values), tmp_path / "ours.png")
    theirs = image_io.decode_png((taichi_folder / f"taichi-{name}.png").read_bytes())
    ours = image_io.decode_png((tmp_path / "ours.png").read_bytes())
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", sorted(_cases()))
def test_imresize_matches_taichi(taichi_folder: Path, name: str) -> None:
    kind, _ = name.split("-")
    with np.load(taichi_folder / "cases.npz") as cases:
        values = cases[name]
    with np.load(taichi_folder / "resized.npz") as resized:
        for w, h in ((46, 34), (69, None), (10, 7), (23, 50)):
            theirs = resized[f"{name}-{w}-{h}"]
            ours = tools.imresize(_make(kind, values), w, h)
            assert ours.dtype == theirs.dtype
            np.testing.assert_array_equal(ours, theirs)


def test_float_pixels_truncate_after_scaling_by_255() -> None:
    img = np.array([[0.0, 0.5, 0.999, 1.0, -1.0, 2.0, 0.0039216]], dtype=np.float32)
    cooked = tools.cook_image_to_bytes(img)
    assert cooked.shape == (1, 7, 1)
    assert cooked[0, :, 0].tolist() == [0, 127, 254, 255, 0, 255, 1]


def test_wide_unsigned_divide_by_max_over_256_and_wrap() -> None:
    img = np.array([[0, 255, 256, 65535, 65280]], dtype=np.uint16)
    assert tools.cook_image_to_bytes(img)[0, :, 0].tolist() == [0, 1, 1, 1, 0]
    img = np.array([[2**32 - 1, 2**24, 2**31]], dtype=np.uint32)
    assert tools.cook_image_to_bytes(img)[0, :, 0].tolist() == [0, 1, 128]


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float16"])
def test_types_taichi_refuses(tmp_path: Path, dtype: str) -> None:
    with pytest.raises(ValueError, match=f"Data type {dtype} not supported"):
        tools.imwrite(np.zeros((4, 4, 3), dtype=dtype), tmp_path / "a.png")
    assert not (tmp_path / "a.png").exists()


def test_signed_field_and_two_channels_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="int32"):
        tools.imwrite(ti.field(ti.i32, (4, 4)), tmp_path / "a.png")
    with pytest.raises(AssertionError, match="RGB/RGBA or greyscale"):
        tools.imwrite(np.zeros((4, 4, 2), dtype=np.uint8), tmp_path / "a.png")


def test_imread_layout_and_channels(tmp_path: Path) -> None:
    img = RNG.integers(0, 256, (9, 5, 4), dtype=np.uint8)
    tools.imwrite(img, tmp_path / "a.png")
    np.testing.assert_array_equal(tools.imread(tmp_path / "a.png"), img)
    np.testing.assert_array_equal(tools.imread(tmp_path / "a.png", channels=3), img[:, :, :3])
    assert tools.imread(tmp_path / "a.png", channels=1).shape == (9, 5, 1)


def test_imresize_nearest_pixels_and_sum() -> None:
    img = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert tools.imresize(img, 5, 3).tolist() == [
        [0, 0, 1],
        [0, 0, 1],
        [2, 2, 3],
        [2, 2, 3],
        [4, 4, 5],
    ]
    assert tools.imresize(img, 3, 2) is img  # already that size
    big = tools.imresize(RNG.random((7, 5, 3)), 21, 15)
    assert big.shape == (21, 15, 3)
    with pytest.raises(AssertionError):
        tools.imresize(img, 1, 4)


class _RecordingSink:
    """A FrameSink (tistudio.ui.sink's protocol) that keeps the frames it is shown and presses
    Escape once `escape_after` frames have arrived."""

    live = False

    def __init__(self, escape_after: int) -> None:
        self.frames: list[np.ndarray] = []
        self.escape_after = escape_after

    def present(self, frame: np.ndarray, controls: object = None) -> None:
        assert len(self.frames) < 10, "imshow kept going after Escape"
        self.frames.append(frame.copy())

    def poll(self) -> list:
        from tistudio.ui.sink import RawEvent

        if len(self.frames) == self.escape_after:
            return [RawEvent("press", "Escape", 0.5, 0.5)]
        return []

    @property
    def closed(self) -> bool:
        return False

    def close(self) -> None:
        pass


def test_imshow_shows_the_image_until_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    from tistudio.ui import sink

    monkeypatch.delenv("TISTUDIO_GUI_MAX_FRAMES", raising=False)
    monkeypatch.delenv("TI_GUI_MAX_FRAMES", raising=False)
    opened: list[tuple[str, tuple[int, int], _RecordingSink]] = []

    def open_sink(title: str, res: tuple[int, int], show: bool = True) -> _RecordingSink:
        opened.append((title, res, _RecordingSink(escape_after=3)))
        return opened[-1][2]

    monkeypatch.setattr(sink, "open_sink", open_sink)
    img = RNG.integers(0, 256, (20, 12, 3), dtype=np.uint8)
    field = ti.Vector.field(3, ti.u8, (20, 12))
    field.from_numpy(img)
    tools.imshow(field, title="pic")
    (title, res, shown), *_ = opened
    assert (title, res) == ("pic", (20, 12))
    assert 3 <= len(shown.frames) <= 4  # Escape seen at the start of the next frame
    rows = image_io.to_rows(img).astype(int)
    assert np.abs(shown.frames[-1].astype(int) - rows).max() <= 1


def test_imshow_headless_ends_after_max_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TISTUDIO_GUI_MAX_FRAMES", "2")
    monkeypatch.setenv("TISTUDIO_GUI", "headless")
    tools.imshow(np.linspace(0, 1, 30, dtype=np.float32).reshape(6, 5))
