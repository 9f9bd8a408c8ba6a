"""GGUI's window loop through a tiny test `FrameSink` (the sink protocol of tistudio.ui.sink):
events, pressed keys and the cursor; a close, the frame bound and Ctrl-C ending `running`;
the sub-window widgets declared as controls and changed by the viewer; the camera moved by keys."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

import tistudio.ui as ui  # noqa: E402
from tistudio.ui.ggui.window import Window  # noqa: E402
from tistudio.ui.sink import Control, RawEvent  # noqa: E402


class ScriptedSink:
    """A live sink whose viewer plays `script`: one list of RawEvents per frame shown."""

    live = True

    def __init__(self, script: list[list[RawEvent]]) -> None:
        self.script = list(script)
        self.frames: list[np.ndarray] = []
        self.controls: list[list[Control]] = []
        self._closed = False

    def present(self, frame: np.ndarray, controls: list[Control] | None = None) -> None:
        self.frames.append(frame)
        self.controls.append(list(controls or []))

    def poll(self) -> list[RawEvent]:
        return self.script.pop(0) if self.script else []

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True


def _window(script: list[list[RawEvent]]) -> tuple[Window, ScriptedSink]:
    window = Window("events", (16, 16), show_window=False)
    window.sink = ScriptedSink(script)
    return window, window.sink


def test_key_and_mouse_events_reach_get_event_is_pressed_and_the_cursor():
    window, _ = _window(
        [
            [RawEvent("press", "a", 0.25, 0.75), RawEvent("press", ui.LMB, 0.5, 0.5)],
            [RawEvent("release", "a", 0.5, 0.5), RawEvent("motion", x=0.1, y=0.9)],
        ]
    )
    window.show()
    assert window.is_pressed("a") and window.is_pressed("w", ui.LMB) and not window.is_pressed("w")
    assert window.get_cursor_pos() == (0.5, 0.5)
    assert window.get_event(ui.PRESS) and window.event.key == "a"
    assert window.event.type == ui.PRESS
    assert window.get_event(ui.PRESS) and window.event.key == ui.LMB
    assert not window.get_event(ui.PRESS)
    window.show()
    assert not window.is_pressed("a") and window.is_pressed(ui.LMB)
    assert window.get_cursor_pos() == (0.1, 0.9)
    assert not window.get_event(ui.PRESS)
    (release,) = window.get_events(ui.RELEASE)
    assert release.key == "a" and window.get_events() == []
    with pytest.raises(ValueError):
        window.get_event("Wheel")


def test_a_close_from_the_viewer_ends_running():
    window, _ = _window([[], [RawEvent("close")]])
    window.show()
    assert window.running
    window.show()
    assert not window.running


def test_the_frame_bound_ends_the_loop(monkeypatch):
    monkeypatch.setenv("TISTUDIO_GUI_MAX_FRAMES", "3")
    window, sink = _window([])
    shown = 0
    while window.running:
        window.get_canvas().set_background_color((1.0, 0.0, 0.0))
        window.show()
        shown += 1
    assert shown == 3 and len(sink.frames) == 3
    assert (sink.frames[-1] == (255, 0, 0)).all()


def test_ctrl_c_inside_show_ends_running_quietly():
    window, sink = _window([])

    def interrupted(frame, controls=None):
        raise KeyboardInterrupt

    sink.present = interrupted
    window.show()
    assert not window.running


def test_running_can_be_set_and_destroy_closes_the_sink():
    window, sink = _window([])
    window.running = False
    assert not window.running
    window.running = True
    window.destroy()
    assert not window.running and sink.closed


def _panel(gui, state):
    with gui.sub_window("Options", 0.05, 0.1, 0.3, 0.4) as w:
        w.text("hello")
        state["on"] = w.checkbox("on", state["on"])
        state["n"] = w.slider_int("n", state["n"], 0, 10)
        state["x"] = w.slider_float("x", state["x"], 0.0, 1.0)
        state["c"] = w.color_edit_3("c", state["c"])
        state["clicked"] = w.button("go")


def test_widgets_return_what_they_were_given_until_the_viewer_changes_them():
    window, sink = _window(
        [
            [],
            [
                RawEvent("control", "n", value=7),
                RawEvent("control", "go", value=True),
                RawEvent("control", "c", value=(0.0, 1.0, 0.0)),
            ],
        ]
    )
    gui = window.get_gui()
    state = {"on": True, "n": 3, "x": 0.5, "c": (1.0, 0.0, 0.0), "clicked": False}
    history = []
    for _ in range(4):
        _panel(gui, state)
        history.append(dict(state))
        window.show()
    assert history[0] == history[1] == {**state, "n": 3, "c": (1.0, 0.0, 0.0), "clicked": False}
    assert history[2]["n"] == 7 and history[2]["c"] == (0.0, 1.0, 0.0) and history[2]["clicked"]
    assert history[3]["n"] == 7 and not history[3]["clicked"]  # a click counts once
    first = sink.controls[0]
    assert [(c.kind, c.label) for c in first] == [
        ("text", "hello"),
        ("checkbox", "on"),
        ("slider_int", "n"),
        ("slider", "x"),
        ("color", "c"),
        ("button", "go"),
    ]
    assert {c.window for c in first} == {"Options"}
    slider = first[2]
    assert (slider.value, slider.minimum, slider.maximum) == (3, 0, 10)
    assert sink.controls[2][2].value == 7


def test_the_camera_follows_keys_and_the_cursor():
    window, _ = _window([[RawEvent("press", "w", 0.5, 0.5)], [RawEvent("motion", x=0.6, y=0.5)]])
    camera = ui.Camera()
    camera.position(0.0, 0.0, 0.0)
    camera.lookat(0.0, 0.0, -1.0)
    camera.track_user_inputs(window, movement_speed=1.0)  # first call: no time has passed
    window.show()
    camera.last_time -= int(1e9 / 60)  # one frame at 60 fps since the last call
    camera.track_user_inputs(window, movement_speed=1.0, hold_key=ui.RMB)
    # a step of at least one frame's movement (plus the real time show took) forward, along -z
    assert -3.0 < camera.curr_position[2] <= -1.0 + 1e-9
    assert camera.curr_position[:2] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert camera.curr_lookat - camera.curr_position == pytest.approx([0, 0, -1], abs=1e-6)
    window.show()
    camera.last_time -= int(1e9 / 60)
    before = camera.curr_lookat - camera.curr_position
    camera.track_user_inputs(window, movement_speed=0.0)  # no hold key: the cursor turns it
    after = camera.curr_lookat - camera.curr_position
    assert after[0] > before[0] + 0.05  # the cursor moved right: yaw turned the camera right
