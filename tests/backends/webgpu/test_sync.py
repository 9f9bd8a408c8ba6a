"""`ti.sync()` on the GPU returns once every launch has run, whether it spins or sleeps.

`GpuDevice.sync` polls wgpu-native without blocking for up to `spin_s` before it blocks
(device.py). The first version read the poll's answer as a whole 32-bit word whose upper
bytes are garbage, so it took every answer for "done" and `sync` returned while the GPU was
still running (the H200 then showed saxpy above the copy's bandwidth); these tests hold a
slow kernel against both ways of waiting.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl

N = 4096


@pytest.fixture
def slow_kernel(device):
    """A kernel that keeps lavapipe busy for tens of milliseconds, and the program's device."""
    ti.init(arch=ti.gpu, offline_cache=False, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=N)

    @ti.kernel
    def slow():
        for i in x:
            acc = 0.0
            for j in range(20000):  # under lavapipe's 65,535 iterations per invocation
                acc += ti.sin(acc + j)
            x[i] = acc

    slow()
    ti.sync()
    return slow, x, impl.get_program().gpu.device


def test_idle_is_false_while_a_kernel_runs_and_true_after(slow_kernel):
    slow, _, gpu = slow_kernel
    slow()
    gpu.flush()
    assert not gpu.idle()  # submitted, not run yet
    gpu.device._poll_wait()  # wgpu-native's blocking wait
    assert gpu.idle()


@pytest.mark.parametrize("spin_s", [1.0, 1e-6, 0.0])
def test_sync_returns_after_the_kernel_has_run(slow_kernel, spin_s):
    """Spinning long enough, spinning too briefly (then blocking) and blocking at once."""
    slow, x, gpu = slow_kernel
    before, gpu.spin_s = gpu.spin_s, spin_s
    try:
        expected = x.to_numpy()
        x.fill(0)
        slow()
        ti.sync()
        assert gpu.idle()
    finally:
        gpu.spin_s = before
    np.testing.assert_array_equal(x.to_numpy(), expected)
