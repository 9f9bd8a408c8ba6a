"""The WebGPU back end end to end: arch selection, memory on the device, asynchronous launches,
ndarrays, returns, reductions, windows, and the readable WGSL of a compile report."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl


@pytest.fixture()
def gpu(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    yield device
    ti.reset()


def test_ti_gpu_selects_the_webgpu_adapter(gpu):
    """`ti.gpu` runs on the best adapter there is: Vulkan before the other back ends, a GPU
    before a CPU; whichever this machine's adapters are."""
    import wgpu

    assert impl.current_cfg().arch == "gpu"
    assert impl.current_adapter() == gpu.description
    chosen = gpu.adapter.info
    assert gpu.description == f"{chosen['backend_type']}: {chosen['device']}"
    others = [a.info for a in wgpu.gpu.enumerate_adapters_sync()]
    if any(info["backend_type"] == "Vulkan" for info in others):
        assert chosen["backend_type"] == "Vulkan"  # Vulkan is preferred to OpenGL
    kinds = {info["adapter_type"] for info in others if info["backend_type"] == "Vulkan"}
    if chosen["backend_type"] == "Vulkan" and kinds & {"DiscreteGPU", "IntegratedGPU"}:
        assert chosen["adapter_type"] != "CPU"  # a GPU before lavapipe


def test_without_wgpu_ti_gpu_falls_back_with_a_warning_or_fails_when_asked():
    script = textwrap.dedent("""
        import sys, warnings
        sys.modules["wgpu"] = None  # as if wgpu were not installed: no adapter
        import tistudio as ti
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ti.init(arch=ti.vulkan)
        print(ti.lang.impl.current_cfg().arch, "falling back" in str(caught[0].message))
        try:
            ti.init(arch=ti.webgpu, fallback_to_cpu=False)
        except RuntimeError as e:
            print("error:", e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.splitlines() == [
        "cpu True",
        "error: ti.gpu: no WebGPU adapter (wgpu is not installed (import of wgpu halted; "
        "None in sys.modules))",
    ]


def test_launches_are_batched_until_the_host_reads(gpu):
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def bump():
        for i in x:
            x[i] += 1

    bump()  # the first launch uploads nothing (the tree is zero on both sides)
    before = gpu.submits
    for _ in range(10):
        bump()
    assert gpu.submits == before  # recorded, not submitted
    assert (x.to_numpy() == 11).all()  # the read submits and waits
    assert gpu.submits == before + 1


def test_host_writes_reach_the_device_and_device_writes_the_host(gpu):
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def double():
        for i in x:
            y[i] = x[i] * 2

    x.from_numpy(np.arange(8, dtype=np.float32))
    double()
    assert y[3] == 6.0
    x[3] = 100.0  # a Python-scope write after a launch
    x.fill(1.0)
    x[2] = 5.0
    double()
    assert y.to_numpy().tolist() == [2, 2, 10, 2, 2, 2, 2, 2]
    ti.sync()


def test_ndarrays_upload_and_write_back(gpu):
    @ti.kernel
    def axpy(a: ti.f32, x: ti.types.ndarray(ti.f32, ndim=2), y: ti.types.ndarray(ti.f32, ndim=2)):
        for i, j in ti.ndrange(x.shape[0], x.shape[1]):
            y[i, j] += a * x[i, j]

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.ones((3, 4), np.float32)
    axpy(2.0, x, y)
    np.testing.assert_array_equal(y, 1 + 2 * x)
    axpy(1.0, x[:2].copy(), y[:2].copy())  # another shape reuses the kernel


def test_returns_of_several_types(gpu):
    @ti.kernel
    def values(a: ti.i8, b: ti.f64) -> (ti.i8, ti.f64, ti.u1):
        return a * 2, b / 3, a > 0

    assert tuple(values(100, 1.0)) == (-56, 1.0 / 3, True)


def test_reduction_beyond_65535_workgroups(device):
    """A range of more workgroups than one dispatch may have (the adapter's
    `max-compute-workgroups-per-dimension`, 65535 everywhere we run) strides over the grid:
    every index runs exactly once, with the dispatch as large as the adapter allows."""
    limit = device.adapter.limits["max-compute-workgroups-per-dimension"]
    widest = GpuDevice(device.adapter, device.device, replace(device.caps, max_groups=limit))
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    impl.get_program().use_gpu(widest)
    n = limit * device.caps.workgroup_size + 1000  # more than `limit` workgroups' worth
    total = ti.field(ti.i32, shape=())
    top = ti.field(ti.f32, shape=())
    seen = ti.field(ti.i32, shape=n)

    @ti.kernel
    def count():
        for i in range(n):
            total[None] += 1
            ti.atomic_max(top[None], ti.cast(i % 1000, ti.f32))
            seen[i] += i % 7 + 1  # twice would double it, never would leave 0

    count()
    assert total[None] == n and top[None] == 999.0
    np.testing.assert_array_equal(seen.to_numpy(), np.arange(n, dtype=np.int32) % 7 + 1)
    wgsl = count.compile_report().wgsl
    assert "var<workgroup> reduce_i32" in wgsl and "workgroupBarrier();" in wgsl
    ti.reset()


def test_trees_beyond_the_binding_limit_are_bound_as_windows(device):
    small = GpuDevice(device.adapter, device.device, replace(device.caps, window_bytes=1024))
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(small)
    x = ti.field(ti.i32, shape=1000)  # 4000 bytes: four windows
    y = ti.field(ti.u8, shape=1000)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 3
            y[i] = i % 251

    fill()
    assert "tree0_v4i32_w3" in fill.compile_report().wgsl  # x's vec4 view, fourth window
    np.testing.assert_array_equal(x.to_numpy(), np.arange(1000) * 3)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(1000) % 251)
    ti.reset()


def test_f64_on_an_adapter_without_it_names_the_type_and_line(device):
    no_f64 = GpuDevice.open(disable=frozenset({"shader-f64"}))
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(no_f64)
    x = ti.field(ti.f64, shape=4)

    @ti.kernel
    def halve():
        for i in x:
            x[i] = x[i] * 0.5

    with pytest.raises(UnsupportedOnBackend) as caught:
        halve()
    message = str(caught.value)
    assert "f64 needs the adapter feature shader-f64" in message
    assert "test_runtime.py" in message and "x[i] = x[i] * 0.5" in message
    ti.reset()


def test_wgsl_is_readable(gpu):
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def square():
        for i in x:
            x[i] = x[i] * x[i]

    report = square.compile_report()
    assert "// test_runtime.py:" in report.wgsl and "x[i] = x[i] * x[i]" in report.wgsl
    assert report.result.executable.wgsl == report.wgsl
