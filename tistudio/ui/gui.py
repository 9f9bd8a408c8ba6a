"""`ti.GUI`: Taichi's 2-D drawing window, drawn in NumPy and shown wherever the sink is.

Programs written for Taichi's GUI run unchanged: they draw circles, lines, triangles, text and
images on a canvas (coordinates are fractions of the window, y up), call `gui.show()` once per
frame and read input with `gui.get_event`. Here the canvas is `raster.Canvas`; each `show()`
hands the finished frame to a `sink.FrameSink` (a live widget in a notebook, nothing headless),
reads the viewer's input back, and `show(file)` writes the frame as Taichi's screenshot does.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import numpy as np

from tistudio.lang.colors import hex_to_rgb, rgb_to_hex
from tistudio.ui import events as ev
from tistudio.ui import sink as sink_mod
from tistudio.ui.font import TextRenderer
from tistudio.ui.gui_image import (
    as_numpy,
    cook_image,
    fast_image,
    float_planes,
    host_array,
    interleaved,
    resample,
)
from tistudio.ui.raster import Canvas, hex_to_rgb_array

CLOSE_GRACE_FRAMES = 5  # Taichi raises if a closed window keeps being shown this many frames


def _bool_environ(key: str, default: bool) -> bool:
    """Taichi's `GUI.get_bool_environ`: TI_GUI_SHOW and friends override the arguments."""
    if key not in os.environ:
        return default
    return bool(int(os.environ[key]))


def _colors(color: Any, n: int) -> np.ndarray:
    """Float32 colours: (3,) for one 0xRRGGBB int, (n, 3) for an array of n of them."""
    if isinstance(color, np.ndarray):
        assert color.shape == (n,), "color must be one int or an array with one per primitive"
        return hex_to_rgb_array(color.astype(np.uint32))
    if isinstance(color, numbers.Integral):
        return hex_to_rgb_array(np.array([int(color)]))[0]
    raise ValueError("Color must be an ndarray or int (e.g., 0x956333)")


def _radii(radius: Any, n: int) -> np.ndarray:
    if isinstance(radius, np.ndarray):
        assert radius.shape == (n,), "radius must be one number or an array with one per point"
        return radius.astype(np.float32)
    if isinstance(radius, numbers.Number):
        return np.full(n, radius, np.float32)
    raise ValueError("Radius must be an ndarray or float (e.g., 0.4)")


def _points(pos: Any) -> np.ndarray:
    """(n, 2) float32 positions from (n, 2) or (n, 2, 1) arrays (or fields)."""
    pos = as_numpy(pos)
    if pos.ndim == 3:
        assert pos.shape[2] == 1
        pos = pos[:, :, 0]
    assert pos.ndim == 2 and pos.shape[1] == 2, "positions must have shape (n, 2)"
    return pos.astype(np.float32, copy=False)


