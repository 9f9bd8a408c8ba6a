"""Casts of f64 constants on the GPU: naga cannot convert an f64 literal to any type, so the
emitter folds such casts (wgsl.py `_cast_f64_literal`); the H100 fuzz campaign found a kernel
whose shader naga refused (`ti.cast(ti.cast(0.0, ti.f64), ti.f16)`)."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


def _casts(arch) -> np.ndarray:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    out = ti.field(ti.f32, shape=8)
    x = ti.field(ti.f16, shape=2)

    @ti.kernel
    def casts(a: ti.f32):
        x[0] = ti.cast(a, ti.f16)
        out[0] = ti.cast(ti.min(x[0], x[0]) >= ti.cast(ti.cast(0.0, ti.f64), ti.f16), ti.f32)
        out[1] = ti.cast(ti.cast(ti.cast(0.1, ti.f64), ti.f16), ti.f32) + a
        out[2] = ti.cast(ti.cast(ti.cast(-2.75, ti.f64), ti.i32), ti.f32) + a
        out[3] = ti.cast(ti.cast(ti.cast(1e10, ti.f64), ti.u32), ti.f32) + a
        out[4] = ti.cast(ti.cast(ti.cast(0.1, ti.f64), ti.f32), ti.f32) + a
        out[5] = ti.cast(ti.cast(ti.cast(-1e300, ti.f64), ti.i64), ti.f32) + a
        out[6] = ti.cast(ti.cast(ti.cast(7.9, ti.f64), ti.u8), ti.f32) + a

    casts(0.5)
    result = out.to_numpy()
    ti.reset()
    return result


def test_casts_of_f64_constants_compile_and_agree_with_the_cpu(device) -> None:  # noqa: ANN001
    if not device.caps.has("shader-f64"):
        pytest.skip("the adapter has no shader-f64: no f64 to cast from")
    cpu, gpu = _casts(ti.cpu), _casts(ti.vulkan)
    assert cpu[0] == 1.0 and cpu[2] == -1.5  # the kernel computes what it says
    np.testing.assert_array_equal(gpu, cpu)
