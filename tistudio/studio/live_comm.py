"""Messages from a widget that arrive while its cell is still running.

A Jupyter kernel runs one cell at a time on its main thread, and it reads the browser's widget
messages on that same thread, so a `while gui.running:` cell never hears a key press until it
ends. ipykernel 7 has *subshells* (JEP 91): extra threads with their own message loop, which the
shell channel routes messages to. `route_to_subshell` asks the kernel for one subshell per
process over the ordinary control channel (`create_subshell_request`, as a frontend would), and
tells ipykernel to deliver this widget's comm messages there: its message callbacks then run on
that thread while the main thread is busy, so they must only touch thread-safe state (a queue).

The routing uses ipykernel's per-comm hook `_reply_subshell_for` (ipykernel >= 7.2; it exists so
that a widget used from a subshell hears its replies there). Where the kernel has no subshells or
no such hook, nothing changes and the widget's messages arrive after the cell, as they always did;
`tests/studio/test_live_comm.py` proves both sides in a real kernel.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_subshell_id: str | None = None
_failed = False


def _kernel() -> Any | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "kernel", None) if shell is not None else None


def _create_subshell(timeout: float) -> str | None:
    """A new subshell of this kernel, asked for on its control channel."""
    from ipykernel.connect import get_connection_info
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient()
    client.load_connection_info(get_connection_info(unpack=True))
    client.start_channels(shell=False, iopub=False, stdin=False, hb=False, control=True)
    try:
        request = client.session.msg("create_subshell_request", {})
        client.control_channel.send(request)
        while True:
            reply = client.control_channel.get_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                break
        content = reply["content"]
        return content.get("subshell_id") if content.get("status") == "ok" else None
    finally:
        client.stop_channels()


def live_subshell(timeout: float = 5.0) -> str | None:
    """This kernel's subshell for live widget messages (created once), or None where the kernel
    has no subshells."""
    global _subshell_id, _failed
    with _lock:
        if _subshell_id is not None or _failed:
            return _subshell_id
        kernel = _kernel()
        if kernel is None or not getattr(kernel, "_supports_kernel_subshells", False):
            _failed = True
            return None
        try:
            _subshell_id = _create_subshell(timeout)
        except Exception:  # an old kernel, no connection file, a timeout: messages come late
            _subshell_id = None
        _failed = _subshell_id is None
        return _subshell_id


def route_to_subshell(widget: Any) -> bool:
    """Deliver `widget`'s messages from the browser on the live subshell, so its callbacks run
    while a cell is busy. True when routed; False where the kernel cannot (then they arrive
    after the cell)."""
    comm = getattr(widget, "comm", None)
    if comm is None or not hasattr(comm, "_reply_subshell_for"):
        return False
    subshell = live_subshell()
    if subshell is None:
        return False
    comm._reply_subshell_for = lambda data, default: subshell
    return True
