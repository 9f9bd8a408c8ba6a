"""The live GUI widget (`tistudio.studio.gui_view`) at the Python level.

The browser's side is played, where it matters, by a real ipykernel driven over its own ZMQ
channels: frames are read off IOPub as comm messages with binary buffers, and acknowledgements,
key presses and closes are sent on the shell channel as the comm messages JupyterLab sends.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from jupyter_client.manager import start_new_kernel

from tistudio.studio.gui_view import GuiView, _jpeg, png_bytes, raw_event
from tistudio.ui.sink import Control, RawEvent


def test_png_snapshot_decodes_to_the_frame():
    import matplotlib.image

    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    decoded = matplotlib.image.imread(io.BytesIO(png_bytes(frame)), format="png")
    assert decoded.shape == (37, 53, 3)
    assert np.array_equal((decoded * 255).round().astype(np.uint8), frame)


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="resolution"):
        GuiView("t", (0, 10))
    with pytest.raises(ValueError, match="encoding"):
        GuiView("t", (8, 8), encoding="gif")
    view = GuiView("t", (8, 8))
    with pytest.raises(ValueError, match=r"\(h, w, 3\) uint8"):
        view.present(np.zeros((8, 8, 4), np.uint8))
    with pytest.raises(ValueError, match=r"\(h, w, 3\) uint8"):
        view.present(np.zeros((8, 8, 3), np.float32))


def test_browser_messages_become_the_guis_raw_events():
    press = {"kind": "press", "key": "a", "x": 0.25, "y": 0.75, "modifiers": ["Shift"]}
    assert raw_event(press, RawEvent) == RawEvent(
        "press", "a", 0.25, 0.75, (0.0, 0.0), None, ("Shift",)
    )
    wheel = raw_event({"kind": "wheel", "delta": [0, -1.5]}, RawEvent)
    assert wheel.delta == (0.0, -1.5)
    assert raw_event({"kind": "control", "key": "speed", "value": 0.5}, RawEvent).value == 0.5
    assert raw_event({"kind": "explode"}, RawEvent) is None


def test_outside_a_kernel_frames_go_nowhere_but_the_last_one_is_kept():
    view = GuiView("t", (4, 2))
    frame = np.full((2, 4, 3), 7, np.uint8)
    view.present(frame)
    frame[:] = 9  # the GUI draws into its buffer again: the widget kept a copy
    assert view.last_frame()[0, 0, 0] == 7
    view.close()
    assert view.closed
    view.present(np.zeros((2, 4, 3), np.uint8))
    assert view.last_frame()[0, 0, 0] == 7


# --- in a real kernel ------------------------------------------------------------------------

OPEN = """
import numpy as np, time
from tistudio.studio.gui_view import GuiView
from tistudio.ui.sink import Control, RawEvent
view = GuiView.show_new("demo", (64, 48))
view.make_event = RawEvent
view.stale_after = 600  # no view acknowledges in this test unless it says so
frames = [np.full((48, 64, 3), k, np.uint8) for k in range(5)]
for f in frames:
    view.present(f, [Control("slider", "speed", 0.5, 0.0, 1.0)])
    time.sleep(0.05)  # time for the sender thread to take a frame while there is room
