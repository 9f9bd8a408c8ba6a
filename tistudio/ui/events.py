"""Input for `ti.GUI`: Taichi's event class, key names and event types, and the held-key state.

The viewer (`sink.FrameSink`) reports input as `RawEvent`s already in Taichi's key names; this
module turns them into the `ti.GUI.Event` objects Taichi programs read (`e.type`, `e.key`,
`e.pos`, `e.modifier`, `e.delta`) and keeps the set of held keys behind `gui.is_pressed`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from tistudio.ui.sink import RawEvent


class EventType(enum.IntEnum):
    """Taichi's `KeyEvent.EType`, with its values (Move 0, Press 1, Release 2)."""

    Move = 0
    Press = 1
    Release = 2


MOTION = EventType.Move
PRESS = EventType.Press
RELEASE = EventType.Release

# Taichi's key names (X11 keysym spellings for the named keys, one character for the others)
SHIFT = "Shift"
ALT = "Alt"
CTRL = "Control"
ESCAPE = "Escape"
RETURN = "Return"
TAB = "Tab"
BACKSPACE = "BackSpace"
SPACE = " "
UP = "Up"
DOWN = "Down"
LEFT = "Left"
RIGHT = "Right"
CAPSLOCK = "Caps_Lock"
LMB = "LMB"
MMB = "MMB"
RMB = "RMB"
EXIT = "WMClose"
WHEEL = "Wheel"
MOVE = "Motion"

MODIFIERS = ("Shift", "Alt", "Control")
WHEEL_STEP = 120  # Taichi reports one wheel notch as a delta of 120


@dataclass
class Event:
    """One GUI event as Taichi programs see it: `type` (PRESS, RELEASE, MOTION), `key`,
    `pos` (cursor as fractions, y up), `modifier` (held modifier keys), `delta` (wheel)."""

    type: Any = None
    key: Any = None
    pos: Any = None
    modifier: Any = None
    delta: Any = None


class EventFilter:
    """What `get_event(*filter)` accepts: event types, keys, or (type, key) pairs."""

    def __init__(self, *entries: Any) -> None:
        self.filter: set[Any] = set()
        for entry in entries:
            if isinstance(entry, (list, tuple)):
                entry = tuple(entry)
            self.filter.add(entry)

    def match(self, event: Event) -> bool:
        return (
            (event.type, event.key) in self.filter
            or event.type in self.filter
            or event.key in self.filter
        )


@dataclass
class KeyState:
    """The keys and mouse buttons held now, and the cursor position (fractions, y up)."""

    pressed: set[str] = field(default_factory=set)
    cursor: tuple[float, float] = (0.0, 0.0)

    def is_pressed(self, *keys: str) -> bool:
        """True if any of `keys` is held; "Shift" also matches "Shift_L"/"Shift_R" and so on."""
        for key in keys:
            if key in MODIFIERS and (key + "_L" in self.pressed or key + "_R" in self.pressed):
                return True
            if key in self.pressed:
                return True
        return False

    def modifiers(self) -> list[str]:
        return [mod for mod in MODIFIERS if self.is_pressed(mod)]

    def record(self, event: Event) -> None:
        """Track held keys the way Taichi does: a press adds the key, anything else drops it."""
        if event.type == PRESS:
            self.pressed.add(event.key)
        else:
            self.pressed.discard(event.key)


def from_raw(raw: RawEvent) -> Event | None:
    """The Taichi event for a viewer's press, release, motion or wheel event; None for others
    (controls and closing are handled by the GUI itself)."""
    pos = (float(raw.x), float(raw.y))
    if raw.kind == "press":
        return Event(type=PRESS, key=raw.key, pos=pos, delta=(0, 0))
    if raw.kind == "release":
        return Event(type=RELEASE, key=raw.key, pos=pos, delta=(0, 0))
    if raw.kind == "motion":
        return Event(type=MOTION, key=MOVE, pos=pos, delta=(0, 0))
    if raw.kind == "wheel":
        dx, dy = raw.delta
        delta = (int(round(dx * WHEEL_STEP)), int(round(dy * WHEEL_STEP)))
        return Event(type=MOTION, key=WHEEL, pos=pos, delta=delta)
    return None


def exit_event(cursor: tuple[float, float]) -> Event:
    """The press of `EXIT` ("WMClose") that Taichi queues when its window is closed."""
    return Event(type=PRESS, key=EXIT, pos=cursor, delta=(0, 0))
