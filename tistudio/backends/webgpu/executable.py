"""A compiled GPU kernel and its launcher.

`launch` uploads the SNode trees the host changed since the device last saw them, uploads the
ndarray arguments into buffers kept per parameter, packs scalar arguments and ndarray extents
into immediates (or, where they do not fit, writes them into a uniform buffer when they changed
since the last launch), and records one dispatch per task into the device's open batch. It
returns at once unless the kernel returns values or writes an ndarray argument, which the host
then needs: those launches wait, read the values back, and copy the written ndarrays into the
caller's NumPy arrays (as Taichi does for NumPy arguments on the GPU).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.backends.random_keys import LaunchKeys
from tistudio.backends.webgpu.debug_checks import FailureRecord
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.printing import RESOURCE, GpuPrintBuffer
from tistudio.backends.webgpu.resources import ArgsLayout
from tistudio.backends.webgpu.shader import TaskShader, build_shaders
from tistudio.ir.printing import PrintFormat, print_formats
from tistudio.ir.stmt import Kernel
from tistudio.ir.types import PrimitiveType
from tistudio.ir.writes import read_only_message, written_ndarrays


@dataclass
class CachedShaders:
    """A kernel's shaders from the offline cache (for ndarrays bound as one window each), its
    global temporaries' size, and how to get its final IR should other ndarrays need other
    shaders (running the passes then, once)."""

    shaders: list[TaskShader]
    gtmp_size: int
    final_ir: Callable[[], Kernel]


class GpuExecutable:
    """One compiled kernel on one device; `wgsl` is the text of every task's shader."""

    uniform: Any = None  # the arguments' uniform buffer, when they are not immediates
    _cached: CachedShaders | None = None
    _uniform_bytes: bytes | None = None  # what `uniform` holds

    # what the kernel prints, by format id, and the back end's print buffer (kernels that print)
    print_formats: tuple[PrintFormat, ...] = ()
    prints: GpuPrintBuffer | None = None
    fast_math = True  # False: shaders keep IEEE float semantics (see ieee.py)

    def __init__(
        self,
        kernel: Kernel,
        device: GpuDevice,
        memory: Any,
        args: ArgsLayout,
        prints: GpuPrintBuffer | None = None,
        cached: CachedShaders | None = None,
        fast_math: bool = True,
        random_seed: int = 0,
    ) -> None:
        self.name, self.fast_math = kernel.name, fast_math
        # `ti.random`'s launch keys (random_keys.py), the CPU's for the same launch
        self._keys = LaunchKeys(random_seed, kernel.name) if args.random is not None else None
        self._cached = cached  # then `kernel` is the frontend IR (offline cache hit)
        self.prints, self.print_formats = prints, tuple(print_formats(kernel)[0])
        self.kernel, self.device, self.memory, self.args = kernel, device, memory, args
        self.ret_types = list(kernel.ret_types)
        self._num_params = len(kernel.params)
        self._arrays = [k for k, p in enumerate(kernel.params) if p.kind == "ndarray"]
        self._param_names = [p.name for p in kernel.params]
        self._variants: dict[tuple[int, ...], list[tuple[TaskShader, Any, Any]]] = {}
        self._arg_buffers: dict[int, Any] = {}
        self._bind_groups: dict[tuple, Any] = {}
        self._lock = threading.Lock()
        self.failure = FailureRecord(kernel)  # debug checks: see debug_checks.py
        gtmp_size = kernel.gtmp_size if cached is None else cached.gtmp_size
        self.gtmp = device.create_buffer(self.failure.gtmp_bytes(gtmp_size))
        self.ret = device.create_buffer(8 * len(kernel.ret_types))
        if args.uniform:
            self.uniform = device.create_buffer(args.size, uniform=True)
        self.tasks = self._variant(tuple(1 for _ in self._arrays))
        self.wgsl = "\n".join(shader.wgsl for shader, _, _ in self.tasks)
        resources = {b.resource for shader, _, _ in self.tasks for b in shader.bindings}
        writes = set().union(*(shader.writes for shader, _, _ in self.tasks))
        self.trees_used = sorted(int(r[4:]) for r in resources if r.startswith("tree"))
        self.trees_written = sorted(int(r[4:]) for r in writes if r.startswith("tree"))
        self.arrays_written = [k for k in self._arrays if f"arg{k}" in writes]
        # where each is written, for the error that refuses a read-only array (final IR only)
        self._written_at = written_ndarrays(kernel) if cached is None else {}

    @property
    def task_wgsl(self) -> list[str]:
        return [shader.wgsl for shader, _, _ in self.tasks]

    def _variant(self, array_windows: tuple[int, ...]) -> list[tuple[TaskShader, Any, Any]]:
        """Shaders and pipelines for ndarrays bound as these numbers of windows."""
        found = self._variants.get(array_windows)
        if found is not None:
            return found
        windows = {f"tree{t}": n for t, n in self.memory.tree_windows().items()}
        windows.update({f"arg{k}": n for k, n in zip(self._arrays, array_windows)})
        if self._cached is not None and not self._variants:  # the first: one window each
            shaders = self._cached.shaders
        else:
            shaders = build_shaders(
                self._final_ir(), self.device.caps, self.args, windows, self.fast_math
            )
        variant = []
        for shader in shaders:
            immediate_size = 0 if self.args.uniform else self.args.size
            pipeline, layout = self.device.pipeline(shader.wgsl, shader.bindings, immediate_size)
            variant.append((shader, pipeline, layout))
        self._variants[array_windows] = variant
        return variant

    def _final_ir(self) -> Kernel:
        if self._cached is not None:  # a cache hit that needs shaders the cache did not keep
            self.kernel, self._cached = self._cached.final_ir(), None
        return self.kernel

    # --- launching ----------------------------------------------------------------------

    def launch(self, args: Sequence[Any], roots: Sequence[int] = ()) -> tuple:
        """Run the kernel (`roots` is the CPU back end's argument; the GPU ignores it)."""
        if len(args) != self._num_params:
            raise TypeError(f"kernel {self.name!r} takes {self._num_params} arguments")
        with self._lock:
            key = self._keys.next() if self._keys is not None else 0
            immediates = self.args.pack(list(args), key) if self.args.size else b""
            if self.uniform is not None:
                if immediates != self._uniform_bytes:  # ordered after the work recorded so far
                    self.device.write(self.uniform, immediates)
                    self._uniform_bytes = immediates
                immediates = b""
            self.memory.before_launch(self.trees_used)
            buffers = {f"arg{k}": self._upload(k, args[k]) for k in self._arrays}
            window = self.device.caps.window_bytes
            tasks = self._variant(
                tuple(-(-buffers[f"arg{k}"].size // window) for k in self._arrays)
            )
            for index, (shader, pipeline, layout) in enumerate(tasks):
                if shader.groups:
                    group = self._bind_group(index, shader, layout, buffers)
                    self.device.dispatch(pipeline, group, immediates, shader.groups)
            self.memory.after_launch(self.trees_written)
            if self.print_formats:  # what the kernel printed, in record order
                assert self.prints is not None, "a kernel that prints needs a print buffer"
                self.prints.drain(self.print_formats)
            if self.failure.checks:  # after the prints: they show what led to the failure
                self.failure.check(self.device, self.gtmp)
            for k in self.arrays_written:
                self._download(args[k], buffers[f"arg{k}"])
            if not self.ret_types:
                return ()
            return self._returns()

    def _upload(self, k: int, arr: Any) -> Any:
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"argument {self._param_names[k]!r} must be a numpy array")
        if not arr.flags.c_contiguous:
            raise ValueError(
                f"argument {self._param_names[k]!r} must be C-contiguous, got a non-contiguous "
                "array: pass np.ascontiguousarray(...)"
            )
        if not arr.flags.writeable and k in self.arrays_written:  # it is copied back
            raise ValueError(read_only_message(self._param_names[k], self._written_at.get(k, "")))
        nbytes = arr.nbytes
        buffer = self._arg_buffers.get(k)
        if buffer is None or buffer.size < nbytes:
            buffer = self.device.create_buffer(nbytes)
            self._arg_buffers[k] = buffer
        if nbytes:
            data = arr.reshape(-1).view(np.uint8)
            if nbytes % 4:
                data = np.concatenate([data, np.zeros(4 - nbytes % 4, np.uint8)])
            self.device.write(buffer, data)
        return buffer

    def _download(self, arr: np.ndarray, buffer: Any) -> None:
        if arr.nbytes:
            data = self.device.read(buffer, arr.nbytes)
            arr.reshape(-1).view(np.uint8)[:] = np.frombuffer(data, np.uint8, arr.nbytes)

    def _bind_group(self, index: int, shader: TaskShader, layout: Any, buffers: dict) -> Any:
        if not shader.bindings:
            return None
        resolved = [self._buffer_of(b.resource, buffers) for b in shader.bindings]
        key = (index, id(layout), *(id(buf) for buf in resolved))
        group = self._bind_groups.get(key)
        if group is None:
            window = self.device.caps.window_bytes
            entries = []
            for b, buf in zip(shader.bindings, resolved):
                offset = b.window * window
                entries.append((b.index, buf, offset, min(window, buf.size - offset)))
            group = self.device.bind_group(layout, entries)
            if len(self._bind_groups) > 64:
                self._bind_groups.clear()
            self._bind_groups[key] = group
        return group

    def _buffer_of(self, resource: str, arrays: dict[str, Any]) -> Any:
        if resource == "gtmp":
            return self.gtmp
        if resource == "ret":
            return self.ret
        if resource == "args":
            return self.uniform
        if resource == RESOURCE:
            return self.prints.buffer  # type: ignore[union-attr]
        if resource.startswith("tree"):
            return self.memory.buffer(int(resource[4:]))
        return arrays[resource]

    def _returns(self) -> tuple:
        data = bytes(self.device.read(self.ret, 8 * len(self.ret_types)))
        out = []
        for k, dtype in enumerate(self.ret_types):
            out.append(_decode(data[8 * k : 8 * k + 8], dtype))
        return tuple(out)


def _decode(slot: bytes, dtype: PrimitiveType) -> Any:
    """A return slot as a Python scalar (narrow ints travel as i32/u32, u1 as a u32 0/1)."""
    if dtype.kind == "bool":
        return bool(np.frombuffer(slot, np.uint32, 1)[0])
    if dtype.is_float:
        return float(np.frombuffer(slot, dtype.numpy_name, 1)[0])
    width = 64 if dtype.bits == 64 else 32
    kind = "int" if dtype.kind == "int" else "uint"
    return int(np.frombuffer(slot, f"{kind}{width}", 1)[0])
