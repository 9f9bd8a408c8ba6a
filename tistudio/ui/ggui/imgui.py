"""`window.get_gui()`: Taichi's immediate-mode widgets as controls beside the picture.

Each widget call declares a `sink.Control` for this frame (grouped under its sub-window's
title) and returns the widget's value: the one the program passed in, unless the viewer changed
it since the last frame (a "control" event carrying the label and the new value). A button
returns True on the frame after the viewer's click. Headless, nobody changes anything, so every
widget returns what it was given.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from tistudio.ui.sink import Control

if TYPE_CHECKING:
    from tistudio.ui.ggui.window import Window


class Gui:
    """The widgets of a window (`window.get_gui()`)."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.title = ""
        self.box: dict[str, float] = {}

    @contextmanager
    def sub_window(self, name: str, x: float, y: float, width: float, height: float) -> Iterator:
        """A titled group of widgets (`with gui.sub_window("Options", 0.05, 0.1, 0.2, 0.3):`);
        position and size are fractions of the window."""
        self.begin(name, x, y, width, height)
        try:
            yield self
        finally:
            self.end()

    def begin(self, name: str, x: float, y: float, width: float, height: float) -> None:
        """Start the sub-window `name` (prefer `sub_window`)."""
        self.title = name
        self.box = {"x": x, "y": y, "width": width, "height": height}

    def end(self) -> None:
        """End the current sub-window."""
        self.title = ""
        self.box = {}

    def _declare(self, control: Control) -> None:
        control.window = self.title
        if self.box:
            control.extra["box"] = dict(self.box)  # where Taichi would place the sub-window
        self.window.controls.append(control)

    def _changed(self, label: str, value: Any) -> Any:
        return self.window.control_values.pop(label, value)

    def text(self, text: str, color: Any = None) -> None:
        """A line of text."""
        extra = {} if color is None else {"color": tuple(color)}
        self._declare(Control("text", text, extra=extra))

    def checkbox(self, text: str, old_value: bool) -> bool:
        """A checkbox; returns whether it is checked."""
        value = bool(self._changed(text, old_value))
        self._declare(Control("checkbox", text, value))
        return value

    def slider_int(self, text: str, old_value: int, minimum: int, maximum: int) -> int:
        """An integer slider; returns its value."""
        value = int(self._changed(text, old_value))
        self._declare(Control("slider_int", text, value, minimum, maximum, 1))
        return value

    def slider_float(self, text: str, old_value: float, minimum: float, maximum: float) -> float:
        """A float slider; returns its value."""
        value = float(self._changed(text, old_value))
        self._declare(Control("slider", text, value, minimum, maximum))
        return value

    def color_edit_3(self, text: str, old_value: Any) -> tuple[float, float, float]:
        """A colour picker; returns (r, g, b) in [0, 1]."""
        r, g, b = (float(c) for c in self._changed(text, old_value))
        self._declare(Control("color", text, (r, g, b)))
        return (r, g, b)

    def button(self, text: str) -> bool:
        """A button; True on the frame after the viewer clicked it."""
        clicked = bool(self._changed(text, False))
        self._declare(Control("button", text))
        return clicked
