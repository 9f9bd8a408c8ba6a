"""Dispatches recorded through wgpu-native's C functions (`backends/webgpu/recorder.py`).

The recorder skips wgpu-py's objects for the launch path, so these tests hold it to what
wgpu-py gave: a validation error of what was recorded is raised (at the flush, where wgpu-core
reports it) instead of being lost, and the device stays usable after it; immediates and
dispatch counts reach the shader.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.resources import Binding
from tistudio.lang import impl

WRITE_INDEX = """
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<immediate> base: u32;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = base + gid.x;
    }
}
"""


READ_ONLY = """
@group(0) @binding(0) var<storage, read> inp: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    _ = inp[gid.x];
}
"""


def test_immediates_and_groups_reach_the_shader(device):
    buffer = device.create_buffer(4 * 256)
    binding = [Binding(0, "out", "u32", 0, True)]
    pipeline, layout = device.pipeline(WRITE_INDEX, binding, 4)
    group = device.bind_group(layout, [(0, buffer, 0, 4 * 256)])
    device.dispatch(pipeline, group, np.uint32(1000).tobytes(), 3)  # 192 of 256 invocations
    got = np.frombuffer(device.read(buffer, 4 * 256), np.uint32)
    np.testing.assert_array_equal(got[:192], 1000 + np.arange(192))
    assert not got[192:].any()


def test_a_validation_error_is_raised_at_the_flush_and_the_device_goes_on(device):
    buffer = device.create_buffer(4 * 64)
    binding = [Binding(0, "out", "u32", 0, True)]
    pipeline, _ = device.pipeline(WRITE_INDEX, binding, 4)
    read_only = [Binding(0, "out", "u32", 0, False)]
    _, other_layout = device.pipeline(READ_ONLY, read_only, 0)
    wrong = device.bind_group(other_layout, [(0, buffer, 0, 4 * 64)])  # read-only, not read_write
    device.dispatch(pipeline, wrong, np.uint32(7).tobytes(), 1)
    with pytest.raises(Exception, match="(?i)bind group|layout|valid"):
        device.flush()
    ti.init(arch=ti.gpu, fallback_to_cpu=False, offline_cache=False)
    impl.get_program().use_gpu(device)
    x = ti.field(ti.i32, shape=8)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 3

    fill()
    np.testing.assert_array_equal(x.to_numpy(), np.arange(8) * 3)
