"""Scalar arguments in a uniform buffer when immediates cannot carry them.

Immediates (`var<immediate>`) are an optional wgpu feature limited to `max-immediate-size`
bytes (128 on lavapipe, 256 on NVIDIA). A kernel whose scalar arguments and ndarray extents
exceed that, or any kernel on an adapter without the feature, gets the same `Args` struct as a
uniform buffer, written before the launch whenever the arguments changed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl


def test_many_scalar_arguments_travel_in_a_uniform_buffer(device):
    if not device.caps.has("shader-f64"):
        pytest.skip("the adapter has no shader-f64 (the test's arguments are f64)")
    # 20 f64 arguments, 160 bytes: more than the adapter's immediates hold (lavapipe 128, NVIDIA
    # 256: this device says it holds 128, whatever the adapter's limit)
    small = GpuDevice(device.adapter, device.device, replace(device.caps, max_immediate_size=128))
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    impl.get_program().use_gpu(small)
    out = ti.field(ti.f64, shape=20)

    @ti.kernel
    def spread(
        a0: ti.f64, a1: ti.f64, a2: ti.f64, a3: ti.f64, a4: ti.f64,
        a5: ti.f64, a6: ti.f64, a7: ti.f64, a8: ti.f64, a9: ti.f64,
        b0: ti.f64, b1: ti.f64, b2: ti.f64, b3: ti.f64, b4: ti.f64,
        b5: ti.f64, b6: ti.f64, b7: ti.f64, b8: ti.f64, b9: ti.f64,
    ):  # fmt: skip
        for _i in range(1):
            out[0], out[1], out[2], out[3], out[4] = a0, a1, a2, a3, a4
            out[5], out[6], out[7], out[8], out[9] = a5, a6, a7, a8, a9
            out[10], out[11], out[12], out[13], out[14] = b0, b1, b2, b3, b4
            out[15], out[16], out[17], out[18], out[19] = b5, b6, b7, b8, b9

    values = [k * 1.5 - 7 for k in range(20)]
    spread(*values)
    np.testing.assert_array_equal(out.to_numpy(), values)
    values = values[::-1]
    spread(*values)  # new values: the uniform buffer is written again
    np.testing.assert_array_equal(out.to_numpy(), values)
    wgsl = spread.compile_report(*values).wgsl
    assert "var<uniform> args: Args;" in wgsl and "var<immediate>" not in wgsl
    ti.reset()


def test_without_immediates_launches_see_their_own_arguments(device):
    no_immediates = GpuDevice.open(disable=frozenset({"immediates"}))
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(no_immediates)
    x = ti.field(ti.i32, shape=300)

    @ti.kernel
    def add(k: ti.i32, arr: ti.types.ndarray()):
        for i in x:
            x[i] += k * arr[i % arr.shape[0]]

    before = no_immediates.submits
    ones = np.ones(3, np.int32)
    for k in range(1, 11):  # each launch a different k: each in its own uniform write
        add(k, ones)
    add(10, ones)  # the same arguments again: no write is needed
    assert (x.to_numpy() == 65).all()
    assert no_immediates.submits > before
    wgsl = add.compile_report(1, ones).wgsl
    assert "@binding(2) var<uniform> args: Args;" in wgsl  # after tree0 and the ndarray
    assert "args.a1_shape0" in wgsl
    ti.reset()


def test_small_arguments_stay_immediates(device):
    if not device.caps.has("immediates") or device.caps.max_immediate_size < 4:
        pytest.skip("the adapter has no immediates (lavapipe and NVIDIA have them)")
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v

    fill(2.5)
    assert (x.to_numpy() == 2.5).all()
    wgsl = fill.compile_report(2.5).wgsl
    assert "var<immediate> args: Args;" in wgsl and "var<uniform>" not in wgsl
    ti.reset()
