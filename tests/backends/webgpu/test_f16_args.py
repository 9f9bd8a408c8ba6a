"""f16 scalar arguments reach the GPU rounded to f16, as the CPU back end stores them: the
shader's own `f16(args.a0)` was skipped by NVIDIA's driver before a cast to u32 (an f16 of 1e10
is inf and saturates to 0xffffffff; the H100 got 1e10 mod 2^32)."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.resources import ArgsLayout


def _casts(arch, value: float) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.u32, shape=2)
    back = ti.field(ti.f32, shape=())

    @ti.kernel
    def casts(a: ti.f16):
        out[0] = ti.cast(a, ti.u32)
        out[1] = ti.cast(a * ti.cast(2.0, ti.f16), ti.u32)
        back[None] = ti.cast(a, ti.f32)

    casts(value)
    result = np.append(out.to_numpy().astype(np.float64), back[None])
    ti.reset()
    return result


@pytest.mark.parametrize("value", [1e10, 70000.0, 0.1, 2049.0, -3.7])
def test_f16_arguments_are_rounded_as_on_the_cpu(device, value: float) -> None:  # noqa: ANN001
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16")
    np.testing.assert_array_equal(_casts(ti.vulkan, value), _casts(ti.cpu, value))


def test_the_host_packs_an_f16_argument_already_rounded() -> None:
    """What the test above depends on, whatever the driver does with the shader's conversion."""

    class Param:
        def __init__(self, dtype) -> None:  # noqa: ANN001
            self.name, self.kind, self.dtype, self.ndim = "a", "scalar", dtype, 0

    class Kernel:
        params = [Param(ti.f16)]

    layout = ArgsLayout.of(Kernel())
    packed = layout.pack([1e10])
    assert np.frombuffer(packed[:4], np.float32)[0] == np.inf
    packed = layout.pack([0.1])
    assert np.frombuffer(packed[:4], np.float32)[0] == np.float32(np.float16(0.1))
