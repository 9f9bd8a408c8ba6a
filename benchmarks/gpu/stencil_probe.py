"""Why is the `ti.ndrange` stencil slow on NVIDIA's Vulkan driver? Time WGSL variants of it.

    python benchmarks/gpu/stencil_probe.py        # one JSON row per variant

The ndrange stencil's shader differs from the struct-for one only in how `(i, j)` comes from
the flat loop index: a signed division and remainder by the interior width (8190). This probe
compiles the stencil with tistudio, rewrites only those two lines of its WGSL in several ways
(signed, unsigned, remainder as `k - q * n`, a shift/mask stand-in that computes wrong indices
but moves the same bytes), and times each shader on the same buffers, next to the struct-for
kernel's shader and the row-loop shape ndrange had before the fix (a serial loop over a row
per invocation; `passes/ndrange.py`). Each variant: 3 warm-up dispatches, then `REPS`
dispatches and one sync.
"""

import json
import re
import sys
import time

import tistudio as ti
from tistudio.passes import ndrange

SIDE = int(__import__("os").environ.get("BENCH_SIDE", 8192))
REPS = 20


def kernels():
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = ti.field(ti.f32, shape=(SIDE, SIDE))

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
    """The ndrange shader with its division and remainder lines written in other ways."""
    n = SIDE - 2
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


def timed(device, pipeline, group, groups: int) -> float:
    for _ in range(3):
        device.dispatch(pipeline, group, b"", groups)
    device.sync()
    start = time.perf_counter()
    for _ in range(REPS):
        device.dispatch(pipeline, group, b"", groups)
    device.sync()
    return (time.perf_counter() - start) / REPS * 1e3


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    step, struct_for, rows = kernels()
    device = ti.lang.impl.get_program().gpu.device
    cases = (("ndrange", step), ("struct-for", struct_for), ("row loop (before)", rows))
    for name, kernel in cases:
        exe = kernel.instances()[0].result.executable if name.startswith("row") else None
        exe = exe or kernel.compile_report().result.executable
        shader = exe.tasks[0][0]
        texts = variants(shader.wgsl) if name == "ndrange" else {name: shader.wgsl}
        for label, text in texts.items():
            pipeline, layout = device.pipeline(text, shader.bindings, exe.args.size)
            group = exe._bind_group(0, shader, layout, {})
            ms = timed(device, pipeline, group, shader.groups)
            row = {"adapter": adapter, "variant": label, "ms": round(ms, 4)}
            row["gbps"] = round(8 * SIDE * SIDE / ms / 1e6, 1)
            print(json.dumps(row), flush=True)
            if "-v" in sys.argv:
                print(text)


if __name__ == "__main__":
    main()
