"""`ti.tools.VideoManager`: Taichi's frame recorder, for programs that save an animation.

Frames go to `<output_dir>/frames/000000.png, ...` through `tools.imwrite`; `make_video` then
asks ffmpeg for `video.mp4` and `video.gif`, as Taichi does. Without ffmpeg on PATH the frames
are still written and `make_video` warns once instead of failing, so a program that records
while it runs (`automatic_build`, Taichi's default) does not stop on a machine without ffmpeg.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from typing import Any

import numpy as np

FRAME_FN_TEMPLATE = "%06d.png"
FRAME_DIR = "frames"


class VideoManager:
    """Write frames (`[x, y(, c)]` images, as `ti.tools.imwrite` takes) and build videos.

    Frames with an odd width or height lose their last column or row (H.264 wants even sizes);
    `post_processor.process(img)` runs on each frame first; with `automatic_build` the video is
    rebuilt after frame 4, 8, 16, ...
    """

    def __init__(
        self,
        output_dir: str,
        video_filename: str | None = None,
        width: int | None = None,
        height: int | None = None,
        post_processor: Any = None,
        framerate: int = 24,
        automatic_build: bool = True,
    ) -> None:
        assert (width is None) == (height is None)
        self.width, self.height = width, height
        self.directory = output_dir
        self.frame_directory = os.path.join(output_dir, FRAME_DIR)
        os.makedirs(self.frame_directory, exist_ok=True)
        self.video_filename = video_filename
        self.next_video_checkpoint = 4
        self.framerate = framerate
        self.post_processor = post_processor
        self.frame_counter = 0
        self.frame_fns: list[str] = []
        self.automatic_build = automatic_build
        self._warned = False

    def get_output_filename(self, suffix: str) -> str:
        name = os.path.splitext(self.video_filename)[0] if self.video_filename else "video"
        return os.path.join(self.directory, name + suffix)

    def get_frame_directory(self) -> str:
        return self.frame_directory

    def write_frame(self, img: Any) -> None:
        """Save one frame as the next numbered PNG (and rebuild the video at checkpoints)."""
        from tistudio.ui.tools import imwrite

        if not isinstance(img, np.ndarray):
            img = img.to_numpy()
        img = img[: img.shape[0] // 2 * 2, : img.shape[1] // 2 * 2]
        if self.post_processor:
            img = self.post_processor.process(img)
        if self.width is None:
            self.width, self.height = img.shape[0], img.shape[1]
        fn = FRAME_FN_TEMPLATE % self.frame_counter
        self.frame_fns.append(fn)
        imwrite(img, os.path.join(self.frame_directory, fn))
        self.frame_counter += 1
        if self.frame_counter % self.next_video_checkpoint == 0 and self.automatic_build:
            self.make_video()
            self.next_video_checkpoint *= 2

    def write_frames(self, images: Any) -> None:
        for img in images:
            self.write_frame(img)

    def clean_frames(self) -> None:
        """Delete the frames this manager wrote."""
        for fn in self.frame_fns:
            path = os.path.join(self.frame_directory, fn)
            if os.path.exists(path):
                os.remove(path)

    def make_video(self, mp4: bool = True, gif: bool = True) -> None:
        """Turn the frames into `video.mp4` and/or `video.gif` with ffmpeg."""
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg is None:
            if not self._warned:
                warnings.warn(
                    "ti.tools.VideoManager: ffmpeg is not on PATH, so no video is made; the "
                    f"frames are in {self.frame_directory}",
                    stacklevel=2,
                )
                self._warned = True
            return
        mp4_fn = self.get_output_filename(".mp4")
        frames = os.path.join(self.frame_directory, FRAME_FN_TEMPLATE)
        size = f"{self.width}x{self.height}"
        _run(
            [ffmpeg, "-loglevel", "panic", "-framerate", str(self.framerate), "-i", frames]
            + ["-s:v", size, "-c:v", "libx264", "-profile:v", "high", "-crf", "1"]
            + ["-pix_fmt", "yuv420p", "-y", mp4_fn]
        )
        if gif:
            palette = os.path.join(self.directory, "palette.png")
            scale = f"fps={self.framerate},scale=320:640:flags=lanczos,palettegen"
            _run([ffmpeg, "-loglevel", "panic", "-i", mp4_fn, "-vf", scale, "-y", palette])
            gif_fn = self.get_output_filename(".gif")
            paletteuse = ["-lavfi", "paletteuse", "-y", gif_fn]
            _run([ffmpeg, "-loglevel", "panic", "-i", mp4_fn, "-i", palette] + paletteuse)
            if os.path.exists(palette):
                os.remove(palette)
        if not mp4 and os.path.exists(mp4_fn):
            os.remove(mp4_fn)


def _run(command: list[str]) -> None:
    subprocess.run(command, check=False, stdin=subprocess.DEVNULL)
