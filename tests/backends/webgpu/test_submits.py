"""When recorded dispatches reach the GPU: at once for large ones, batched for small ones.

A dispatch of at least `GpuDevice.eager_groups` workgroups is submitted right after it is
recorded, so the GPU runs it while Python records the next launches; small dispatches wait in
the open batch until the host needs a result (`device.py`'s module docstring).
"""

from __future__ import annotations

import numpy as np

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl


def test_large_dispatches_are_submitted_at_once_and_small_ones_batched(device):
    eager = GpuDevice(device.adapter, device.device, device.caps)
    eager.eager_groups = 4  # 4 workgroups count as large here, on any adapter
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(eager)
    big = ti.field(ti.i32, shape=4096)  # 64 workgroups of 64
    small = ti.field(ti.i32, shape=64)  # one workgroup

    @ti.kernel
    def bump_big():
        for i in big:
            big[i] += 1

    @ti.kernel
    def bump_small():
        for i in small:
            small[i] += 1

    bump_big()
    bump_small()
    eager.sync()
    before = eager.submits
    for _ in range(3):
        bump_big()
    assert eager.submits == before + 3  # each submitted as it was recorded
    for _ in range(5):
        bump_small()
    assert eager.submits == before + 3  # recorded, waiting for the host
    assert (small.to_numpy() == 6).all() and (big.to_numpy() == 4).all()
    assert eager.submits == before + 4
    np.testing.assert_array_equal(big.to_numpy(), np.full(4096, 4))
    ti.reset()
