"""Time the memory-bound cases of bench.py (sum, saxpy, the struct-for stencil) with other grids
and with their vec4 grid-stride loop unrolled: what an H200 needs that an H100 did not.

    python benchmarks/gpu/memory_probe.py        # one JSON row per (case, variant)

Each case is compiled by tistudio as bench.py runs it (vec4 steps on); the probe then times its
shader, unchanged, at other numbers of workgroups (the loop strides by `groups.x`, so only the
dispatch changes), and rewritten so that each step of the `k4` loop takes `factor` vec4 steps
`stride` apart (more loads in flight per invocation; each copy of the body in its own block).
Every variant's result is checked against the case's expected values after the timings.
"""

import json
import os
import re

import numpy as np
import shader_variants as sv

import tistudio as ti

N = int(os.environ.get("BENCH_N", 100_000_000))
SIDE = int(os.environ.get("BENCH_SIDE", 8192))
REPS = 20
GROUPS = (1024, 2048, 4096, 8192, 16384, 32768, 65535)
FACTORS = (1, 2, 4)
K4 = re.compile(r"for \(var k4: u32 = gid\.x; k4 < (\d+)u; k4 = k4 \+ groups\.x \* (\d+)u\) \{")


def unroll_k4(text: str, factor: int) -> str:
    """The vec4 grid-stride loop taking `factor` steps `stride` apart per iteration."""
    m = K4.search(text)
    assert m, "no vec4 loop"
    return text if factor == 1 else sv.unroll_strided(text, m[0], "k4", f"{m[1]}u", factor)


def cases():  # noqa: C901 - one closure per case, read together
    """(name, executable, bytes moved, reset, check) per case."""
    x = ti.field(ti.f32, shape=N)
    y = ti.field(ti.f32, shape=N)
    total = ti.field(ti.f32, shape=())
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i % 7
            y[i] = 1.0
        for i, j in a:
            a[i, j] = (i * 3 + j) % 11

    @ti.kernel
    def saxpy(k: ti.f32):
        for i in x:
            y[i] = k * x[i] + y[i]

    @ti.kernel
    def sum_x():
        for i in x:
            total[None] += x[i]

    @ti.kernel
    def stencil():
        for i, j in b:
            if 0 < i < SIDE - 1 and 0 < j < SIDE - 1:
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    fill()
    saxpy(0.0)
    sum_x()
    stencil()
    ti.sync()
    exact = float(np.sum(np.arange(N, dtype=np.int64) % 7))
    want = b.to_numpy()

    def sum_ok() -> bool:
        return abs(total[None] / exact - 1) < 1e-3

    def saxpy_ok() -> bool:  # k = 0: y stays 1
        return bool(np.all(y.to_numpy()[:1000] == 1.0))

    def stencil_ok() -> bool:
        return bool(np.array_equal(b.to_numpy(), want))

    def reset_total() -> None:
        total[None] = 0.0

    def reset_b() -> None:
        b.fill(0)

    exe = lambda k: k.instances()[0].result.executable  # noqa: E731
    return [
        ("sum 100M f32", exe(sum_x), 4 * N, reset_total, sum_ok),
        ("saxpy 100M f32 (a = 0)", exe(saxpy), 12 * N, lambda: None, saxpy_ok),
        ("stencil 8192x8192 f32 (struct-for)", exe(stencil), 8 * SIDE * SIDE, reset_b, stencil_ok),
    ]


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    program = ti.lang.impl.get_program()
    memory = program.gpu
    device = memory.device
    adapter = device.caps.description
    for name, exe, nbytes, reset, ok in cases():
        assert len(exe.tasks) == 1, f"{name}: one task expected"
        shader = exe.tasks[0][0]
        immediates = bytes(exe.args.size)  # saxpy's a = 0.0; the others take none
        trees = range(len(memory.trees))
        for factor in FACTORS:
            text = unroll_k4(shader.wgsl, factor)
            pipeline, group = sv.pipeline_for(device, exe, shader, text, checks=False)
            for groups in GROUPS:
                ms = timed(device, pipeline, group, groups, immediates)
                row = {"adapter": adapter, "case": name, "factor": factor, "groups": groups}
                row.update(ms=round(ms, 4), gbps=round(nbytes / ms / 1e6, 1))
                reset()
                memory.before_launch(trees)  # the reset, uploaded
                device.dispatch(pipeline, group, immediates, groups)
                memory.after_launch(trees)  # reads fetch the device's copy
                row["check"] = ok()
                print(json.dumps(row), flush=True)


def timed(device, pipeline, group, groups: int, immediates: bytes) -> float:
    for _ in range(3):
        device.dispatch(pipeline, group, immediates, groups)
    device.sync()
    start = __import__("time").perf_counter()
    for _ in range(REPS):
        device.dispatch(pipeline, group, immediates, groups)
    device.sync()
    return (__import__("time").perf_counter() - start) / REPS * 1e3


if __name__ == "__main__":
    main()
