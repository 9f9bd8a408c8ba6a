"""Running a GPU module: WGSL into compute pipelines, fields in device buffers.

Each task's WGSL is compiled by the device into a pipeline with the bind group layout its
bindings describe; launches reuse `GpuExecutable.launch` (upload ndarrays, pack immediates,
record dispatches, read back returns and written ndarrays), fed from the metadata instead of
from IR. Field memory is the same `GpuMemory` JIT programs use: host copies of the trees
that are brought up to date only when Python reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.aot.format import AotModuleError
from tistudio.backends.random_keys import LaunchKeys
from tistudio.backends.webgpu.device import default_device
from tistudio.backends.webgpu.executable import GpuExecutable
from tistudio.backends.webgpu.printing import GpuPrintBuffer
from tistudio.backends.webgpu.resources import ArgsLayout, Binding
from tistudio.backends.webgpu.shader import TaskShader
from tistudio.ir.printing import PrintFormat
from tistudio.ir.stmt import Param
from tistudio.ir.types import TYPES_BY_NAME
from tistudio.runtime.gpu_memory import GpuMemory


@dataclass
class _Tree:
    """What `GpuMemory` needs of an SNode tree: its id and its host buffer."""

    id: int
    buffer: np.ndarray


@dataclass
class _Signature:
    """What `ArgsLayout.of` reads of a kernel: its parameters."""

    params: list[Param]


@dataclass
class _NoChecks:
    """What `GpuExecutable.launch` asks of a kernel's debug checks: here, there are none."""

    checks: tuple = ()


class GpuModuleRuntime:
    """The device, the pipelines and the field memory of one loaded GPU module."""

    def __init__(self, meta: dict, files: dict[str, bytes]) -> None:
        self.files = files
        self.device = default_device()
        missing = sorted(set(meta["required_caps"]) - self.device.caps.features)
        if missing:
            raise AotModuleError(
                f"the module needs {', '.join(missing)}, which this adapter "
                f"({self.device.caps.description}) does not offer"
            )
        self.trees: list[_Tree] = []
        self.memory: GpuMemory  # made by `allocate`
        self.roots: list[int] = []
        self.prints: GpuPrintBuffer | None = None  # made for the first kernel that prints

    def allocate(self, trees: list[dict]) -> None:
        """Host copies and device buffers of the trees (ids 0, 1, 2 ..., checked)."""
        try:
            self.trees = [_Tree(t["id"], np.zeros(max(t["size"], 4), np.uint8)) for t in trees]
        except MemoryError:
            raise AotModuleError("the module's trees do not fit in memory") from None
        self.memory = GpuMemory(self.device, self.trees)

    def executable(self, entry: dict, verify: Callable[[], None]) -> GpuExecutable:
        """The kernel of `entry`, once `verify` (its binding to its WGSL) passes."""
        verify()
        return LoadedGpuExecutable(entry, self)

    def print_buffer(self) -> GpuPrintBuffer:
        if self.prints is None:
            self.prints = GpuPrintBuffer(self.device)
        return self.prints

    def tree_buffer(self, tree: int) -> np.ndarray:
        return self.trees[tree].buffer

    def before_host_read(self, tree: int) -> None:
        self.memory.before_host_access(tree)

    def after_host_write(self, tree: int) -> None:
        self.memory.after_host_write(tree)

    def sync(self) -> None:
        self.memory.sync()


class LoadedGpuExecutable(GpuExecutable):
    """A `GpuExecutable` whose shaders come from a module's WGSL rather than from IR."""

    def __init__(self, entry: dict, runtime: GpuModuleRuntime) -> None:  # noqa: D107
        self.name = entry["name"]
        self.device, self.memory = runtime.device, runtime.memory
        params = [
            Param(
                a["name"],
                "ndarray" if a["ptype"] == 1 else "scalar",
                TYPES_BY_NAME[a["dtype"]],
                a["ndim"],
            )
            for a in entry["args"]
        ]
        self.args = ArgsLayout.of(_Signature(params), draws="random_seed" in entry)
        self._keys = LaunchKeys(entry["random_seed"], self.name) if self.args.random else None
        if [list(m) for m in self.args.members] != entry["gpu"].get("immediates"):
            raise AotModuleError(f"kernel {self.name!r}: its immediates disagree with its args")
        self.ret_types = [TYPES_BY_NAME[r["dtype"]] for r in entry["rets"]]
        self.print_formats = tuple(
            PrintFormat(template, tuple(TYPES_BY_NAME[t] for t in dtypes))
            for template, dtypes in entry["gpu"].get("print_formats", [])
        )
        self.prints = runtime.print_buffer() if self.print_formats else None
        self._num_params = len(params)
        self._arrays = [k for k, p in enumerate(params) if p.kind == "ndarray"]
        self._arg_buffers: dict[int, Any] = {}
        self._bind_groups: dict[tuple, Any] = {}
        self._lock = threading.Lock()
        self.failure = _NoChecks()  # modules are built without debug checks (compile.py)
        self.gtmp = self.device.create_buffer(entry["gtmp_size"])
        self.ret = self.device.create_buffer(8 * len(self.ret_types))
        self.tasks = [self._task(task, runtime.files) for task in entry["tasks"]]
        self.wgsl = "\n".join(shader.wgsl for shader, _, _ in self.tasks)
        self.trees_used = list(entry["trees"])
        self.trees_written = list(entry["gpu"].get("trees_written", []))
        self.arrays_written = list(entry["gpu"].get("arrays_written", []))

    def _task(self, task: dict, files: dict[str, bytes]) -> tuple[TaskShader, Any, Any]:
        name = task["wgsl"]
        if name not in files:
            raise AotModuleError(f"kernel {self.name!r}: the module lacks {name!r}")
        bindings = [_binding(b) for b in task["buffer_binds"]]
        writes = {b.resource for b in bindings if b.writable}
        serial = task.get("task_type") == "serial"
        shader = TaskShader(
            files[name].decode("utf-8"), bindings, serial, task["dispatch_groups"], writes
        )
        try:
            pipeline, layout = self.device.pipeline(shader.wgsl, bindings, self.args.size)
        except Exception as e:  # noqa: BLE001 - wgpu reports shader errors as several types
            raise AotModuleError(f"kernel {self.name!r}: {name} does not compile ({e})") from None
        return shader, pipeline, layout

    def _variant(self, array_windows: tuple[int, ...]) -> list[tuple[TaskShader, Any, Any]]:
        if any(n > 1 for n in array_windows):
            raise ValueError(
                f"kernel {self.name!r}: an ndarray argument is larger than one binding window "
                f"({self.device.caps.window_bytes} bytes); AOT modules bind each as one window"
            )
        return self.tasks


def _binding(bind: dict) -> Binding:
    buffer = bind["buffer"]
    kind = buffer["type"]
    if kind == "root":
        resource = f"tree{buffer['root_id']}"
    elif kind == "ndarray":
        resource = f"arg{buffer['arg_id']}"
    else:
        resource = {"gtmp": "gtmp", "rets": "ret", "print": "print"}[kind]
    return Binding(bind["binding"], resource, bind["view"], 0, bind["writable"])
