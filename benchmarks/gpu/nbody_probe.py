"""n-body on the GPU: where the time of bench.py's two kernels goes, by WGSL variants.

    python benchmarks/gpu/nbody_probe.py        # one JSON row per variant

With 8192 bodies the plain kernel has 8192 invocations and the tiled one 64 workgroups of 128:
a few warps per SM, each walking all 8192 bodies in a serial loop, so the time is the latency
of one iteration's chain, not throughput. The variants rewrite the shaders as emitted now
(fast_math, products contracted): the division `1 / (r2 * sqrt(r2))` without its IEEE
spelling (zero-divisor test, hidden divisor), as `inverseSqrt(r2)` cubed, and, for the plain
kernel, hand-written shaders that split each body's loop over `K` invocations and add their
partial forces in workgroup memory (what `passes/split_reductions.py` does), with the division
spelled each way that `ieee._division` combines (`SPLIT_DIVISIONS`). Each variant's
velocities after one launch are compared with the emitted shader's (`max_rel_diff`).
"""

from __future__ import annotations

import json
import os
import re

import bench
import numpy as np
import shader_variants as sv

import tistudio as ti

BODIES = int(os.environ.get("BENCH_BODIES", 8192))
TILE = 128
REPS = 10
_DIVISION = re.compile(r"let (s\d+): f32 = select\(c\d+ / select\((s\d+), 0\.0f, ti_never\), .*\n")
_ROOT = re.compile(r"let (s\d+): f32 = sqrt\((s\d+)\);\s*let (s\d+): f32 = \(\2 \* \1\);\s*")


def plain_division(text: str) -> str:
    """`1 / x` as WGSL's division, without the zero-divisor test and the hidden divisor."""
    out, n = _DIVISION.subn(lambda m: f"let {m[1]}: f32 = (1.0f / {m[2]});\n", text)
    assert n, "no division in the shader"
    return out


def inverse_sqrt(text: str) -> str:
    """`1 / (r2 * sqrt(r2))` as `inverseSqrt(r2)` cubed."""
    text = plain_division(text)
    m = _ROOT.search(text)
    assert m, "no r2 * sqrt(r2) in the shader"
    div = re.search(rf"let (s\d+): f32 = \(1\.0f / {m[3]}\);", text)
    head = f"let {m[1]}: f32 = inverseSqrt({m[2]});\nlet {m[3]}: f32 = {m[1]};\n"
    text = text.replace(m[0], head)
    return text.replace(div[0], f"let {div[1]}: f32 = {m[1]} * {m[1]} * {m[1]};")


# the division `1 / q` of the split shaders, as spelled (ieee._division's parts one by one)
SPLIT_DIVISIONS = {
    "plain division": "1.0f / q",
    "zero test on the bits": (
        "select(1.0f / q, bitcast<f32>((bitcast<u32>(q) & 0x80000000u) | 0x7f800000u), "
        "(bitcast<u32>(q) & 0x7fffffffu) == 0u)"
    ),
    "zero test as a float compare": (
        "select(1.0f / q, bitcast<f32>((bitcast<u32>(q) & 0x80000000u) | 0x7f800000u), q == 0.0f)"
    ),
    "hidden divisor": "1.0f / select(q, 0.0f, ti_never)",
    "opaque numerator": "select(1.0f, 0.0f, ti_never) / q",
    "as emitted (opaque 1, hidden divisor, zero test)": (
        "select(one / select(q, 0.0f, ti_never), select(bitcast<f32>(((bitcast<u32>(one) ^ "
        "bitcast<u32>(q)) & 0x80000000u) | 0x7f800000u), bitcast<f32>((2143289344u ^ "
        "(ti_zero << 23u))), (((bitcast<u32>(one) & ~0x80000000u) == 0u) || nan_f32(one))), "
        "((bitcast<u32>(q) & ~0x80000000u) == 0u))"
    ),
}


