"""matmul through plain loops on the GPU: would several rows per invocation beat Taichi CUDA?

    python benchmarks/gpu/matmul_probe.py        # one JSON row per variant

bench.py's `C = A @ B` gives each invocation one element of C and a serial loop over k with
two loads per multiply-add: `a[i, k]` (the same for a warp's lanes: one row) and `b[k, j]`
(coalesced). tistudio ran it at 3513-4116 GFLOP/s on an H200 before `jam_rows` (now 6344),
Taichi CUDA at 4680. Walking
`rows` rows of one column per invocation (the CPU back end's `jam` pass does this around long
inner loops) shares each `b[k, j]` load among `rows` multiply-adds: (rows + 1) / rows loads
per multiply-add instead of 2. These hand-written shaders test whether that pays on the GPU
before a pass is written for it. Each variant's C is compared with the emitted shader's.
"""

from __future__ import annotations

import json
import os

import bench
import numpy as np
import shader_variants as sv

import tistudio as ti

N = int(os.environ.get("BENCH_MATMUL", 4096))
REPS = 5
ROWS = (1, 2, 4, 8)


def jammed(header: str, rows: int) -> str:
    """C = A @ B with `rows` rows of C per invocation; A, B, C consecutive in `tree0_f32`."""
    b, c = N * N, 2 * N * N
    accs = "\n".join(f"        var acc{r} = 0.0f;" for r in range(rows))
    fma = "            acc{r} = acc{r} + tree0_f32[(i0 + {r}u) * {n}u + k] * bk;"
    fmas = "\n".join(fma.format(r=r, n=N) for r in range(rows))
    stores = "\n".join(
        f"        tree0_f32[{c}u + (i0 + {r}u) * {N}u + j] = acc{r};" for r in range(rows)
    )
    return (
        header
        + f"""
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {{
    for (var t: u32 = gid.x; t < {N // rows * N}u; t = t + groups.x * 256u) {{
        let j = t % {N}u;
        let i0 = (t / {N}u) * {rows}u;
{accs}
        for (var k: u32 = 0u; k < {N}u; k = k + 1u) {{
            let bk = tree0_f32[{b}u + k * {N}u + j];
{fmas}
        }}
{stores}
    }}
}}
"""
    )


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    device = ti.lang.impl.get_program().gpu.device
    mm, c, _, _ = bench.matmul_kernel(ti, N)
    mm()
    ti.sync()
    exe = mm.compile_report().result.executable
    shader = exe.tasks[0][0]
    assert "tree0_f32:" in shader.wgsl, "the tree is not one window here"
    header = shader.wgsl[: shader.wgsl.index("@compute")]
    variants = {"as emitted": shader.wgsl}
    variants |= {f"{r} rows per invocation": jammed(header, r) for r in ROWS}
    reference = None
    for label, text in variants.items():
        pipeline, group = sv.pipeline_for(device, exe, shader, text, False)
        c.fill(-1)
        groups = shader.groups
        device.dispatch(pipeline, group, b"", groups)
        got = c.to_numpy()
        reference = got if reference is None else reference
        ms = sv.timed(device, pipeline, group, groups, REPS)
        row = {"adapter": adapter, "probe": "matmul", "variant": label, "ms": round(ms, 3)}
        row["gflops"] = round(2 * N**3 / ms / 1e6, 1)
        row["same"] = bool(np.array_equal(got, reference))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
