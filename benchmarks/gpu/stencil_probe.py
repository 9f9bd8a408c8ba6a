"""Time WGSL variants of the two stencils of bench.py on the GPU (why is one slow, what helps).

    python benchmarks/gpu/stencil_probe.py        # one JSON row per variant

The ndrange stencil's shader differs from the struct-for one only in how `(i, j)` comes from
the flat loop index: a signed division and remainder by the interior width (8190). This probe
compiles the stencil with tistudio, rewrites only those two lines of its WGSL in several ways
(signed, unsigned, remainder as `k - q * n`, a shift/mask stand-in that computes wrong indices
but moves the same bytes), and times each shader on the same buffers, next to the struct-for
kernel's shader and the row-loop shape ndrange had before the fix (a serial loop over a row
per invocation; `passes/ndrange.py`). Both stencils also get the variants of `extra`: naga's
runtime checks off, other workgroup sizes, the grid-stride loop unrolled, four consecutive
cells per invocation, addresses in 4-byte words instead of bytes (`shader_variants.py`).
The shaders are the scalar ones (`Caps.vectorize` off): the vec4 steps that now serve both
stencils are timed by `bench.py`. Each variant: 3 warm-up dispatches, then `REPS`
dispatches and one sync; after all timings, each variant's output is compared with the first.
"""

import json
import re
import sys
from dataclasses import replace

import numpy as np
import shader_variants as sv

import tistudio as ti
from tistudio.passes import ndrange

SIDE = int(__import__("os").environ.get("BENCH_SIDE", 8192))
REPS = 20
B = None  # the output field, for the checks


def kernels():
    global B
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = B = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def step():
        for i, j in ti.ndrange((1, SIDE - 1), (1, SIDE - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    @ti.kernel
    def step_struct_for():
        for i, j in b:
            if 0 < i < SIDE - 1 and 0 < j < SIDE - 1:
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    @ti.kernel
    def step_rows():
        for i, j in ti.ndrange((1, SIDE - 1), (1, SIDE - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    @ti.kernel
    def init():
        for i, j in a:
            a[i, j] = (i * 3 + j) % 11

    init()
    step()
    step_struct_for()
    arches = ndrange.ROW_LOOP_ARCHES
    ndrange.ROW_LOOP_ARCHES = frozenset({"cpu", "gpu"})  # the shape before the fix
    try:
        step_rows()
    finally:
        ndrange.ROW_LOOP_ARCHES = arches
    ti.sync()
    return step, step_struct_for, step_rows


def variants(text: str) -> dict[str, str]:
    """The ndrange shader with its division and remainder lines written in other ways (the GPU
    widens a long last axis to a multiple of 4 from column 0: 8192 columns, not 8190)."""
    n = SIDE - 2
    if n >= ndrange.MIN_PADDED:
        n = -(-(SIDE - 1) // ndrange.PAD) * ndrange.PAD
    rem = re.search(rf"let (s\d+): i32 = \((s\d+) % {n}i\);", text)
    div = re.search(rf"let (s\d+): i32 = \((s\d+) / {n}i\);", text)
    assert rem and div, text
    r, x = rem[1], rem[2]
    q = div[1]

    def swap(rem_expr: str, div_expr: str) -> str:
        out = text.replace(rem[0], f"let {r}: i32 = {rem_expr};")
        return out.replace(div[0], f"let {q}: i32 = {div_expr};")

    return {
        "i32 div+rem (as emitted)": text,
        "u32 div+rem": swap(f"i32(u32({x}) % {n}u)", f"i32(u32({x}) / {n}u)"),
        "i32 div, rem = k - q*n": text.replace(rem[0], "").replace(
            div[0], f"{div[0]}\n        let {r}: i32 = {x} - {q} * {n}i;"
        ),
        "u32 div, rem = k - q*n": text.replace(rem[0], "").replace(
            div[0],
            f"let {q}: i32 = i32(u32({x}) / {n}u);\n        let {r}: i32 = {x} - {q} * {n}i;",
        ),
        "shift/mask stand-in (wrong indices)": swap(f"({x} & 8191i)", f"({x} >> 13u)"),
    }


def extra(text: str) -> dict[str, tuple[str, bool, int]]:
    """Variants of a shader for faster memory-bound loops: naga's runtime checks off, other
    workgroup sizes, the grid-stride loop unrolled. name: (text, checks, workgroup size)"""
    out = {"no runtime checks": (text, False, 256)}
    for size in (64, 128, 512):
        out[f"wg {size}, no checks"] = (sv.workgroup_size(text, size), False, size)
    for factor in (2, 4):
        out[f"grid unroll {factor}"] = (sv.unroll_grid(text, factor), True, 256)
        out[f"grid unroll {factor}, no checks"] = (sv.unroll_grid(text, factor), False, 256)
    out["4 consecutive cells, no checks"] = (sv.unroll_contiguous(text, 4), False, 256)
    out["word indices, no checks"] = (sv.word_indices(text), False, 256)
    out["word indices, grid unroll 2, no checks"] = (
        sv.unroll_grid(sv.word_indices(text), 2),
        False,
        256,
    )
    out["grid unroll 2, wg 128, no checks"] = (
        sv.workgroup_size(sv.unroll_grid(text, 2), 128),
        False,
        128,
    )
    return out


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.get_program().gpu.device.description
    device = ti.lang.impl.get_program().gpu.device
    # the scalar shaders these rewrites expect (vec4 steps are measured by bench.py), and
    # workgroups of 256 at small sides
    device.caps = replace(device.caps, small_group=device.caps.workgroup_size, vectorize=False)
    step, struct_for, rows = kernels()
    cases = (("ndrange", step), ("struct-for", struct_for), ("row loop (before)", rows))
    for name, kernel in cases:
        exe = kernel.instances()[0].result.executable if name.startswith("row") else None
        exe = exe or kernel.compile_report().result.executable
        shader = exe.tasks[0][0]
        texts = variants(shader.wgsl) if name == "ndrange" else {name: shader.wgsl}
        texts = {label: (text, True, 256) for label, text in texts.items()}
        if not name.startswith("row"):
            texts.update({f"{name}, {k}": v for k, v in extra(shader.wgsl).items()})
        built = {}
        for label, (text, checks, size) in texts.items():
            pipeline, group = sv.pipeline_for(device, exe, shader, text, checks)
            groups = shader.groups * 256 // size
            ms = sv.timed(device, pipeline, group, groups, REPS)
            built[label] = (pipeline, group, groups)
            row = {"adapter": adapter, "variant": label, "ms": round(ms, 4)}
            row["gbps"] = round(8 * SIDE * SIDE / ms / 1e6, 1)
            print(json.dumps(row), flush=True)
            if "-v" in sys.argv:
                print(text)
        check(device, built)


def check(device, built: dict) -> None:
    """After the timings (a 256 MB read-back between them seemed to slow the next ones): each
    variant's output against the first variant's."""
    reference = None
    for label, (pipeline, group, groups) in built.items():
        B.fill(0)
        device.dispatch(pipeline, group, b"", groups)
        got = B.to_numpy()
        reference = got if reference is None else reference
        same = bool(np.array_equal(got, reference)) or "wrong" in label
        print(json.dumps({"variant": label, "same": same}), flush=True)


if __name__ == "__main__":
    main()
