"""`ti.random` on the GPU draws what the CPU draws: launch n of a kernel gets the same key on
both back ends (`backends/random_keys.py`), and the shader hashes it with the task, the loop
index and the per-iteration call counter as `ir/random.py` says. Uniform floats and integers
are exact on both, so their bits must agree; `randn` goes through `log` and `cos`, which the
GPU computes within WGSL's accuracy (docs/compiler-contract.md), so it agrees to a few ulp.
The kernels cover a parallel loop with several calls per iteration, a serial loop (index 0,
the counter running across its iterations), a struct-for over a 2-D field (demoted to a
range over cells) and a second launch (a new key)."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl
from tistudio.lang.ops import randn, random

DTYPES = [ti.f32, ti.f64, ti.i32, ti.u32, ti.i64, ti.u8]


def _draws(arch, dtype, seed: int = 3) -> list[np.ndarray]:  # noqa: ANN001
    ti.init(arch=arch, random_seed=seed, offline_cache=False, fallback_to_cpu=False)
    line = ti.field(dtype, shape=300)
    grid = ti.field(dtype, shape=(7, 9))
    serial = ti.field(dtype, shape=5)

    @ti.kernel
    def fill():
        for i in line:
            a = random(dtype)
            line[i] = random(dtype) if i % 3 == 0 else a  # a draw in one branch only
        for i, j in grid:
            grid[i, j] = random(dtype)
        for k in range(4):  # parallel, but short: a small workgroup on the GPU
            serial[k] = random(dtype)
        serial[4] = random(dtype)  # the serial task: index 0

    out = []
    for _ in range(2):  # the second launch has a key of its own
        fill()
        out += [line.to_numpy(), grid.to_numpy(), serial.to_numpy()]
    return out


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_the_gpu_draws_the_cpus_bits(device, dtype) -> None:  # noqa: ANN001
    cpu, gpu = _draws(ti.cpu, dtype), _draws(ti.gpu, dtype)
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(cpu[0], cpu[3]), "two launches drew the same numbers"


def test_randn_agrees_within_the_gpus_transcendental_accuracy(device) -> None:
    def normals(arch) -> np.ndarray:  # noqa: ANN001
        ti.init(arch=arch, random_seed=11, offline_cache=False, fallback_to_cpu=False)
        x = ti.field(ti.f32, shape=4096)

        @ti.kernel
        def fill():
            for i in x:
                x[i] = randn(ti.f32)

        fill()
        return x.to_numpy()

    cpu, gpu = normals(ti.cpu), normals(ti.gpu)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-4)
    assert abs(gpu.mean()) < 0.05 and abs(gpu.std() - 1) < 0.05


def test_the_seed_reaches_the_shader(device) -> None:
    a = _draws(ti.gpu, ti.u32, seed=1)[0]
    b = _draws(ti.gpu, ti.u32, seed=2)[0]
    c = _draws(ti.gpu, ti.u32, seed=1)[0]
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_a_kernel_that_draws_passes_its_key_in_a_uniform_buffer_too(device) -> None:
    """An adapter without immediates gets the key through the `Args` uniform buffer; the key
    changes every launch, so the buffer is written every launch."""
    from dataclasses import replace

    from tistudio.backends.webgpu.device import GpuDevice

    def draw(arch, plain: bool) -> tuple[list[np.ndarray], str]:  # noqa: ANN001
        ti.init(arch=arch, random_seed=5, offline_cache=False, fallback_to_cpu=False)
        if plain:
            features = device.caps.features - {"immediates"}
            caps = replace(device.caps, features=features)
            impl.get_program().use_gpu(GpuDevice(device.adapter, device.device, caps))
        x = ti.field(ti.u32, shape=64)

        @ti.kernel
        def fill(scale: ti.u32):
            for i in x:
                x[i] = random(ti.u32) // scale

        out = []
        for _ in range(3):
            fill(1)
            out.append(x.to_numpy())
        return out, fill.compile_report(1).wgsl if plain else ""

    (cpu, _), (gpu, wgsl) = draw(ti.cpu, False), draw(ti.gpu, True)
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a, b)
    assert "var<uniform> args" in wgsl and "rand_key" in wgsl
