"""The WebGPU device: adapter choice, buffers, pipelines, and batched dispatch.

`GpuDevice.open()` picks an adapter (Vulkan first, a discrete GPU before an integrated one and
before a CPU rasteriser such as Mesa's lavapipe; then Metal and D3D12; OpenGL last), asks for
the optional features the compiler uses (f16, f64, i64, f32 and i64 atomics, immediates,
timestamps) and the adapter's full limits. Creating a device costs 0.1-0.4 s, so a process
opens one and every `ti.init(arch=ti.gpu)` shares it (`default_device`).

Launches are asynchronous, as in Taichi: dispatches are recorded into one open compute pass
(through wgpu-native's C functions directly: recorder.py) and submitted together when the
host needs a result (`read`, `sync`), before a host-to-device copy
(`write`, so the copy lands after the work recorded before it), every `batch` dispatches
(`BATCH`), and right after a dispatch of at least `eager_groups` workgroups (`EAGER_GROUPS`).
The GPU runs nothing recorded until it is submitted: a large dispatch keeps it busy for tens of
microseconds or more, so submitting it at once lets it run while Python records the next
launches, for the price of one submit (~20 us of CPU); small dispatches stay batched, since
there the submit would cost more than the kernel. wgpu-py 0.32's `on_submitted_work_done_sync`
is broken (it raises TypeError), so `sync` polls wgpu-native itself: first without blocking,
in a loop, for up to `spin_s` (`SPIN_S`), then blocking (`device._poll_wait()`). A blocking
poll sleeps in the driver's fence wait and the thread wakes tens of microseconds after the GPU
is done; spinning on the fence answers a short kernel's sync at once (CUDA's
`cudaStreamSynchronize` spins too), and a long kernel costs at most `spin_s` of one core.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import replace
from typing import Any

from tistudio.backends.webgpu import calibrate
from tistudio.backends.webgpu.recorder import Recorder
from tistudio.backends.webgpu.resources import UNIFORM, Binding, Caps

log = logging.getLogger("tistudio")

WANTED_FEATURES = (
    "shader-f16",
    "shader-f64",
    "shader-int64",
    "shader-float32-atomic",
    "shader-int64-atomic-all-ops",
    "immediates",
    "timestamp-query",
    "timestamp-query-inside-encoders",
    "timestamp-query-inside-passes",
)
_BACKEND_RANK = {"Vulkan": 0, "Metal": 1, "D3D12": 2, "OpenGL": 3}
_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3, "Unknown": 4}
BATCH = 256  # dispatches recorded before a submit even if nobody waits
EAGER_GROUPS = 1024  # a dispatch of this many workgroups or more is submitted at once
NO_RUNTIME_CHECKS = 0  # WGPUShaderRuntimeChecks_None
SPIN_S = 1e-3  # how long `sync` polls without blocking before it sleeps in the driver


class NoAdapterError(RuntimeError):
    """No WebGPU adapter exists here (or wgpu is not installed)."""


def describe(adapter: Any) -> str:
    info = adapter.info
    return f"{info.get('backend_type', '?')}: {info.get('device', '?')}".strip()


def _rank(adapter: Any) -> tuple[int, int]:
    info = adapter.info
    return (
        _BACKEND_RANK.get(info.get("backend_type", ""), 9),
        _TYPE_RANK.get(info.get("adapter_type", ""), 9),
    )


class GpuDevice:
    """One wgpu device and queue, the pipeline cache, and the open batch of dispatches."""

    def __init__(self, adapter: Any, device: Any, caps: Caps) -> None:
        import wgpu

        self.wgpu = wgpu
        self.adapter, self.device, self.caps = adapter, device, caps
        self.queue = device.queue
        self.description = caps.description
        self._pipelines: dict[tuple, tuple[Any, Any]] = {}
        self._recorder = Recorder(device, self.queue)  # the open batch of dispatches
        self.batch = BATCH  # dispatches recorded before a submit (see the module docstring)
        self.eager_groups = EAGER_GROUPS
        # naga's index clamps and loop counters (see shader_module): off, as in Taichi's Vulkan
        # back end, where an index out of range is undefined; ti.init(debug=True) checks
        # indices itself (insert_debug_checks). They cost n-body 8-15 % on an H100.
        self.runtime_checks = False
        self.submits = 0  # for tests and the studio: how many submissions so far
        self.spin_s = SPIN_S  # see the module docstring; 0: block at once
        self.usage = (
            wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        )

    @classmethod
    def open(cls, disable: frozenset[str] = frozenset()) -> GpuDevice:
        """The best adapter's device, with the wanted features it offers minus `disable`."""
        try:
            import wgpu
        except ImportError as e:
            raise NoAdapterError(f"wgpu is not installed ({e})") from None
        adapters = sorted(wgpu.gpu.enumerate_adapters_sync(), key=_rank)
        if not adapters:
            raise NoAdapterError("wgpu found no adapter")
        adapter = adapters[0]
        features = [f for f in WANTED_FEATURES if f in adapter.features and f not in disable]
        limits = dict(adapter.limits)
        device = adapter.request_device_sync(required_features=features, required_limits=limits)
        is_cpu = adapter.info.get("adapter_type") == "CPU"
        caps = Caps(
            features=frozenset(features),
            window_bytes=limits["max-storage-buffer-binding-size"] // 256 * 256,
            max_immediate_size=limits.get("max-immediate-size", 0),
            max_storage_buffers=limits["max-storage-buffers-per-shader-stage"],
            description=describe(adapter),
        )
        gpu = cls(adapter, device, caps)
        gpu.caps = replace(caps, max_groups=calibrate.chosen_groups(gpu, is_cpu))
        log.info(
            "[tistudio] WebGPU adapter: %s, grids of %d workgroups",
            caps.description,
            gpu.caps.max_groups,
        )
        return gpu

    # --- buffers ------------------------------------------------------------------------

    def create_buffer(self, size: int, uniform: bool = False) -> Any:
        """A zeroed storage (or uniform) buffer of at least `size` bytes, rounded up to 16: every
        aligned vec4 that holds one of its bytes lies inside it (vectorize.py reads those)."""
        if uniform:
            usage = self.wgpu.BufferUsage.UNIFORM | self.wgpu.BufferUsage.COPY_DST
            return self.device.create_buffer(size=max(16, -(-size // 16) * 16), usage=usage)
        return self.device.create_buffer(size=max(16, -(-size // 16) * 16), usage=self.usage)

    def write(self, buffer: Any, data: Any, offset: int = 0) -> None:
        """Copy host `data` (bytes-like, size a multiple of 4) into `buffer` after all work
        recorded so far."""
        self.flush()
        self.queue.write_buffer(buffer, offset, data)

    def read(self, buffer: Any, size: int, offset: int = 0) -> memoryview:
        """Bytes of `buffer` once every recorded dispatch has run (waits)."""
        self.flush()
        return self.queue.read_buffer(buffer, offset, -(-size // 4) * 4)

    # --- pipelines ----------------------------------------------------------------------

    def pipeline(self, wgsl: str, bindings: list[Binding], immediate_size: int) -> tuple:
        """(compute pipeline, bind group layout) for `wgsl`, cached by its text."""
        key = (wgsl, tuple((b.index, b.writable, b.view) for b in bindings), immediate_size)
        found = self._pipelines.get(key)
        if found is not None:
            return found
        wgpu = self.wgpu
        kind = {True: wgpu.BufferBindingType.storage, False: "read-only-storage"}
        layout = self.device.create_bind_group_layout(
            entries=[
                {
                    "binding": b.index,
                    "visibility": wgpu.ShaderStage.COMPUTE,
                    "buffer": {"type": "uniform" if b.view == UNIFORM else kind[b.writable]},
                }
                for b in bindings
            ]
        )
        pipeline_layout = self.device.create_pipeline_layout(
            bind_group_layouts=[layout], immediate_size=immediate_size
        )
        module = self.shader_module(wgsl)
        pipeline = self.device.create_compute_pipeline(
            layout=pipeline_layout, compute={"module": module, "entry_point": "main"}
        )
        self._pipelines[key] = (pipeline, layout)
        return pipeline, layout

    def shader_module(self, wgsl: str) -> Any:
        """naga's module for `wgsl`; without the runtime checks naga adds by default (an index
        clamped to the array's length on every storage access, a counter on every loop) when
        `runtime_checks` is off, through wgpu-native's `CreateShaderModuleTrusted`."""
        if self.runtime_checks:
            return self.device.create_shader_module(code=wgsl)
        from wgpu.backends.wgpu_native import _api

        source = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(wgsl))
        source[0].chain.next = _api.ffi.NULL
        source[0].chain.sType = _api.lib.WGPUSType_ShaderSourceWGSL
        chain = _api.ffi.cast("WGPUChainedStruct *", source)
        descriptor = _api.new_struct_p(
            "WGPUShaderModuleDescriptor *", nextInChain=chain, label=_api.to_c_string_view("")
        )
        create = _api.libf.wgpuDeviceCreateShaderModuleTrusted
        handle = create(self.device._internal, descriptor, NO_RUNTIME_CHECKS)
        if handle == _api.ffi.NULL:
            raise RuntimeError("shader module creation failed")
        return _api.GPUShaderModule("", handle, self.device)

    def bind_group(self, layout: Any, entries: list[tuple[int, Any, int, int]]) -> Any:
        """A bind group of (binding, buffer, offset, size) entries."""
        return self.device.create_bind_group(
            layout=layout,
            entries=[
                {"binding": b, "resource": {"buffer": buf, "offset": off, "size": size}}
                for b, buf, off, size in entries
            ],
        )

    # --- dispatch and batching ----------------------------------------------------------

    def dispatch(self, pipeline: Any, bind_group: Any, immediates: bytes, groups: int) -> None:
        """Record a dispatch into the open batch (recorder.py); submit by the module's rules."""
        self._recorder.dispatch(pipeline, bind_group, immediates, groups)
        if self._recorder.recorded >= self.batch or groups >= self.eager_groups:
            self.flush()

    def flush(self) -> None:
        """Submit what is recorded, without waiting."""
        if not self._recorder.recorded:
            return
        self.submits += 1
        self._recorder.submit()

    def sync(self) -> None:
        """Wait until every recorded dispatch has run (see the module docstring)."""
        self.flush()
        self._recorder.open()  # for the next launch, while the GPU runs (recorder.py)
        if self.spin_s > 0 and self._spin_until_idle(self.spin_s):
            return
        self.device._poll_wait()

    def _spin_until_idle(self, budget_s: float) -> bool:
        """Poll without blocking until the queue is empty (True) or `budget_s` has passed."""
        deadline = time.perf_counter() + budget_s
        while not self.idle():
            if time.perf_counter() > deadline:
                return False
        return True

    def idle(self) -> bool:
        """Whether every submitted dispatch has run, without waiting (recorded ones that are not
        submitted yet do not count)."""
        return self._recorder.queue_empty()


@functools.cache
def default_device() -> GpuDevice:
    """The process-wide device (see the module docstring); raises NoAdapterError."""
    return GpuDevice.open()
