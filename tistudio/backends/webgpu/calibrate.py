"""The grid of a large range_for, from how many workgroups this GPU holds at once.

A range_for task with more indices than `Caps.max_groups` workgroups of 256 can take runs as a
grid-stride loop over that many workgroups. How many suit a memory-bound loop depends on the
card, and WebGPU does not say how many multiprocessors it has: on an NVIDIA H200, saxpy moves
3700-3860 GB/s with 1024 or 4096 workgroups and half that with 8192 or more, while a sum is flat
from 1024 to 8192 (`benchmarks/gpu/README.md`, memory_probe.py). Timing a copy at each grid
when the device opened did not tell them apart: four processes on one H200 chose 2048, 4096,
8192 and 16384 (the copy is flat where saxpy is not).

So `GpuDevice.open()` measures the card's width instead: it launches `PROBE_GROUPS` workgroups
of 256 invocations that each stay on the GPU for a while (a loop of `SPIN` steps) and count, with
atomics, how many of them run at the same time (`resident_groups`; an H200 holds 132 SMs x 8 =
1056). A grid of `WAVES` times that many, rounded down to a power of two (4096 on an H100 or
H200, fewer on a smaller card, at most 65535), keeps every multiprocessor busy with work
to spare, like the 4096 measured best on both. It costs ~5 ms once per process. CPU adapters
(lavapipe) are not measured: their invocations are threads of the host, and 64 workgroups keep
them busy. `TISTUDIO_GPU_GROUPS=n` fixes the grid instead.

A different grid changes which invocation adds which terms of a float reduction, so its last
bits may differ between cards (and processes, should a count differ): the contract's one
freedom (the order of a parallel reduction, docs/compiler-contract.md); nothing else depends on
the grid.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from tistudio.backends.webgpu.resources import Binding

log = logging.getLogger("tistudio")

FALLBACK = 4096  # where the count cannot be made (an error)
PROBE_GROUPS = 16384  # more than any GPU holds at once
SPIN = 20000  # steps each invocation loops: tens of microseconds, so the GPU fills up
WAVES = 4
ENV = "TISTUDIO_GPU_GROUPS"


def resident_wgsl(spin: int) -> str:
    """The counting shader: counts[0] holds the workgroups running now, counts[1] the most at
    once; every invocation loops `spin` steps (a value the compiler cannot drop) meanwhile."""
    return f"""
@group(0) @binding(0) var<storage, read_write> counts: array<atomic<u32>, 3>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
    if (lid == 0u) {{
        atomicMax(&counts[1], atomicAdd(&counts[0], 1u) + 1u);
    }}
    var x = lid ^ wid.x;
    for (var i = 0u; i < {spin}u; i = i + 1u) {{
        x = x * 1664525u + 1013904223u;
    }}
    if (x == 0u) {{
        atomicAdd(&counts[2], 1u);
    }}
    workgroupBarrier();
    if (lid == 0u) {{
        atomicSub(&counts[0], 1u);
    }}
}}
"""


def chosen_groups(gpu: Any, is_cpu: bool) -> int:
    """`max_groups` for `gpu` (a `GpuDevice` whose caps are not final yet)."""
    fixed = os.environ.get(ENV)
    if fixed:
        return max(1, min(int(fixed), 65535))
    if is_cpu:
        return 64
    try:
        resident = resident_groups(gpu)
    except Exception as e:  # noqa: BLE001 - a failed count must not stop ti.init
        log.warning("[tistudio] could not count the GPU's workgroups (%s); using %d", e, FALLBACK)
        return FALLBACK
    return grid_for(resident)


def grid_for(resident: int) -> int:
    """WAVES times `resident` workgroups, rounded down to a power of two, within [64, 65535]."""
    wanted = max(64, min(WAVES * max(resident, 1), 65535))
    return 1 << (wanted.bit_length() - 1)


def resident_groups(gpu: Any, groups: int | None = None, spin: int | None = None) -> int:
    """How many of `groups` (PROBE_GROUPS) workgroups of 256, each looping `spin` (SPIN) steps,
    ran at the same time, at most, on `gpu`."""
    groups, spin = groups or PROBE_GROUPS, spin or SPIN
    buffer = gpu.create_buffer(16)
    try:
        counts = [Binding(0, "counts", "au32", 0, True)]
        pipeline, layout = gpu.pipeline(resident_wgsl(spin), counts, 0)
        gpu.write(buffer, bytes(16))
        gpu.dispatch(pipeline, gpu.bind_group(layout, [(0, buffer, 0, 16)]), b"", groups)
        running, most, _ = np.frombuffer(gpu.read(buffer, 12), np.uint32)
    finally:
        buffer.destroy()
    if running != 0:
        raise RuntimeError(f"{running} workgroups did not finish")
    return int(most)
