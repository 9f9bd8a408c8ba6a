"""Where a GUI's frames go and where its input comes from: one small protocol, two places.

`ti.GUI` and `ti.ui.Window` draw into a NumPy image and hand each finished frame to a `FrameSink`;
they never know whether a person is watching. In a Jupyter kernel the sink is the studio's live
widget under the cell (`tistudio.studio.gui_view`), which streams the frame to the browser and
sends back keys, mouse and control values; everywhere else (a script, CI, a remote machine) it is
`HeadlessSink`, which keeps nothing and never has input. `open_sink` picks one.

A frame is `(height, width, 3)` uint8 RGB, row 0 at the top (the browser's order); the GUIs turn
Taichi's x-right, y-up images into that. Input arrives as `RawEvent`s in the browser's terms:
positions are fractions of the frame with y pointing up (Taichi's convention), key names are
Taichi's (`"a"`, `"Shift"`, `"Escape"`, `"LMB"`, ...), so a GUI maps them one to one.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class RawEvent:
    """One input event from the viewer.

    kind: "press", "release", "motion", "wheel", "control" (a control panel value changed) or
    "close" (the viewer was closed). key: Taichi's key name for press/release ("LMB", "RMB",
    "MMB" for mouse buttons), the control's label for "control". x, y: cursor position as
    fractions of the frame, y up. delta: wheel steps (x, y). value: the control's new value.
    modifiers: held modifier keys ("Shift", "Control", "Alt", "Super").
    """

    kind: str
    key: str = ""
    x: float = 0.0
    y: float = 0.0
    delta: tuple[float, float] = (0.0, 0.0)
    value: Any = None
    modifiers: tuple[str, ...] = ()


@dataclass
class Control:
    """A control the program declares beside the picture (ti.GUI's slider/label/button, GGUI's
    sub-window widgets). kind: "slider", "slider_int", "label", "button", "checkbox", "color",
    "text"; `window` groups GGUI sub-window controls under their title."""

    kind: str
    label: str
    value: Any = None
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    window: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class FrameSink(Protocol):
    """What a GUI needs from the place it shows frames."""

    live: bool  # True where a person may be watching (a notebook widget), False when headless

    def present(self, frame: np.ndarray, controls: list[Control] | None = None) -> None:
        """Show `frame` ((h, w, 3) uint8, row 0 on top) with the current controls. Never blocks
        for long: a viewer that has not drawn the previous frames yet may drop this one. The
        GUI reuses `frame`'s memory for its next frame: a sink that keeps it must copy it."""

    def poll(self) -> list[RawEvent]:
        """The input events that arrived since the last poll, oldest first."""

    @property
    def closed(self) -> bool:
        """True once the viewer was closed (or the cell interrupted): `running` turns False."""

    def close(self) -> None:
        """Stop showing; later `present` calls are ignored."""


class HeadlessSink:
    """A sink for scripts and CI: frames are dropped (files come from `show(file)` and
    `save_image`), there is never input, and it is never closed by a person."""

    live = False

    def __init__(self, title: str = "") -> None:
        self.title = title
        self.frames = 0
        self._closed = False

    def present(self, frame: np.ndarray, controls: list[Control] | None = None) -> None:
        if not self._closed:
            self.frames += 1

    def poll(self) -> list[RawEvent]:
        return []

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True


def in_notebook_kernel() -> bool:
    """True inside a running Jupyter kernel (ipykernel), where a widget can be displayed."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def open_sink(title: str, res: tuple[int, int], show: bool = True) -> FrameSink:
    """The notebook widget when `show` is true and we run in a Jupyter kernel (and
    TISTUDIO_GUI is not "headless"), otherwise a `HeadlessSink`. `res` is (width, height)."""
    wanted = os.environ.get("TISTUDIO_GUI", "auto")
    if show and wanted != "headless" and in_notebook_kernel():
        from tistudio.studio.gui_view import GuiView

        return GuiView.show_new(title, res, make_event=RawEvent)
    return HeadlessSink(title)


def max_frames() -> int | None:
    """The frame bound of `while gui.running` loops (`TI_GUI_MAX_FRAMES` or
    `TISTUDIO_GUI_MAX_FRAMES`, so that example programs end in tests); None when unbounded."""
    raw = os.environ.get("TISTUDIO_GUI_MAX_FRAMES") or os.environ.get("TI_GUI_MAX_FRAMES")
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"TISTUDIO_GUI_MAX_FRAMES must be a whole number, not {raw!r}") from None
    return max(0, value)
