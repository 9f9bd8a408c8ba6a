"""`ti.tools.VideoManager`: numbered PNG frames with even sizes, and ffmpeg's command lines.

ffmpeg is not installed on the test machines, so the command test puts a small stand-in named
ffmpeg on PATH that records its arguments and creates the file it is asked for."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from tistudio.ui import image_io, tools


class _Brighter:
    def process(self, img: np.ndarray) -> np.ndarray:
        return img + 1


def _frames(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.integers(0, 200, (9, 6, 3), dtype=np.uint8) for _ in range(n)]


def test_frames_are_numbered_pngs_with_even_sizes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # no ffmpeg: warn, keep the frames
    video = tools.VideoManager(str(tmp_path / "out"), post_processor=_Brighter())
    frames = _frames(5)
    with pytest.warns(UserWarning, match="ffmpeg is not on PATH"):
        video.write_frames(frames)
    assert sorted(os.listdir(video.get_frame_directory())) == [f"{i:06d}.png" for i in range(5)]
    for i, img in enumerate(frames):
        back = image_io.imread(tmp_path / "out" / "frames" / f"{i:06d}.png")
        np.testing.assert_array_equal(back, img[:8, :6] + 1)  # odd width 9: last column dropped
    assert (video.width, video.height) == (8, 6)
    video.clean_frames()
    assert os.listdir(video.get_frame_directory()) == []


def test_make_video_runs_ffmpeg(tmp_path: Path, monkeypatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ffmpeg"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"open({str(tmp_path / 'calls.txt')!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
        "open(sys.argv[-1], 'w').write('made')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir))
    out = tmp_path / "out"
    video = tools.VideoManager(str(out), framerate=12, automatic_build=False)
    video.write_frames(_frames(3))
    assert not (tmp_path / "calls.txt").exists()  # automatic_build off: nothing yet
    video.make_video(mp4=False, gif=True)
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    frames = os.path.join(str(out), "frames", "%06d.png")
    assert calls[0].startswith(f"-loglevel panic -framerate 12 -i {frames} -s:v 8x6 -c:v libx264")
    assert calls[-1].endswith(f"-lavfi paletteuse -y {out / 'video.gif'}")
    assert (out / "video.gif").exists() and not (out / "video.mp4").exists()
    assert not (out / "palette.png").exists()
