"""The grid of a large range_for, measured on this GPU when its device opens.

A range_for task with more indices than `Caps.max_groups` workgroups of 256 can take runs as a
grid-stride loop over that many workgroups. How many suit a memory-bound loop depends on the
card, and WebGPU does not say how many multiprocessors it has: on an NVIDIA H200, saxpy moves
3700-3770 GB/s with 1024 or 4096 workgroups and half that with 8192 or more, while a sum is flat
from 1024 to 8192 (`benchmarks/gpu/README.md`, memory_probe.py rows of 2026-11-28). So
`GpuDevice.open()` times a vec4 copy of `COPY_BYTES` at each of `CANDIDATES` (interleaved,
`ROUNDS` times, the best time of each) and keeps the fewest workgroups within `SLACK` of the
fastest: the choice is made on the user's card, never hard-coded for one. It costs ~10-30 ms
once per process. CPU adapters (lavapipe) are not measured: their invocations are threads of
the host, and 64 workgroups keep them busy. `TISTUDIO_GPU_GROUPS=n` fixes the grid instead
(for runs that must compare like with like).

A different grid changes which invocation adds which terms of a float reduction, so its last
bits may differ between processes that chose differently: the contract's one freedom (the
order of a parallel reduction, docs/compiler-contract.md); nothing else depends on the grid.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

log = logging.getLogger("tistudio")

CANDIDATES = (1024, 2048, 4096, 8192, 16384)
FALLBACK = 4096  # where the copy cannot be timed (a buffer too small, an error)
COPY_BYTES = 128 << 20  # each of the two buffers
ROUNDS = 3
REPS = 8  # copies per timing: ~0.5 ms on an H200, against a sync's ~60 us
SLACK = 0.03
ENV = "TISTUDIO_GPU_GROUPS"

COPY_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let n = arrayLength(&src);
    for (var k: u32 = gid.x; k < n; k = k + groups.x * 256u) {
        dst[k] = src[k];
    }
}
"""


def chosen_groups(gpu: Any, is_cpu: bool) -> int:
    """`max_groups` for `gpu` (a `GpuDevice` whose caps are not final yet)."""
    fixed = os.environ.get(ENV)
    if fixed:
        return max(1, min(int(fixed), 65535))
    if is_cpu:
        return 64
    try:
        times = copy_times(gpu)
    except Exception as e:  # noqa: BLE001 - a failed measurement must not stop ti.init
        log.warning("[tistudio] could not time the GPU's grids (%s); using %d", e, FALLBACK)
        return FALLBACK
    return best_groups(times)


def best_groups(times: dict[int, float]) -> int:
    """The fewest workgroups whose time is within SLACK of the fastest."""
    fastest = min(times.values())
    return min(g for g, t in times.items() if t <= fastest * (1 + SLACK))


def copy_times(gpu: Any, nbytes: int | None = None) -> dict[int, float]:
    """Seconds per copy of `nbytes` (COPY_BYTES) at each candidate grid (the best of ROUNDS)."""
    limit = gpu.adapter.limits["max-storage-buffer-binding-size"]
    size = min(nbytes or COPY_BYTES, limit) // 16 * 16
    usage = gpu.wgpu.BufferUsage
    src, dst = (
        gpu.device.create_buffer(size=size, usage=usage.STORAGE | usage.COPY_SRC | usage.COPY_DST)
        for _ in range(2)
    )
    pipeline, group = copy_pipeline(gpu, src, dst)
    best = dict.fromkeys(CANDIDATES, float("inf"))
    try:
        copies(gpu, pipeline, group, CANDIDATES[0], 2)  # warm-up
        for _ in range(ROUNDS):
            for groups in CANDIDATES:
                best[groups] = min(best[groups], copies(gpu, pipeline, group, groups, REPS))
    finally:
        src.destroy()
        dst.destroy()
    return best


def copy_pipeline(gpu: Any, src: Any, dst: Any) -> tuple[Any, Any]:
    """(pipeline, bind group) of COPY_WGSL from buffer `src` to `dst` (of one size)."""
    wgpu, device = gpu.wgpu, gpu.device
    kinds = ("read-only-storage", "storage")
    layout = device.create_bind_group_layout(
        entries=[
            {"binding": b, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": kind}}
            for b, kind in enumerate(kinds)
        ]
    )
    pipeline = device.create_compute_pipeline(
        layout=device.create_pipeline_layout(bind_group_layouts=[layout]),
        compute={"module": gpu.shader_module(COPY_WGSL), "entry_point": "main"},
    )
    group = device.create_bind_group(
        layout=layout,
        entries=[
            {"binding": b, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
            for b, buf in enumerate((src, dst))
        ],
    )
    return pipeline, group


def copies(gpu: Any, pipeline: Any, group: Any, groups: int, reps: int) -> float:
    """Seconds per copy of `reps` copies recorded in one pass, submitted and waited for."""
    start = time.perf_counter()
    encoder = gpu.device.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    for _ in range(reps):
        compute.dispatch_workgroups(groups)
    compute.end()
    gpu.queue.submit([encoder.finish()])
    gpu.device._poll_wait()
    return (time.perf_counter() - start) / reps
