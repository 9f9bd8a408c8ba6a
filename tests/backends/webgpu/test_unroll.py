"""Serial loops unrolled by four (unroll.py), workgroups of 64 for small ranges (shader.py) and
shader modules without naga's runtime checks (device.py): the WGSL has the new shape, and every
kernel computes what the CPU back end computes, for constant and run-time bounds, trip counts
that are and are not multiples of four, empty ranges, and loops that must keep
their shape."""

from __future__ import annotations

import numpy as np

import tistudio as ti

N = 8


def run(arch: str, lo: int, hi: int) -> dict[str, np.ndarray]:
    # without fast_math: the GPU's sqrt is then rounded as the CPU's (with it, the driver's,
    # which NVIDIA's gives within WGSL's 2.5 ulp), so the unrolled loops must give its bits
    ti.init(arch=getattr(ti, arch), fallback_to_cpu=False, fast_math=False)
    out = {name: ti.field(ti.f32, shape=N) for name in ("const", "rest", "dyn", "rev", "brk")}
    steps = ti.field(ti.i32, shape=N)

    @ti.kernel
    def loops(lo: ti.i32, hi: ti.i32):
        for i in range(N):
            a, b, c, d = 0.0, 0.0, 0.0, 0.0
            for j in range(40):  # 40 trips: four per step, no rest
                a = a * 0.5 + j * i
            for j in range(3, 26):  # 23 trips: five steps, then three
                b += ti.sqrt(j + i * 1.0) * (j % 3 - 1)
            for j in range(lo + i, hi):  # run-time bounds, empty for some i
                c = c * 0.9 + j
                steps[i] += 1
            for j in range(i, 2 * i):  # at most 7 trips, with a nested loop: not unrolled
                for m in range(5):
                    d = d * 0.5 + j * m
            out["const"][i] = a
            out["rest"][i] = b
            out["dyn"][i] = c
            out["rev"][i] = d
            e = 0.0
            for j in range(30):  # a break: not unrolled
                if j > i * 3:
                    break
                e += j
            out["brk"][i] = e

    loops(lo, hi)
    got = {name: f.to_numpy() for name, f in out.items()}
    got["steps"] = steps.to_numpy()
    wgsl = loops.compile_report(lo, hi).wgsl if arch == "gpu" else ""
    ti.reset()
    return got | {"wgsl": wgsl}


def test_unrolled_loops_give_the_cpu_back_ends_results(device):
    for lo, hi in ((-5, 9), (0, 0), (4, 7), (-100, -90)):
        gpu, cpu = run("gpu", lo, hi), run("cpu", lo, hi)
        for name in cpu:
            if name != "wgsl":
                np.testing.assert_array_equal(gpu[name], cpu[name], err_msg=f"{name} {lo} {hi}")
    wgsl = gpu["wgsl"]
    assert wgsl.count("+= 4i) {") == 3  # the constant, the rest and the run-time loop
    assert "{ let " in wgsl and wgsl.count("+= 1i) {") == 2  # rest loops: 23 trips, run-time
    assert "@workgroup_size(64)" in wgsl and "groups.x * 64u" in wgsl  # 8 invocations


def test_a_large_range_keeps_workgroups_of_256(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=4 * 256 * 128)  # vec4 steps: 128 workgroups of 256

    @ti.kernel
    def fill(n: ti.i32):
        for i in x:
            x[i] = i

        for i in range(n):  # bounds known only at run time
            x[i] += 1.0

    wgsl = fill.compile_report(5).wgsl
    assert wgsl.count("@workgroup_size(256)") == 2, wgsl
    fill(5)
    assert x[4] == 5.0 and x[5] == 5.0
    ti.reset()


def test_a_long_body_keeps_its_loop(device):
    """A body of more than unroll.MAX_LINES lines is emitted once, in the plain loop."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def long_body():
        for i in x:
            acc = 0.0
            for j in range(16):
                for k in ti.static(range(60)):
                    acc += (j * k + i) % 5
            x[i] = acc

    long_body()
    want = [sum((j * k + i) % 5 for j in range(16) for k in range(60)) for i in range(4)]
    assert x.to_numpy().tolist() == want
    assert "+= 4i) {" not in long_body.compile_report().wgsl
    ti.reset()


def test_a_small_range_reduces_in_workgroups_of_64(device):
    """The workgroup tree of a reduction follows the task's workgroup size (64 here)."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=1000)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill_and_sum():
        for i in x:
            x[i] = i % 7
        for i in x:
            total[None] += x[i]

    fill_and_sum()
    assert total[None] == float(sum(i % 7 for i in range(1000)))
    wgsl = fill_and_sum.compile_report().wgsl
    assert "array<f32, 64>" in wgsl and "var step = 32u" in wgsl, wgsl
    ti.reset()


def test_shader_modules_skip_nagas_runtime_checks_unless_asked(device):
    from tistudio.backends.webgpu.device import GpuDevice

    fresh = GpuDevice(device.adapter, device.device, device.caps)
    assert fresh.runtime_checks is False
    text = "@compute @workgroup_size(1) fn main() {}"
    assert fresh.shader_module(text) is not None
    fresh.runtime_checks = True
    assert fresh.shader_module(text) is not None
