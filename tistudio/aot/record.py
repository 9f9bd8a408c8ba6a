"""`ti.aot.start_recording(filename)` / `stop_recording()`: a YAML log of what kernels do.

Taichi 1.6 had this for its C back end (removed in 1.7); the log is a flat YAML list, one
mapping per action, written as it happens (flushed per action, so a crash leaves a valid
prefix). Actions: `start_recording`, `compile_kernel`, `set_kernel_arg_integer`,
`set_kernel_arg_float64`, `set_kernel_arg_ndarray`, `launch_kernel`, `stop_recording`; the
keys of each are listed in docs/aot-format.md. The YAML is written by hand (strings as JSON
strings, which are valid YAML), so recording needs no YAML library. The recorder listens to
the compiler's events; the one active recording is kept here because Taichi's API for it is
global (a start/stop pair with no handle), like `ti.init`.
"""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

from tistudio.events import Event, bus


class Recorder:
    """Appends actions to one YAML file while subscribed to the event bus."""

    def __init__(self, filename: str) -> None:
        self._file = open(filename, "w", encoding="utf-8")  # noqa: SIM115 - closed by stop()
        self._lock = threading.Lock()
        self._stops = [bus.subscribe("compiled", self._compiled)]
        self._stops.append(bus.subscribe("launched", self._launched))
        self.write("start_recording", time=round(time.time(), 3))

    def write(self, action: str, **items: Any) -> None:
        lines = [f"- action: {yaml_scalar(action)}"]
        lines += [f"  {key}: {yaml_scalar(value)}" for key, value in items.items()]
        with self._lock:
            if not self._file.closed:
                self._file.write("\n".join(lines) + "\n")
                self._file.flush()

    def stop(self) -> None:
        for stop in self._stops:
            stop()
        self.write("stop_recording")
        with self._lock:
            self._file.close()

    def _compiled(self, event: Event) -> None:
        entry = event.data["entry"]
        self.write(
            "compile_kernel",
            kernel_name=entry.name,
            python_name=getattr(event.data["kernel"], "__name__", ""),
            signature=entry.signature_text,
            arch=entry.arch,
            compile_ms=round(entry.compile_ms, 3),
        )

    def _launched(self, event: Event) -> None:
        name = event.data["entry"].name
        for arg_id, value in enumerate(event.data.get("args", ())):
            self._argument(name, arg_id, value)
        self.write("launch_kernel", kernel_name=name)

    def _argument(self, name: str, arg_id: int, value: Any) -> None:
        if hasattr(value, "shape") and hasattr(value, "dtype") and getattr(value, "ndim", 0):
            shape = list(value.shape)
            self.write(
                "set_kernel_arg_ndarray",
                kernel_name=name,
                arg_id=arg_id,
                dtype=str(value.dtype),
                shape=shape,
            )
        elif isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
            self.write("set_kernel_arg_float64", kernel_name=name, arg_id=arg_id, val=float(value))
        else:
            self.write("set_kernel_arg_integer", kernel_name=name, arg_id=arg_id, val=int(value))


def yaml_scalar(value: Any) -> str:
    """`value` as a YAML flow scalar: strings double-quoted, numbers plain, lists in [ ]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_scalar(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


class _Active:
    """The one active recording (see the module docstring)."""

    recorder: Recorder | None = None


_ACTIVE = _Active()


def start_recording(filename: str) -> None:
    """Start writing the YAML action log to `filename` (a running recording is stopped)."""
    stop_recording()
    _ACTIVE.recorder = Recorder(str(filename))


def stop_recording() -> None:
    """Stop the recording started by `start_recording` (nothing happens if there is none)."""
    recorder, _ACTIVE.recorder = _ACTIVE.recorder, None
    if recorder is not None:
        recorder.stop()