print("STATE", view.sent, view.dropped, len(view.controls))
"""


@pytest.fixture
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def execute(client, code: str, timeout: float = 60) -> tuple[str, list[dict]]:
    """Run `code`; return what it printed and every IOPub message of the cell."""
    out: list[str] = []
    messages: list[dict] = []

    def hook(msg):
        messages.append(msg)
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    client.execute_interactive(code, timeout=timeout, output_hook=hook)
    return "".join(out), messages


def drain(client, wait: float = 1.0) -> list[dict]:
    """IOPub messages that arrive within `wait` seconds (replies to messages we sent)."""
    found, deadline = [], time.time() + wait
    while time.time() < deadline:
        try:
            found.append(client.get_iopub_msg(timeout=0.1))
        except Exception:  # noqa: BLE001 - queue.Empty: nothing yet
            continue
    return found


def frames_in(messages: list[dict]) -> list[tuple[dict, bytes]]:
    out = []
    for msg in messages:
        data = msg["content"].get("data", {}) if msg["msg_type"] == "comm_msg" else {}
        content = data.get("content", {}) if data.get("method") == "custom" else {}
        if content.get("type") == "frame":
            out.append((content, bytes(msg["buffers"][0])))
    return out


def comm_id_of(messages: list[dict]) -> str:
    for msg in messages:
        if msg["msg_type"] == "comm_open" and msg["content"]["data"]["state"].get("title"):
            return msg["content"]["comm_id"]
    raise AssertionError("no widget was opened")


def send_custom(client, comm_id: str, content: dict) -> None:
    data = {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
    client.shell_channel.send(client.session.msg("comm_msg", data))


def test_flow_control_sends_two_frames_then_the_latest_on_acknowledgement(kernel):
    text, messages = execute(kernel, OPEN)
    assert "STATE 2 2 1" in text, text  # two in flight; frames 2 and 3 replaced by later ones
    sent = frames_in(messages)
    assert [c["seq"] for c, _ in sent] == [1, 2]
    assert sent[0][0]["encoding"] == "rgb"
    assert [(c["width"], c["height"]) for c, _ in sent] == [(64, 48)] * 2
    assert sent[0][1] == bytes(64 * 48 * 3) and sent[1][1] == bytes([1]) * (64 * 48 * 3)
    send_custom(kernel, comm_id_of(messages), {"type": "ack", "seq": [1]})
    latest = frames_in(drain(kernel))
    assert [c["seq"] for c, _ in latest] == [3]
    assert latest[0][1] == bytes([4]) * (64 * 48 * 3)  # the latest frame won


def test_without_acknowledgements_frames_are_paced_not_queued(kernel):
    code = OPEN + (
        "view.stale_after = 0.05\n"
        "t0, calls, longest, s0, d0 = time.time(), 0, 0.0, view.sent, view.dropped\n"
        "while time.time() - t0 < 1.0:\n"
        "    t = time.time()\n"
        "    view.present(frames[0])\n"
        "    longest, calls = max(longest, time.time() - t), calls + 1\n"
        "print('PACED', view.sent - s0, view.dropped - d0, calls, int(longest * 1000))\n"
    )
    text, _ = execute(kernel, code)
    sent, dropped, calls, longest_ms = (int(v) for v in text.split("PACED")[1].split())
    assert 20 <= sent <= 60, text  # two frames per 50 ms at most, however fast the loop is
    # every frame is sent or replaced (one more: the frame left waiting before the loop)
    assert calls - 1 <= sent + dropped <= calls + 1, text
    assert calls >= 30 and longest_ms < 200, text  # present() waits max_wait (20 ms) at most


def test_keys_clicks_and_close_reach_poll(kernel):
    text, messages = execute(kernel, OPEN)
    comm_id = comm_id_of(messages)
    press = {"type": "event", "kind": "press", "key": "a", "modifiers": []}
    click = {"type": "event", "kind": "press", "key": "LMB", "x": 0.25, "y": 0.5}
    for content in (press, click, {"type": "event", "kind": "close"}):
        send_custom(kernel, comm_id, content)
    text, messages = execute(
        kernel,
        "time.sleep(0.3)\n"
        "print('EVENTS', [(e.kind, e.key, e.x, e.y) for e in view.poll()])\n"
        "print('CLOSED', view.closed, view.is_closed)\n"
        "n = view.sent\nview.present(frames[0])\nprint('AFTER', view.sent - n)",
    )
    assert "EVENTS [('press', 'a', 0.0, 0.0), ('press', 'LMB', 0.25, 0.5), ('close', '', " in text
    assert "CLOSED True True" in text and "AFTER 0" in text, text
    assert execute(kernel, "print('AGAIN', view.poll())")[0].strip() == "AGAIN []"


def test_closing_the_comm_from_the_browser_ends_the_loop(kernel):
    _, messages = execute(kernel, OPEN)
    kernel.shell_channel.send(
        kernel.session.msg("comm_close", {"comm_id": comm_id_of(messages), "data": {}})
    )
    text, _ = execute(kernel, "time.sleep(0.3)\nprint('CLOSED', view.closed)")
    assert "CLOSED True" in text, text


def test_the_cell_end_keeps_the_last_frame_as_a_static_picture(kernel):
    _, messages = execute(kernel, OPEN)
    updates = [m for m in messages if m["msg_type"] == "update_display_data"]
    assert updates, "the display was not updated when the cell ended"
    html = updates[-1]["content"]["data"]["text/html"]
    assert (
        "data:image/png;base64," in html
        and "application/vnd.jupyter.widget-view+json" in (updates[-1]["content"]["data"])
    )
    text, _ = execute(
        kernel,
        "import io, matplotlib.image\n"
        "png = matplotlib.image.imread(io.BytesIO(view.snapshot), format='png')\n"
        "print('SNAP', png.shape, round(float(png[0, 0, 0]) * 255))",
    )
    assert "SNAP (48, 64, 3) 4" in text, text  # the last frame presented, full size


def test_controls_travel_as_plain_json():
    view = GuiView("t", (4, 4))
    controls = [
        Control("slider", "speed", np.float32(0.5), 0.0, 2.0, 0.1),
        Control("color", "tint", (np.float32(1.0), 0.5, 0.0), window="Options"),
    ]
    view.present(np.zeros((4, 4, 3), np.uint8), controls)
    assert view.controls[0]["value"] == 0.5 and type(view.controls[0]["value"]) is float
    assert view.controls[1] == {
        "kind": "color", "label": "tint", "value": [1.0, 0.5, 0.0], "minimum": None,
        "maximum": None, "step": None, "window": "Options", "extra": {},
    }  # fmt: skip


LOOP = """
view.stale_after = 600  # only the browser's acknowledgements free a slot
seen, t0, n0 = [], time.time(), view.sent
while time.time() - t0 < 2.5 and not view.closed:
    view.present(frames[int(time.time() * 50) % 5])
    seen += [(e.kind, e.key) for e in view.poll()]
    time.sleep(0.002)
