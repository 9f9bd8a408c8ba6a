"""`ti.GUI`'s input, widgets and frame loop through a `FrameSink`: a small in-memory sink
(our own protocol, `tistudio.ui.sink`) queues the viewer's `RawEvent`s and keeps the frames."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tistudio.ui.gui import GUI
from tistudio.ui.sink import Control, HeadlessSink, RawEvent


class QueueSink:
    """A viewer in memory: `send` queues input for the next poll; frames and controls are kept."""

    def __init__(self, live: bool = True) -> None:
        self.live = live
        self.frames: list[np.ndarray] = []
        self.controls: list[list[Control]] = []
        self.pending: list[RawEvent] = []
        self._closed = False
        self.interrupt_next = False

    def send(self, *events: RawEvent) -> None:
        self.pending.extend(events)

    def present(self, frame: np.ndarray, controls: list[Control] | None = None) -> None:
        if self.interrupt_next:
            self.interrupt_next = False
            raise KeyboardInterrupt
        self.frames.append(frame.copy())
        self.controls.append([Control(c.kind, c.label, c.value) for c in controls or []])

    def poll(self) -> list[RawEvent]:
        events, self.pending = self.pending, []
        return events

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True


def _gui(live: bool = True, **kwargs: object) -> tuple[GUI, QueueSink]:
    gui = GUI("events", res=(40, 20), show_gui=False, **kwargs)
    sink = QueueSink(live)
    gui.sink = sink
    return gui, sink


def test_constants_are_taichis() -> None:
    assert (GUI.ESCAPE, GUI.SHIFT, GUI.LMB, GUI.EXIT, GUI.WHEEL) == (
        "Escape",
        "Shift",
        "LMB",
        "WMClose",
        "Wheel",
    )
    assert (GUI.SPACE, GUI.UP, GUI.LEFT, GUI.BACKSPACE) == (" ", "Up", "Left", "BackSpace")
    assert (int(GUI.MOTION), int(GUI.PRESS), int(GUI.RELEASE)) == (0, 1, 2)


def test_frames_reach_the_sink_row_zero_on_top() -> None:
    gui, sink = _gui()
    gui.circle((0.5, 0.95), color=0xFF0000, radius=2)  # near the top
    gui.show()
    frame = sink.frames[0]
    assert frame.shape == (20, 40, 3) and frame.dtype == np.uint8
    assert tuple(frame[1, 20]) == (255, 0, 0) and tuple(frame[18, 20]) == (0, 0, 0)


def test_key_press_release_and_held_keys() -> None:
    gui, sink = _gui()
    sink.send(RawEvent("press", "a", 0.25, 0.5), RawEvent("press", "Shift_L", 0.25, 0.5))
    assert not gui.get_event()  # input arrives with show()
    gui.show()
    assert gui.get_event(GUI.PRESS)
    assert (gui.event.type, gui.event.key, gui.event.pos) == (GUI.PRESS, "a", (0.25, 0.5))
    assert gui.is_pressed("a")
    assert gui.get_event((GUI.PRESS, "Shift_L"))
    assert gui.is_pressed(GUI.SHIFT) and not gui.is_pressed("b")
    sink.send(RawEvent("release", "a", 0.3, 0.5))
    gui.show()
    (event,) = list(gui.get_events())
    assert event.type == GUI.RELEASE and event.modifier == ["Shift"]
    assert not gui.is_pressed("a")


def test_filters_skip_other_events() -> None:
    gui, sink = _gui()
    sink.send(
        RawEvent("motion", "", 0.1, 0.2),
        RawEvent("press", "LMB", 0.1, 0.2),
        RawEvent("press", "Escape"),
    )
    gui.show()
    assert gui.get_event((GUI.PRESS, GUI.ESCAPE))
    assert not gui.get_event()  # the others were taken off the queue on the way


def test_motion_wheel_and_cursor() -> None:
    gui, sink = _gui()
    sink.send(RawEvent("motion", "", 0.75, 0.25), RawEvent("wheel", "", 0.75, 0.25, (0, -1)))
    gui.show()
    assert gui.get_cursor_pos() == (0.75, 0.25)
    motion, wheel = gui.get_events()
    assert (motion.type, motion.key) == (GUI.MOTION, GUI.MOVE)
    assert (wheel.type, wheel.key, wheel.delta) == (GUI.MOTION, GUI.WHEEL, (0, -120))


def test_close_ends_running_with_an_exit_press() -> None:
    gui, sink = _gui()
    assert gui.running
    sink.send(RawEvent("close"))
    gui.show()
    assert not gui.running
    assert gui.get_event(GUI.PRESS)
    assert gui.event.key == GUI.EXIT


def test_closed_sink_ends_running() -> None:
    gui, sink = _gui()
    sink.close()
    gui.show()
    assert not gui.running
    assert gui.get_event((GUI.PRESS, GUI.EXIT))


def test_showing_a_closed_window_on_and_on_raises_like_taichi() -> None:
    gui, sink = _gui()
    sink.send(RawEvent("close"))
    for _ in range(5):  # the frame that saw the close, then four more
        gui.show()
    with pytest.raises(RuntimeError, match="while gui.running"):
        gui.show()


def test_running_setter() -> None:
    gui, _ = _gui()
    gui.running = False
    assert not gui.running
    gui.running = True
    assert gui.running


def test_interrupt_during_show_stops_the_loop_quietly() -> None:
    gui, sink = _gui()
    frames = 0
    while gui.running:
        frames += 1
        if frames == 3:
            sink.interrupt_next = True
        gui.show()
    assert frames == 3


def test_widgets_travel_as_controls_and_come_back() -> None:
    gui, sink = _gui()
    speed = gui.slider("speed", 0.5, 4.0, step=0.5)
    info = gui.label("particles")
    reset = gui.button("Reset")
    named = gui.button("Go", "go!")
    assert (speed.value, info.value, reset, named) == (0.5, 0, "WidgetButton_Reset", "go!")
    info.value = 42
    gui.show()
    sent = {c.label: (c.kind, c.value) for c in sink.controls[-1]}
    assert sent == {
        "speed": ("slider", 0.5),
        "particles": ("label", 42),
        "Reset": ("button", None),
        "Go": ("button", None),
    }
    sink.send(RawEvent("control", "speed", value=2.5), RawEvent("control", "Go"))
    gui.show()
    assert speed.value == 2.5
    assert gui.get_event(GUI.PRESS) and gui.event.key == "go!"


def test_max_frames_ends_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TISTUDIO_GUI_MAX_FRAMES", "4")
    gui = GUI("bounded", res=16, show_gui=False)
    assert isinstance(gui.sink, HeadlessSink)
    shown = 0
    while gui.running:
        gui.show()
        shown += 1
    assert shown == 4 and gui.frame == 4
    assert gui.get_event((GUI.PRESS, GUI.EXIT))  # the bound closes the window


def test_max_frames_stops_loops_that_ignore_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TISTUDIO_GUI_MAX_FRAMES", "3")
    gui = GUI("bounded", res=16, show_gui=False)
    shown = 0
    with pytest.raises(SystemExit) as stop:
        while not gui.get_event(GUI.ESCAPE):  # as Taichi's fullscreen.py loops
            gui.show()
            shown += 1
    assert stop.value.code == 0
    assert shown == 3 + 4  # the bound, then four frames of grace as for a closed window


def test_fps_limit_sleeps_only_when_live() -> None:
    gui, _ = _gui(live=True)
    gui.fps_limit = 20
    assert gui.fps_limit == pytest.approx(20)
    start = time.perf_counter()
    for _ in range(4):
        gui.show()
    assert time.perf_counter() - start >= 0.14  # three waits of 1/20 s
    headless, _ = _gui(live=False)
    headless.fps_limit = 1
    start = time.perf_counter()
    for _ in range(3):
        headless.show()
    assert time.perf_counter() - start < 0.5
    headless.fps_limit = None
    assert headless.fps_limit is None


def test_close_and_context_manager() -> None:
    with GUI("ctx", res=8, show_gui=False) as gui:
        sink = gui.sink
        assert gui.running
    assert sink.closed and not gui.running
