"""A widget's messages reach a busy cell only when routed to the live subshell: both sides, in a
real ipykernel driven over its own ZMQ channels (the browser's part is played by comm messages
sent on the shell channel, exactly what JupyterLab sends)."""

from __future__ import annotations

import time

import pytest
from jupyter_client.manager import start_new_kernel

SETUP = """
import queue, threading, time
import ipywidgets
from tistudio.studio.live_comm import route_to_subshell
got = queue.SimpleQueue()
widget = ipywidgets.Button()
widget.on_msg(lambda w, content, buffers: got.put((content["i"], threading.current_thread().name)))
print("ROUTED", route_to_subshell(widget) if {route} else False)
print("COMM", widget.comm.comm_id)
"""

LOOP = """
seen = []
t0 = time.time()
while time.time() - t0 < 3 and len(seen) < 3:
    while not got.empty():
        seen.append(got.get())
    time.sleep(0.01)
print("DURING", [i for i, _ in seen], sorted({name.split("-")[0] for _, name in seen}))
"""


@pytest.fixture
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def run(client, code: str, timeout: float = 30) -> str:
    out: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    client.execute_interactive(code, timeout=timeout, output_hook=hook)
    return "".join(out)


def line(text: str, key: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith(key)).removeprefix(key).strip()


def send_while_busy(client, comm_id: str) -> str:
    """Start the loop cell, send three widget messages while it runs, return what it printed."""
    msg_id = client.execute(LOOP)
    time.sleep(0.5)
    for i in range(3):
        content = {"comm_id": comm_id, "data": {"method": "custom", "content": {"i": i}}}
        client.shell_channel.send(client.session.msg("comm_msg", content))
    deadline = time.time() + 20
    while time.time() < deadline:
        msg = client.get_iopub_msg(timeout=20)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream" and "DURING" in msg["content"]["text"]:
            return msg["content"]["text"]
        if msg["msg_type"] == "error":
            raise AssertionError("\n".join(msg["content"]["traceback"]))
    raise AssertionError("the loop cell printed nothing")


def test_routed_messages_arrive_while_the_cell_runs(kernel):
    text = run(kernel, SETUP.format(route=True))
    assert line(text, "ROUTED") == "True", text
    printed = send_while_busy(kernel, line(text, "COMM"))
    assert "DURING [0, 1, 2] ['subshell']" in printed, printed


def test_unrouted_messages_wait_for_the_cell(kernel):
    text = run(kernel, SETUP.format(route=False))
    printed = send_while_busy(kernel, line(text, "COMM"))
    assert "DURING [] []" in printed, printed
    # they were not lost: the main thread handles them once the cell is over
    assert "3" in run(kernel, "time.sleep(0.3)\nprint(got.qsize())")


def test_outside_a_kernel_nothing_is_routed():
    import ipywidgets

    from tistudio.studio.live_comm import route_to_subshell

    assert route_to_subshell(ipywidgets.Button()) is False
