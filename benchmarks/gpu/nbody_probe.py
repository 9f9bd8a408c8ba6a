"""n-body at 0.97x Taichi Vulkan: time WGSL variants of bench.py's `forces` shader.

    python benchmarks/gpu/nbody_probe.py        # one JSON row per variant

With 8192 bodies the kernel has 8192 invocations (32 workgroups of 256), each walking all 8192
bodies in a serial loop: the time is the latency of one iteration's dependent chain (three
loads, a square root, a division) times 8192, not throughput. The variants: naga's runtime
checks off (an index clamp per load, a counter per loop), smaller workgroups (more SMs busy),
the inner loop unrolled (chains of several iterations interleave), `1 / (r2 * sqrt(r2))` as
`inverseSqrt(r2)` cubed. Each variant's velocities after one launch are compared with the
emitted shader's.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import shader_variants as sv

import tistudio as ti

BODIES = int(__import__("os").environ.get("BENCH_BODIES", 8192))
REPS = 10


def rsqrt(text: str) -> str:
    m = re.search(
        r"let (s\d+): f32 = sqrt\((s\d+)\);\s*let (s\d+): f32 = \(\2 \* \1\);\s*"
        r"let (s\d+): f32 = \(1.0f / \3\);",
        text,
    )
    assert m, "no 1 / (r2 * sqrt(r2)) in the shader"
    return text.replace(
        m[0], f"let {m[1]}: f32 = inverseSqrt({m[2]});\nlet {m[4]}: f32 = {m[1]} * {m[1]} * {m[1]};"
    )


def variants(text: str) -> dict[str, tuple[str, bool, int]]:
    """name: (shader, runtime checks, workgroup size)"""
    out = {"as emitted": (text, True, 256), "no runtime checks": (text, False, 256)}
    for size in (64, 128):
        out[f"wg {size}"] = (sv.workgroup_size(text, size), True, size)
        out[f"wg {size}, no checks"] = (sv.workgroup_size(text, size), False, size)
    for factor in (2, 4, 8):
        out[f"unroll {factor}"] = (sv.unroll_serial(text, factor), True, 256)
        out[f"unroll {factor}, no checks"] = (sv.unroll_serial(text, factor), False, 256)
    out["inverseSqrt"] = (rsqrt(text), True, 256)
    out["inverseSqrt, no checks"] = (rsqrt(text), False, 256)
    out["unroll 4, wg 64, no checks"] = (
        sv.workgroup_size(sv.unroll_serial(text, 4), 64),
        False,
        64,
    )
    out["unroll 4, inverseSqrt, no checks"] = (sv.unroll_serial(rsqrt(text), 4), False, 256)
    out["unroll 4, inverseSqrt, wg 64, no checks"] = (
        sv.workgroup_size(sv.unroll_serial(rsqrt(text), 4), 64),
        False,
        64,
    )
    return out


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    device = ti.lang.impl.get_program().gpu.device
    # the variants rewrite the shader as it was before unroll.py and small workgroups
    device.caps = replace(device.caps, unroll=False, small_group=device.caps.workgroup_size)
    px, py, pz = (ti.field(ti.f32, shape=BODIES) for _ in range(3))
    vx, vy, vz = (ti.field(ti.f32, shape=BODIES) for _ in range(3))

    @ti.kernel
    def init():
        for i in px:
            px[i] = ti.sin(i * 0.1) * 10
            py[i] = ti.cos(i * 0.37) * 10
            pz[i] = (i % 17) * 0.5
            vx[i] = 0.0

    @ti.kernel
    def forces():
        for i in px:
            ax, ay, az = 0.0, 0.0, 0.0
            for j in range(BODIES):
                dx, dy, dz = px[j] - px[i], py[j] - py[i], pz[j] - pz[i]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = 1.0 / (r2 * ti.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
                az += dz * inv
            vx[i] += ax * 1e-3
            vy[i] += ay * 1e-3
            vz[i] += az * 1e-3

    init()
    forces()
    ti.sync()
    exe = forces.compile_report().result.executable
    shader = exe.tasks[0][0]
    reference = None
    for label, (text, checks, size) in variants(shader.wgsl).items():
        pipeline, group = sv.pipeline_for(device, exe, shader, text, checks)
        groups = -(-BODIES // size)
        init()
        device.dispatch(pipeline, group, b"", groups)
        got = vx.to_numpy()
        reference = got if reference is None else reference
        ms = sv.timed(device, pipeline, group, groups, REPS)
        row = {"adapter": adapter, "probe": "n-body", "variant": label, "ms": round(ms, 4)}
        row["gpairs"] = round(BODIES * BODIES / ms / 1e6, 1)
        row["max_rel_diff"] = float(np.max(np.abs(got - reference) / (np.abs(reference) + 1e-6)))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