print("LOOP", view.sent - n0, seen)
"""


def test_acknowledgements_and_keys_arrive_while_the_loop_runs(kernel):
    _, messages = execute(kernel, OPEN)
    comm_id = comm_id_of(messages)
    send_custom(kernel, comm_id, {"type": "ack", "seq": [1, 2, 3]})
    drain(kernel, 0.5)
    msg_id = kernel.execute(LOOP)
    acked, pressed, printed = 0, False, ""
    deadline = time.time() + 30
    while time.time() < deadline and not printed:
        msg = kernel.get_iopub_msg(timeout=30)
        for content, _ in frames_in([msg]):  # draw (nothing) and acknowledge, as a view does
            send_custom(kernel, comm_id, {"type": "ack", "seq": [content["seq"]]})
            acked += 1
            if acked == 10 and not pressed:
                send_custom(kernel, comm_id, {"type": "event", "kind": "press", "key": "Escape"})
                pressed = True
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            printed = msg["content"]["text"]
    assert printed.startswith("LOOP"), printed
    assert int(printed.split()[1]) >= 40, printed  # far more than the two frames in flight
    assert "('press', 'Escape')" in printed, printed


def test_the_window_covers_one_round_trip_within_bounds():
    view = GuiView("t", (4, 4), max_in_flight=2)
    assert view.window() == 2  # nothing measured yet
    view.round_trip = 0.010  # a fast path: two frames in flight are enough
    assert view.window() == 2
    view.round_trip = 0.070  # 70 ms: five frames at 60/s
    assert view.window() == 5
    view.round_trip = 2.0  # however slow, a bounded number
    assert view.window() == 6


GUI_LOOP = """
import tistudio as ti
ti.init(arch=ti.cpu)
gui = ti.GUI("interrupted", res=(64, 48))
print("SINK", type(gui.sink).__name__, flush=True)
k = 0
while gui.running:
    gui.circle((0.5, 0.5), radius=k % 20)
    gui.show()
    k += 1
