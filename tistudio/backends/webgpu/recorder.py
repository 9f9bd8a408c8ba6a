"""Compute passes recorded and submitted through wgpu-native's C functions themselves.

A launch records a pipeline, a bind group, its immediates and a dispatch into the open compute
pass; a flush ends the pass and submits it. Through wgpu-py's objects that path cost 28 us per
launch + flush on this machine's lavapipe (each call builds descriptor structs, wraps the
result in a Python object with a finalizer and captures errors around the C call) and 80 us
with the wait on an NVIDIA H200's host, against 24 us for Taichi CUDA's launch + sync. The
same C calls made directly, with descriptors allocated once, cost 7 us (benchmarks/gpu/
sync_probe.py). Objects are released as wgpu-py would release them, once they are submitted.
`queue_empty` is the non-blocking poll that `GpuDevice.sync` spins on, made the same way.

Errors: wgpu-core reports a pass's validation errors when its encoder finishes and a
submission's when it is submitted, so those two calls go through wgpu-py's checked entry
points (`libf`), which raise them as Python exceptions; the calls before them cannot fail on
their own. The pipelines and bind groups stay alive in the caches of their owners, and wgpu-core
holds its own references to what a pass records.
"""

from __future__ import annotations

from typing import Any


class Recorder:
    """The open compute pass of one device's queue, or none."""

    def __init__(self, device: Any, queue: Any) -> None:
        from wgpu.backends.wgpu_native import _api

        self._ffi, self._lib, self._checked = _api.ffi, _api.lib, _api.libf
        self._device, self._queue = device._internal, queue._internal
        self._keep = (device, queue)  # the handles above live as long as these objects
        new = self._ffi.new
        self._encoder_desc = new("WGPUCommandEncoderDescriptor *")
        self._pass_desc = new("WGPUComputePassDescriptor *")
        self._buffer_desc = new("WGPUCommandBufferDescriptor *")
        self._buffers = new("WGPUCommandBuffer[1]")
        self._encoder: Any = None
        self._pass: Any = None
        self.recorded = 0  # dispatches in the open pass

    def open(self) -> None:
        """Open a pass if none is open: `GpuDevice.sync` does it while the GPU runs, so that
        the next launch finds one (an empty pass is never submitted)."""
        if self._pass is None:
            lib = self._lib
            self._encoder = lib.wgpuDeviceCreateCommandEncoder(self._device, self._encoder_desc)
            self._pass = lib.wgpuCommandEncoderBeginComputePass(self._encoder, self._pass_desc)

    def dispatch(self, pipeline: Any, bind_group: Any, immediates: bytes, groups: int) -> None:
        """Record one dispatch of `groups` workgroups (opening a pass if none is open)."""
        self.open()
        lib = self._lib
        self.recorded += 1
        compute = self._pass
        lib.wgpuComputePassEncoderSetPipeline(compute, pipeline._internal)
        if bind_group is not None:
            lib.wgpuComputePassEncoderSetBindGroup(
                compute, 0, bind_group._internal, 0, self._ffi.NULL
            )
        if immediates:
            data = self._ffi.from_buffer(immediates)
            lib.wgpuComputePassEncoderSetImmediates(compute, 0, data, len(immediates))
        lib.wgpuComputePassEncoderDispatchWorkgroups(compute, groups, 1, 1)

    def queue_empty(self) -> bool:
        """Whether everything submitted has run: wgpu-native's poll, without blocking (0.4 us
        unchecked, 0.9 through wgpu-py's checked entry point, on lavapipe's host)."""
        # it returns whether the queue is empty as a Rust `bool` in the low byte of the 32-bit
        # WGPUBool that cffi reads: the other bytes are left over (0xf18d0000 for false on
        # lavapipe), so only bit 0 means anything
        return bool(self._lib.wgpuDevicePoll(self._device, False, self._ffi.NULL) & 1)

    def submit(self) -> None:
        """End the open pass and submit it (nothing if it holds no dispatch); raises wgpu's
        validation errors of what was recorded."""
        if not self.recorded:
            return
        lib, encoder, compute = self._lib, self._encoder, self._pass
        self._encoder = self._pass = None
        self.recorded = 0
        buffer = None
        try:
            lib.wgpuComputePassEncoderEnd(compute)
            buffer = self._checked.wgpuCommandEncoderFinish(encoder, self._buffer_desc)
            self._buffers[0] = buffer
            self._checked.wgpuQueueSubmit(self._queue, 1, self._buffers)
        finally:
            lib.wgpuComputePassEncoderRelease(compute)
            lib.wgpuCommandEncoderRelease(encoder)
            if buffer is not None:
                lib.wgpuCommandBufferRelease(buffer)
