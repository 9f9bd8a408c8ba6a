"""Is bench.py's stencil bound by the L2 cache? Time hand-written WGSL that reads each row less.

    python benchmarks/gpu/stencil_probe.py        # one JSON row per variant

The ndrange stencil `b[i, j] = 0.25 * (a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1])` as
tistudio emits it takes four cells of a row per step (vec4): it loads the vectors above and
below and the row's own three, stores one. Neighbouring rows belong to other workgroups, on
other multiprocessors, so every row of `a` crosses from L2 three times (as the row above, its
own, the row below): ~48 B of L2 reads per 16 B written, ~1.07 GB per step of 8192² at
0.173 ms, about 6 TB/s, near what an H100/H200's L2 delivers. At 74 % of the copy's bandwidth
the DRAM is not the limit; this probe tests whether the L2 is.

The variants walk `rows` rows of one column of vec4s per invocation (consecutive invocations
take consecutive vec4s of a row, so loads stay coalesced): the row above and the row itself
are carried from the previous row, so each row of `a` crosses from L2 about (rows + 2) / rows
times. rows = 1 is the emitted shape written by hand. Each variant's interior cells are
compared with the emitted shader's (`same`); the first and last column of vectors include the
border cells, which the hand-written variants also write (the output's border is not checked).
"""

from __future__ import annotations

import json
import os

import numpy as np
import shader_variants as sv

import tistudio as ti

SIDE = int(os.environ.get("BENCH_SIDE", 8192))
REPS = 20
ROWS = (1, 2, 4, 8, 16)


def blocked(header: str, rows: int) -> str:
    """The stencil over `rows` rows per invocation (see the module docstring); `header` is the
    emitted shader's text up to its `@compute` (the binding of `tree0_v4f32`)."""
    q = SIDE // 4  # vec4s per row
    out = SIDE * SIDE // 4  # the vec4 index of b[0, 0] (b follows a in the tree)
    blocks = -(-(SIDE - 2) // rows)
    return (
        header
        + f"""
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {{
    for (var k: u32 = gid.x; k < {blocks * q}u; k = k + groups.x * 256u) {{
        let c = k % {q}u;
        let r0 = 1u + (k / {q}u) * {rows}u;
        var up = tree0_v4f32[(r0 - 1u) * {q}u + c];
        var mid = tree0_v4f32[r0 * {q}u + c];
        for (var t: u32 = 0u; t < {rows}u; t = t + 1u) {{
            let r = r0 + t;
            if (r > {SIDE - 2}u) {{
                break;
            }}
            let down = tree0_v4f32[(r + 1u) * {q}u + c];
            let left = tree0_v4f32[r * {q}u + max(c, 1u) - 1u];
            let right = tree0_v4f32[r * {q}u + min(c + 1u, {q - 1}u)];
            let l = vec4<f32>(left.w, mid.x, mid.y, mid.z);
            let rt = vec4<f32>(mid.y, mid.z, mid.w, right.x);
            tree0_v4f32[{out}u + r * {q}u + c] = 0.25f * (((up + down) + l) + rt);
            up = mid;
            mid = down;
        }}
    }}
}}
"""
    )


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    device = ti.lang.impl.get_program().gpu.device
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def init():
        for i, j in a:
            a[i, j] = (i * 3 + j) % 11

    @ti.kernel
    def step():
        for i, j in ti.ndrange((1, SIDE - 1), (1, SIDE - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    init()
    step()
    ti.sync()
    exe = step.compile_report().result.executable
    shader = exe.tasks[0][0]
    assert "tree0_v4f32" in shader.wgsl, "the emitted stencil is not a vec4 loop"
    header = shader.wgsl[: shader.wgsl.index("@compute")]
    groups = device.caps.max_groups
    variants = {"as emitted": (shader.wgsl, shader.groups)}
    variants |= {f"{r} rows per invocation": (blocked(header, r), groups) for r in ROWS}
    reference = None
    for label, (text, n) in variants.items():
        pipeline, group = sv.pipeline_for(device, exe, shader, text, False)
        b.fill(-1)
        device.dispatch(pipeline, group, b"", n)
        got = b.to_numpy()[1:-1, 1:-1]
        reference = got if reference is None else reference
        ms = sv.timed(device, pipeline, group, n, REPS)
        row = {"adapter": adapter, "probe": "stencil", "variant": label, "groups": n}
        row.update(ms=round(ms, 4), gbps=round(8 * SIDE * SIDE / ms / 1e6, 1))
        row["same"] = bool(np.array_equal(got, reference))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