class GUI:
    """Taichi's `ti.GUI(name, res, background_color, show_gui, fullscreen, fast_gui)`."""

    Event = ev.Event
    EventFilter = ev.EventFilter

    SHIFT, ALT, CTRL, ESCAPE, RETURN = ev.SHIFT, ev.ALT, ev.CTRL, ev.ESCAPE, ev.RETURN
    TAB, BACKSPACE, SPACE, CAPSLOCK = ev.TAB, ev.BACKSPACE, ev.SPACE, ev.CAPSLOCK
    UP, DOWN, LEFT, RIGHT = ev.UP, ev.DOWN, ev.LEFT, ev.RIGHT
    LMB, MMB, RMB = ev.LMB, ev.MMB, ev.RMB
    EXIT, WHEEL, MOVE = ev.EXIT, ev.WHEEL, ev.MOVE
    MOTION, PRESS, RELEASE = ev.MOTION, ev.PRESS, ev.RELEASE

    class WidgetValue:
        """The value of a slider or label (`gui.slider(...).value`), kept by its control."""

        def __init__(self, gui: GUI, control: sink_mod.Control) -> None:
            self.gui = gui
            self.control = control

        @property
        def value(self) -> Any:
            return self.control.value

        @value.setter
        def value(self, value: Any) -> None:
            self.control.value = value

    def __init__(
        self,
        name: str = "Taichi",
        res: int | tuple[int, int] = 512,
        background_color: int = 0x0,
        show_gui: bool = True,
        fullscreen: bool = False,
        fast_gui: bool = False,
    ) -> None:
        show_gui = _bool_environ("TI_GUI_SHOW", show_gui)
        fullscreen = _bool_environ("TI_GUI_FULLSCREEN", fullscreen)
        fast_gui = _bool_environ("TI_GUI_FAST", fast_gui)
        if isinstance(res, numbers.Number):
            res = (res, res)
        self.name = name
        self.res = (int(res[0]), int(res[1]))
        self.show_gui = show_gui
        self.fullscreen = fullscreen
        self.fast_gui = fast_gui
        self.background_color = background_color
        from tistudio.ui.frame_kernels import rows  # compiles on the first frame that needs it

        self.canvas = Canvas(*self.res, rows_kernel=rows)
        if fast_gui:
            self.img = np.zeros(self.res[0] * self.res[1], np.uint32)
        self.sink: sink_mod.FrameSink | None = sink_mod.open_sink(name, self.res, show_gui)
        self.max_frames = sink_mod.max_frames()
        self.keys = ev.KeyState()
        self.key_pressed = self.keys.pressed
        self.event: ev.Event | None = None
        self.frame = 0
        self.controls: list[sink_mod.Control] = []
        self._button_events: dict[str, str] = {}
        self._queue: deque[ev.Event] = deque()
        self._should_close = 0
        self._bounded = False  # the frame bound (TISTUDIO_GUI_MAX_FRAMES) was reached
        self._frame_delta = 1 / 60
        self._last_show = 0.0
        self._text = TextRenderer()
        self.clear()

    def __enter__(self) -> GUI:
        return self

    def __exit__(self, e_type: Any, val: Any, tb: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the sink's module may be gone
            pass

    def close(self) -> None:
        """Stop showing frames (Taichi destroys the window); `running` becomes False."""
        if getattr(self, "sink", None) is not None:
            self.sink.close()
            self.sink = None
        self._should_close = max(getattr(self, "_should_close", 0), 1)

    get_bool_environ = staticmethod(_bool_environ)

    # --- widgets -----------------------------------------------------------------------------

    def slider(self, text: str, minimum: float, maximum: float, step: float = 1) -> WidgetValue:
        """A slider beside the picture; its `.value` starts at `minimum`."""
        control = sink_mod.Control(
            "slider", text, value=minimum, minimum=minimum, maximum=maximum, step=step
        )
        self.controls.append(control)
        return GUI.WidgetValue(self, control)

    def label(self, text: str) -> WidgetValue:
        """A label beside the picture showing `.value` (0 at first)."""
        control = sink_mod.Control("label", text, value=0)
        self.controls.append(control)
        return GUI.WidgetValue(self, control)

    def button(self, text: str, event_name: str | None = None) -> str:
        """A button; clicking it queues a PRESS event whose key is the returned name."""
        event_name = event_name or f"WidgetButton_{text}"
        self.controls.append(sink_mod.Control("button", text, extra={"event": event_name}))
        self._button_events[text] = event_name
        return event_name

    # --- drawing -----------------------------------------------------------------------------

    def clear(self, color: int | None = None) -> None:
        """Fill the canvas with `color` (the background colour by default)."""
        if color is None:
            color = self.background_color
        self.canvas.clear(hex_to_rgb_array(np.array([color]))[0])

    def set_image(self, img: Any) -> None:
        """Show an image ([x, y] or [x, y, c], y up): a Taichi field (offsets allowed),
        ndarray or NumPy array; integers span their type's range, floats 0..1."""
        if self.fast_gui:
            self._set_fast_image(img)
            return
        planes = float_planes(img)
        if planes is not None:  # a float vector field: read in place, no stacking
            assert tuple(img.shape) == self.res, "Image resolution does not match GUI resolution"
            pixels = interleaved(planes) if len(planes) == 3 else None
            if pixels is not None:
                self.canvas.set_image(pixels)
            else:
                self.canvas.set_planes(planes)
            return
        array = host_array(img)
        if array.dtype == np.uint8 and array.ndim == 3 and array.shape[2] in (3, 4):
            # bytes as they are: the canvas scales them as cook_image would, when needed
            assert array.shape[:2] == self.res, "Image resolution does not match GUI resolution"
            self.canvas.set_image(array)
            return
        self.canvas.set_image(cook_image(as_numpy(array), self.res))

    def _set_fast_image(self, img: Any) -> None:
        n = getattr(img, "n", None)
        assert n is not None and hasattr(img, "to_numpy"), (
            "Only ti.Vector.field is supported in GUI.set_image when fast_gui=True"
        )
        assert tuple(img.shape) == self.res, "Image resolution does not match GUI resolution"
        assert n in (3, 4) and getattr(img, "m", 1) == 1, (
            "Only RGB images are supported in GUI.set_image when fast_gui=True"
        )
        array = img.to_numpy()
        assert array.dtype in (np.float32, np.float64, np.uint8), (
            "Only f32, f64, u8 are supported in GUI.set_image when fast_gui=True"
        )
        self.img = fast_image(array)
        packed = self.img.reshape(self.res[1], self.res[0])
        rows = np.stack([(packed >> s) & 0xFF for s in (16, 8, 0)], axis=-1)
        self.canvas.set_rows(rows.astype(np.float32) * np.float32(1 / 255))

    def get_image(self) -> np.ndarray:
        """The canvas as Taichi's float32 [x, y, 4] image (alpha 1)."""
        image = np.ones(self.res + (4,), np.float32)
        image[..., :3] = self.canvas.rgb[::-1].transpose(1, 0, 2)
        return image

    def contour(self, scalar_field: Any, normalize: bool = False) -> None:
        """Show a scalar field through matplotlib's 'plasma' colour map, resampled
        bilinearly to the window when sizes differ; `normalize` stretches it to 0..1."""
        from matplotlib import colormaps

        values = as_numpy(scalar_field)
        output = values if values.shape == self.res else resample(values, self.res)
        if normalize:
            top, bottom = np.max(output), np.min(output)
            output = (output - bottom) / (top - bottom)
        self.set_image(colormaps["plasma"](output))

    def _scale(self, points: np.ndarray) -> np.ndarray:
        return points * np.asarray(self.res, np.float32)

    def circle(self, pos: Any, color: int = 0xFFFFFF, radius: float = 1) -> None:
        """One disc at `pos` (fractions of the window), `radius` in pixels."""
        self.circles(np.asarray([pos[:2]], np.float32), radius=radius, color=color)

    def circles(
        self,
        pos: Any,
        radius: Any = 1,
        color: Any = 0xFFFFFF,
        palette: Any = None,
        palette_indices: Any = None,
    ) -> None:
        """Discs at `pos` ((n, 2)); radius and colour per disc or for all; or colours picked
        from `palette` by `palette_indices`."""
        points = _points(pos)
        n = points.shape[0]
        rgb = _colors(color, n)
        if palette is not None:
            assert palette_indices is not None, "palette must be used together with palette_indices"
            indices = np.asarray(as_numpy(palette_indices))
            assert issubclass(indices.dtype.type, np.integer), (
                "palette_indices must be an integer array"
            )
            assert indices.shape == (n,), (
                "palette_indices must be in 1-d shape with shape (num_particles, )"
            )
            assert n == 0 or indices.min() >= 0, "the min of palette_indices must not be below 0"
            assert n == 0 or indices.max() < len(palette), (
                "the max of palette_indices must not exceed the length of palette"
            )
            rgb = hex_to_rgb_array(np.asarray(palette, np.uint32))[indices]
        if n:
            pixels = self._scale(points)
            self.canvas.circles(pixels[:, 0], pixels[:, 1], _radii(radius, n), rgb)

    def triangle(self, a: Any, b: Any, c: Any, color: int = 0xFFFFFF) -> None:
        self.triangles(*(np.asarray([p[:2]], np.float32) for p in (a, b, c)), color=color)

    def triangles(self, a: Any, b: Any, c: Any, color: Any = 0xFFFFFF) -> None:
        """Solid triangles with corners a[k], b[k], c[k]."""
        a, b, c = _points(a), _points(b), _points(c)
        assert a.shape == b.shape == c.shape
        if a.shape[0]:
            rgb = _colors(color, a.shape[0])
            self.canvas.triangles(self._scale(a), self._scale(b), self._scale(c), rgb)

    def line(self, begin: Any, end: Any, radius: float = 1, color: int = 0xFFFFFF) -> None:
        """A segment; `radius` is half its width in pixels, as in Taichi."""
        begin = np.asarray([np.asarray(begin, np.float32)[:2]])
        end = np.asarray([np.asarray(end, np.float32)[:2]])
        self.lines(begin, end, radius=radius, color=color)

    def lines(self, begin: Any, end: Any, radius: Any = 1, color: Any = 0xFFFFFF) -> None:
        """Segments from begin[k] to end[k]; radius and colour per segment or for all."""
        begin, end = _points(begin), _points(end)
        assert begin.shape == end.shape
        n = begin.shape[0]
        if n:
            rgb = _colors(color, n)
            self.canvas.segments(self._scale(begin), self._scale(end), _radii(radius, n), rgb)

    @staticmethod
    def _arrow_to_lines(
        orig: np.ndarray, major: np.ndarray, tip_scale: float = 0.2, angle: float = 45
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The shaft and the two barbs of arrows: each barb is the direction turned by
        180 - angle degrees either way, `tip_scale` times as long."""
        turn = math.radians(180 - angle)
        cos, sin = math.cos(turn), math.sin(turn)
        x, y = major[:, 0], major[:, 1]
        barb1 = np.stack([x * cos - y * sin, x * sin + y * cos], axis=1)
        barb2 = np.stack([x * cos + y * sin, -x * sin + y * cos], axis=1)
        tip = orig + major
        return [(orig, tip), (tip, tip + barb1 * tip_scale), (tip, tip + barb2 * tip_scale)]

    def arrows(
        self, orig: Any, direction: Any, radius: Any = 1, color: Any = 0xFFFFFF, **kwargs: Any
    ) -> None:
        orig, direction = _points(orig).astype(np.float64), _points(direction).astype(np.float64)
        for begin, end in self._arrow_to_lines(orig, direction, **kwargs):
            self.lines(begin, end, radius, color)

    def arrow(
        self, orig: Any, direction: Any, radius: float = 1, color: int = 0xFFFFFF, **kwargs: Any
    ) -> None:
        orig = np.asarray([orig], np.float64)
        direction = np.asarray([direction], np.float64)
        self.arrows(orig, direction, radius, color, **kwargs)

    def rect(
        self, topleft: Any, bottomright: Any, radius: float = 1, color: int = 0xFFFFFF
    ) -> None:
        """The outline of the rectangle with corners `topleft` and `bottomright`."""
        (x0, y0), (x1, y1) = topleft[:2], bottomright[:2]
        corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float32)
        for k in range(4):  # one after another, as Taichi strokes them
            self.line(corners[k], corners[(k + 1) % 4], radius, color)

    def text(self, content: str, pos: Any, font_size: float = 15, color: int = 0xFFFFFF) -> None:
        """`content` with its box's top-left corner at `pos`, `font_size` pixels tall."""
        if not content:
            return
        mask, left, down = self._text.render(str(content), float(font_size))
        x = int(float(pos[0]) * self.res[0])
        y = int(float(pos[1]) * self.res[1])
        rgb = hex_to_rgb_array(np.array([color]))[0]
        self.canvas.blend_mask(x + left, y - 1 - down, mask, rgb)

    @staticmethod
    def _make_field_base(w: int, h: int, bound: float) -> np.ndarray:
        """Grid points of a w x h field of marks, `bound` cells in from the window's edges,
        x varying slowest."""
        x = np.linspace(bound / w, 1 - bound / w, w)
        y = np.linspace(bound / h, 1 - bound / h, h)
        grid = np.stack(np.meshgrid(x, y, indexing="ij"), axis=-1)
        return grid.reshape(w * h, 2)

    def point_field(self, radius: np.ndarray, color: Any = 0xFFFFFF, bound: float = 0.5) -> None:
        """A grid of discs, one per element of the 2-D `radius` array."""
        assert len(radius.shape) == 2
        base = self._make_field_base(radius.shape[0], radius.shape[1], bound)
        self.circles(base, radius=radius.reshape(-1), color=color)

    def arrow_field(
        self,
        direction: np.ndarray,
        radius: Any = 1,
        color: Any = 0xFFFFFF,
        bound: float = 0.5,
        **kwargs: Any,
    ) -> None:
        """A grid of arrows, one per [i, j] of the (w, h, 2) `direction` array."""
        assert len(direction.shape) == 3 and direction.shape[2] == 2
        base = self._make_field_base(direction.shape[0], direction.shape[1], bound)
        self.arrows(base, direction.reshape(-1, 2), radius=radius, color=color, **kwargs)

    def vector_field(
        self, vector_field: Any, arrow_spacing: int = 5, color: Any = 0xFFFFFF
    ) -> None:
        """Arrows for every `arrow_spacing`-th vector of a 2-D vector field, the longest
        a tenth of the window long."""
        v = as_numpy(vector_field)
        nx, ny = v.shape[:2]
        scale = 0.1 / (np.max(np.linalg.norm(v, axis=-1)) + 1e-16)
        xs = np.arange(0, 1, arrow_spacing / nx)
        ys = np.arange(0, 1, arrow_spacing / ny)
        begin = np.stack(np.meshgrid(xs, ys, indexing="ij"), axis=-1).reshape(-1, 2)
        step = (v[::arrow_spacing, ::arrow_spacing] * scale).reshape(-1, 2)
        self.arrows(orig=begin, direction=step, radius=1, color=color)

    # --- frames ------------------------------------------------------------------------------

    def show(self, file: str | None = None) -> None:
        """Hand the frame to the viewer (or write it to `file`), take in the viewer's input,
        then clear the canvas for the next frame. An interrupt stops `running` quietly."""
        try:
            self._show(file)
        except KeyboardInterrupt:
            self.running = False

    def _show(self, file: str | None) -> None:
        frame = self.canvas.frame()
        if self.sink is not None:
            self._wait_for_frame_slot()
            self._check_ignored_close()
            self.sink.present(frame, self.controls)
            self._take_input()
        if file:
            from tistudio.ui.image_io import imwrite

            imwrite(frame.transpose(1, 0, 2)[:, ::-1], file)
        self.frame += 1
        if self.max_frames is not None and self.frame >= self.max_frames and not self._bounded:
            self._bounded = True  # the frame bound closes the window, as a person would
            self._window_closed()
        self.clear()

    def _check_ignored_close(self) -> None:
        """A program that keeps showing frames after its window closed (a `for` loop, or
        `while not gui.get_event(ESCAPE)`) is stopped after a few frames: with Taichi's error
        when a viewer was closed, quietly (SystemExit) when the frame bound closed it."""
        if not self._should_close or not (self.sink.live or self._bounded):
            return
        self._should_close += 1
        if self._should_close <= CLOSE_GRACE_FRAMES:
            return
        if self._bounded:
            print(f"ti.GUI: stopped after {self.frame} frames", file=sys.stderr)
            raise SystemExit(0)
        raise RuntimeError(
            "Window close button clicked, exiting... (use `while gui.running` to exit gracefully)"
        )

    def _wait_for_frame_slot(self) -> None:
        """Keep to `fps_limit` where someone watches; headless runs never sleep."""
        now = time.perf_counter()
        if self.sink.live and self._frame_delta > 0:
            wait = self._last_show + self._frame_delta - now
            if wait > 0:
                time.sleep(wait)
                now = time.perf_counter()
        self._last_show = now

    def _take_input(self) -> None:
        for raw in self.sink.poll():
            if raw.kind == "close":
                self._window_closed()
            elif raw.kind == "control":
                self._control_changed(raw)
            else:
                event = ev.from_raw(raw)
                if event is not None:
                    self.keys.cursor = event.pos
                    self._queue.append(event)
        if self.sink.closed and not self._should_close:
            self._window_closed()

    def _window_closed(self) -> None:
        if not self._should_close:
            self._queue.append(ev.exit_event(self.keys.cursor))
            self._should_close = 1

    def _control_changed(self, raw: sink_mod.RawEvent) -> None:
        if raw.key in self._button_events:
            event_name = self._button_events[raw.key]
            self._queue.append(ev.Event(ev.PRESS, event_name, self.keys.cursor, [], (0, 0)))
            return
        for control in self.controls:
            if control.label == raw.key and control.kind != "button":
                control.value = raw.value

    # --- events ------------------------------------------------------------------------------

    def has_key_event(self) -> bool:
        return bool(self._queue)

    def get_key_event(self) -> ev.Event:
        """The oldest queued event (modifiers as held before it; held keys updated)."""
        event = self._queue.popleft()
        event.modifier = self.keys.modifiers()
        self.keys.record(event)
        return event

    def get_event(self, *e_filter: Any) -> bool:
        """Take queued events until one matches `e_filter` (any event without a filter);
        it becomes `gui.event`. False when none matched."""
        for event in self.get_events(*e_filter):
            self.event = event
            return True
        return False

    def get_events(self, *e_filter: Any) -> Iterator[ev.Event]:
        """The queued events that match `e_filter`, taken off the queue as they are read."""
        matcher = ev.EventFilter(*e_filter) if e_filter else None
        while self.has_key_event():
            event = self.get_key_event()
            if matcher is None or matcher.match(event):
                yield event

    def is_pressed(self, *keys: str) -> bool:
        return self.keys.is_pressed(*keys)

    def get_cursor_pos(self) -> tuple[float, float]:
        """The cursor as fractions of the window, origin at the bottom left."""
        return self.keys.cursor

    @property
    def running(self) -> bool:
        return not self._should_close

    @running.setter
    def running(self, value: bool) -> None:
        if value:
            self._should_close = 0
        elif not self._should_close:
            self._should_close = 1

    @property
    def fps_limit(self) -> float | None:
        return None if self._frame_delta == 0 else 1 / self._frame_delta

    @fps_limit.setter
    def fps_limit(self, value: float | None) -> None:
        self._frame_delta = 0 if value is None else 1 / value


__all__ = ["GUI", "hex_to_rgb", "rgb_to_hex"]  # the names of Taichi's ui/gui.py