def split_shader(header: str, lanes: int, division: str) -> str:
    """The plain kernel as `lanes` invocations per body (workgroups of 256), each taking every
    `lanes`-th body, partial forces added in workgroup memory; `1 / q` spelled `division`.
    Fields px..vz are consecutive arrays of BODIES f32 in tree0_f32 (as bench.py allocates
    them); `header` is the emitted shader's text up to its `main` (bindings and helpers)."""
    n = BODIES
    body = f"""
var<workgroup> partial: array<vec3<f32>, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) groups: vec3<u32>) {{
    ti_never = groups.y == 0u;
    ti_zero = groups.y - 1u;
    let one = select(1.0f, 0.0f, ti_never);
    let i = gid.x / {lanes}u;
    let lane = gid.x % {lanes}u;
    let xi = tree0_f32[i];
    let yi = tree0_f32[{n}u + i];
    let zi = tree0_f32[{2 * n}u + i];
    var a = vec3<f32>(0.0f);
    for (var j: u32 = lane; j < {n}u; j = j + {lanes}u) {{
        let dx = tree0_f32[j] - xi;
        let dy = tree0_f32[{n}u + j] - yi;
        let dz = tree0_f32[{2 * n}u + j] - zi;
        let r2 = dx * dx + dy * dy + dz * dz + 0.01f;
        let q = r2 * sqrt(r2);
        let inv = {division};
        a = a + vec3<f32>(dx, dy, dz) * inv;
    }}
    partial[lid] = a;
    workgroupBarrier();
    for (var s: u32 = {lanes // 2}u; s > 0u; s = s >> 1u) {{
        if (lane < s) {{
            partial[lid] = partial[lid] + partial[lid + s];
        }}
        workgroupBarrier();
    }}
    if (lane == 0u) {{
        let f = partial[lid] * 0.001f;
        tree0_f32[{3 * n}u + i] = tree0_f32[{3 * n}u + i] + f.x;
        tree0_f32[{4 * n}u + i] = tree0_f32[{4 * n}u + i] + f.y;
        tree0_f32[{5 * n}u + i] = tree0_f32[{5 * n}u + i] + f.z;
    }}
}}
"""
    return header + body


_HIDDEN_DIVISOR = re.compile(r"(c\d+) / select\((s\d+), 0\.0f, ti_never\)")


def divisor_shown(text: str) -> str:
    """The emitted division with its divisor not hidden behind `select(.., ti_never)`."""
    out, n = _HIDDEN_DIVISOR.subn(lambda m: f"{m[1]} / {m[2]}", text)
    assert n
    return out


def literal_numerator(text: str) -> str:
    """The emitted division of the opaque 1.0 constant by a literal 1.0f (the rest kept)."""
    out, n = _HIDDEN_DIVISOR.subn(lambda m: f"1.0f / select({m[2]}, 0.0f, ti_never)", text)
    assert n
    return out


def groups_of(text: str) -> int:
    """Workgroups the emitted shader needs: one per tile (tiled) or per `size` bodies."""
    tiles = re.search(r"tile < (\d+)u", text)
    if tiles:
        return int(tiles[1])
    size = int(re.search(r"@workgroup_size\((\d+)\)", text)[1])
    return -(-BODIES // size)


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    device = ti.lang.impl.get_program().gpu.device
    init, forces, forces_tiled, vx = bench.nbody_kernels(ti, BODIES, TILE)
    init()
    reference = None
    for name, kernel in (("plain", forces), ("tiled", forces_tiled)):
        kernel()
        ti.sync()
        exe = kernel.compile_report().result.executable
        shader = exe.tasks[0][0]
        text = shader.wgsl
        variants = {
            "as emitted": (text, groups_of(text)),
            "division's divisor not hidden": (divisor_shown(text), groups_of(text)),
            "division's numerator a literal 1.0f": (literal_numerator(text), groups_of(text)),
            "plain division": (plain_division(text), groups_of(text)),
            "inverseSqrt cubed": (inverse_sqrt(text), groups_of(text)),
        }
        if name == "plain":
            header = text[: text.index("@compute")]
            for lanes in (16, 32):
                groups = BODIES * lanes // 256
                for spelling, division in SPLIT_DIVISIONS.items():
                    label = f"split over {lanes} lanes, {spelling}"
                    variants[label] = (split_shader(header, lanes, division), groups)
        for label, (variant, groups) in variants.items():
            pipeline, group = sv.pipeline_for(device, exe, shader, variant, False)
            vx.fill(0)
            device.dispatch(pipeline, group, b"", groups)
            got = vx.to_numpy()
            reference = got if reference is None else reference
            ms = sv.timed(device, pipeline, group, groups, REPS)
            row = {"adapter": adapter, "probe": f"n-body {name}", "variant": label}
            row.update(ms=round(ms, 4), gpairs=round(BODIES * BODIES / ms / 1e6, 1))
            diff = np.abs(got - reference) / (np.abs(reference) + 1e-6)
            row["max_rel_diff"] = float(np.max(diff))
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
