"""`ti.ui.Window`: GGUI's window, drawn offscreen with wgpu and shown through a `FrameSink`.

A frame is what the program declared since the last `show()` (canvas drawings, a scene,
widgets); `show()` renders it, hands the picture and the widgets to the sink (the notebook's
live view, or nothing when headless), and takes the viewer's input back: key and mouse events
for `get_event`/`is_pressed`/`get_cursor_pos`, changed widget values for the next frame's
widgets, and a close that ends `running`. `TISTUDIO_GUI_MAX_FRAMES` bounds the frames, so that
`while window.running:` loops end in scripts and tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tistudio.ui import sink as sinks
from tistudio.ui.ggui.canvas import Canvas
from tistudio.ui.ggui.imgui import Gui
from tistudio.ui.ggui.renderer import Draw, Renderer
from tistudio.ui.ggui.scene import SceneV2

PRESS = "Press"
RELEASE = "Release"


@dataclass
class Event:
    """A key or mouse-button event: `key` is Taichi's key name, `type` is PRESS or RELEASE."""

    type: str
    key: str
    modifier: tuple[str, ...] = ()


@dataclass
class Frame:
    """What the program declared for the frame being built."""

    width: int
    height: int
    draws: list[Draw] = field(default_factory=list)
    lights: np.ndarray = field(default_factory=lambda: np.zeros((0, 8), dtype=np.float32))
    background: tuple[float, ...] = (0.0, 0.0, 0.0)


class Window:
    """A GGUI window of `res` = (width, height) pixels."""

    def __init__(
        self,
        name: str,
        res: tuple[int, int],
        vsync: bool = False,
        show_window: bool = True,
        fps_limit: int = 1000,
        pos: tuple[int, int] = (100, 100),
    ) -> None:
        self.name = name
        self.width, self.height = int(res[0]), int(res[1])
        self.fps_limit = fps_limit
        self.renderer = Renderer(self.width, self.height)
        self.frame = Frame(self.width, self.height)
        self.sink = sinks.open_sink(name, (self.width, self.height), show_window)
        self.controls: list[sinks.Control] = []
        self.control_values: dict[str, Any] = {}
        self.event: Event | None = None
        self._events: list[Event] = []
        self._pressed: set[str] = set()
        self._cursor = (0.0, 0.0)
        self._image: np.ndarray | None = None
        self._running = True
        self._frames = 0
        self._last_show = 0.0
        self._max_frames = sinks.max_frames()
        self._scene: SceneV2 | None = None

    @property
    def running(self) -> bool:
        """False once the viewer closed the window, the frame bound was reached, or the
        program set it."""
        return self._running

    @running.setter
    def running(self, value: bool) -> None:
        self._running = bool(value)

    # --- what a frame holds --------------------------------------------------------------

    def get_canvas(self) -> Canvas:
        """The window's canvas."""
        return Canvas(self.frame)

    def get_scene(self) -> SceneV2:
        """The window's 3-D scene (the same one each call)."""
        if self._scene is None:
            self._scene = SceneV2()
        return self._scene

    def get_gui(self) -> Gui:
        """The window's widgets."""
        return Gui(self)

    @property
    def GUI(self) -> Gui:  # noqa: N802 (Taichi's deprecated name)
        """Deprecated alias of `get_gui()`."""
        return self.get_gui()

    def get_window_shape(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return (self.width, self.height)

    # --- showing -------------------------------------------------------------------------

    def _render(self) -> np.ndarray:
        if self._image is None or self.frame.draws:
            frame = self.frame
            self._image = self.renderer.render(frame.draws, frame.lights, frame.background)
        return self._image

    def show(self) -> None:
        """Render the frame, show it, and take the viewer's input; then start a new frame."""
        try:
            self._show()
        except KeyboardInterrupt:
            self._running = False

    def _show(self) -> None:
        image = self._render()
        if self.sink.live and self.fps_limit:
            wait = self._last_show + 1.0 / self.fps_limit - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        self._last_show = time.perf_counter()
        self.sink.present(np.ascontiguousarray(image[:, :, :3]), list(self.controls))
        self.frame.draws, self.controls = [], []
        self.frame.lights = np.zeros((0, 8), dtype=np.float32)
        self._frames += 1
        for raw in self.sink.poll():
            self._take(raw)
        if self.sink.closed or (self._max_frames is not None and self._frames >= self._max_frames):
            self._running = False

    def _take(self, raw: sinks.RawEvent) -> None:
        if raw.kind in ("press", "release", "motion"):
            self._cursor = (float(raw.x), float(raw.y))
        if raw.kind == "press":
            self._pressed.add(raw.key)
            self._events.append(Event(PRESS, raw.key, raw.modifiers))
        elif raw.kind == "release":
            self._pressed.discard(raw.key)
            self._events.append(Event(RELEASE, raw.key, raw.modifiers))
        elif raw.kind == "control":
            self.control_values[raw.key] = raw.value
        elif raw.kind == "close":
            self._running = False

    # --- input ---------------------------------------------------------------------------

    @staticmethod
    def _check(tag: str | None) -> None:
        if tag not in (None, PRESS, RELEASE):
            raise ValueError(f"unrecognized event tag {tag!r}")

    @staticmethod
    def _matches(event: Event, tag: str | None) -> bool:
        return tag is None or event.type == tag

    def get_event(self, tag: str | None = None) -> bool:
        """Take the oldest event of kind `tag` (PRESS, RELEASE or None for any) into
        `window.event`; False when there is none."""
        self._check(tag)
        for i, event in enumerate(self._events):
            if self._matches(event, tag):
                self.event = self._events.pop(i)
                return True
        return False

    def get_events(self, tag: str | None = None) -> list[Event]:
        """Take all waiting events of kind `tag` (None: every kind)."""
        self._check(tag)
        taken = [e for e in self._events if self._matches(e, tag)]
        self._events = [e for e in self._events if not self._matches(e, tag)]
        return taken

    def is_pressed(self, *keys: str) -> bool:
        """Whether any of `keys` is held down."""
        return any(key in self._pressed for key in keys)

    def get_cursor_pos(self) -> tuple[float, float]:
        """The cursor's last position, as fractions of the window with y up."""
        return self._cursor

    # --- pictures ------------------------------------------------------------------------

    def get_image_buffer_as_numpy(self) -> np.ndarray:
        """The window's picture as Taichi gives it: (width, height, 4) float32 in [0, 1],
        indexed [x, y] with y up."""
        image = self._render()
        return np.ascontiguousarray(image[::-1].transpose(1, 0, 2)).astype(np.float32) / 255.0

    def get_depth_buffer_as_numpy(self) -> np.ndarray:
        """The depth of the window's picture as Taichi gives it: (width, height) float32,
        [x, y] with y up, 1 at the near plane and 0 at the far plane or where nothing is."""
        self._render()
        return np.ascontiguousarray(self.renderer.read_depth()[::-1].T)

    def save_image(self, filename: str) -> None:
        """Write the window's picture to `filename` (PNG, BMP or JPEG by its extension), RGBA
        as Taichi writes it."""
        from tistudio.ui import image_io

        image = self._render()
        image_io.imwrite(np.ascontiguousarray(image[::-1].transpose(1, 0, 2)), filename)

    def destroy(self) -> None:
        """Close the window: its sink stops showing and `running` turns False."""
        self.sink.close()
        self._running = False