print("LOOP ENDED", k > 0, gui.sink.closed or not gui.running)
"""


def test_interrupting_the_cell_ends_a_gui_loop_cleanly():
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        msg_id = client.execute(GUI_LOOP)
        printed, errors, interrupted = "", [], False
        deadline = time.time() + 60
        while time.time() < deadline and "LOOP ENDED" not in printed:
            msg = client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                printed += msg["content"]["text"]
            elif msg["msg_type"] == "error":
                errors.append(msg["content"]["ename"])
                break
            frames = frames_in([msg])
            if frames and frames[0][0]["seq"] >= 3 and not interrupted:
                manager.interrupt_kernel()  # what JupyterLab's stop button does
                interrupted = True
        assert "SINK GuiView" in printed, printed
        assert errors == [] and "LOOP ENDED True True" in printed, (printed, errors)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_cumulative_acknowledgement_frees_every_frame_up_to_it():
    view = GuiView("t", (4, 4), max_in_flight=2)
    sent_at = time.monotonic()
    view._in_flight = {1: sent_at, 2: sent_at, 3: sent_at}  # three frames await the browser
    view._on_message(view, {"type": "ack", "upto": 2}, [])
    assert list(view._in_flight) == [3] and view.acked == 2
    view._on_message(view, {"type": "ack", "seq": [3], "upto": 1}, [])  # old and new forms
    assert view._in_flight == {} and view.acked == 3


def test_the_environment_picks_the_default_encoding(monkeypatch):
    monkeypatch.setenv("TISTUDIO_GUI_ENCODING", "png")
    assert GuiView("t", (4, 4)).encoding == "png"
    assert GuiView("t", (4, 4), encoding="rgb").encoding == "rgb"
    monkeypatch.setenv("TISTUDIO_GUI_ENCODING", "bmp")
    with pytest.raises(ValueError, match="unknown frame encoding"):
        GuiView("t", (4, 4))
    monkeypatch.delenv("TISTUDIO_GUI_ENCODING")
    assert GuiView("t", (4, 4)).encoding == "auto"


def test_jpeg_frames_decode_to_the_picture():
    pytest.importorskip("PIL")
    from PIL import Image

    y, x = np.mgrid[0:48, 0:64]
    picture = np.stack([x * 4, y * 5, (x + y) * 2], axis=-1).astype(np.uint8)
    decoded = np.asarray(Image.open(io.BytesIO(_jpeg(picture, 95))))
    assert decoded.shape == (48, 64, 3)
    assert np.abs(decoded.astype(int) - picture).max() <= 8


def test_a_frame_in_taichis_column_layout_is_kept_as_it_lies_and_sent_as_rows():
    from tistudio.studio.gui_view import _rgb, _rows

    columns = np.random.default_rng(3).integers(0, 256, (5, 4, 3), dtype=np.uint8)  # [x, y]
    frame = columns[:, ::-1].transpose(1, 0, 2)  # (h, w, 3) rows from the top, as a view
    expected = np.ascontiguousarray(frame)
    kept = _rgb(frame)
    assert not np.shares_memory(kept, columns)
    assert kept[::-1].transpose(1, 0, 2).flags.c_contiguous  # copied as it lies
    rows = _rows(kept)
    assert rows.flags.c_contiguous and np.array_equal(rows, expected)
    view = GuiView("t", (5, 4))
    view.present(frame)
    columns[...] = 0  # the GUI draws its next frame into the same memory
    assert np.array_equal(view.last_frame(), expected)
    assert png_bytes(frame) == png_bytes(np.ascontiguousarray(frame))  # any layout
