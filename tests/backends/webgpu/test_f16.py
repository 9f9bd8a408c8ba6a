"""`f16` on the GPU: fields, arguments, returns and arithmetic where the adapter has
`shader-f16` (lavapipe does), the same bits as the CPU back end, and a clear error where not."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl

N = 64


def run(arch: str) -> dict[str, np.ndarray]:
    """Every f16 operation the back end treats specially, on `arch`; the fields' bits. Without
    fast math: with it, LLVM may skip the rounding of `half` results between operations."""
    ti.init(arch=getattr(ti, arch), fallback_to_cpu=False, fast_math=False)
    x = ti.field(ti.f16, shape=N)
    out = {name: ti.field(ti.f16, shape=N) for name in ("arith", "div", "math", "pow", "round")}
    bits = ti.field(ti.i32, shape=N)
    back = ti.field(ti.f16, shape=N)
    total = ti.field(ti.f16, shape=())
    top = ti.field(ti.f16, shape=())

    @ti.kernel
    def compute(a: ti.f16) -> ti.f16:
        for i in x:
            v = x[i]
            out["arith"][i] = v * a - v + 0.1
            out["div"][i] = v / 3.0
            out["math"][i] = ti.sqrt(ti.abs(v)) + ti.sin(v) + ti.exp(v * 0.1)
            out["pow"][i] = ti.pow(ti.abs(v), 1.5) + ti.atan2(v, 2.0)
            out["round"][i] = ti.round(v) + ti.floor(v) + ti.max(v, 0.5)
            bits[i] = ti.cast(ti.bit_cast(v, ti.i16), ti.i32)
            back[i] = ti.bit_cast(ti.cast(bits[i], ti.i16), ti.f16)
            total[None] += ti.floor(v)  # integers: exact in any order of the atomic adds
            ti.atomic_max(top[None], v)
        return total[None] * 0.5

    x.from_numpy((np.arange(N, dtype=np.float16) - 20) * np.float16(0.37))
    half = compute(1.25)
    got = {name: f.to_numpy().view(np.uint16) for name, f in out.items()}
    got.update(bits=bits.to_numpy(), back=back.to_numpy().view(np.uint16))
    got.update(total=np.array([total[None], top[None], half], np.float16).view(np.uint16))
    if arch == "gpu":
        wgsl = compute.compile_report(1.25).wgsl
        assert "enable f16;" in wgsl and "array<f16>" in wgsl
        # through f32 (correctly rounded through f64 where the adapter has it: rounding.py),
        # rounded back through the bits (wgsl.through_f32), as LLVM's half
        assert "f16(ti_r16(ti_sqrt_rn_f32(f32(" in wgsl or "f16(ti_r16(sqrt(f32(" in wgsl
        assert not re.search(r": f16 = \(?\w+ [-+*/] \w+\)?;", wgsl), "f16 arithmetic left native"
    ti.reset()
    return got


def test_f16_gives_the_cpu_back_ends_bits(device):
    if not device.caps.has("shader-f16"):
        pytest.skip("the adapter has no shader-f16 (lavapipe and NVIDIA have it)")
    gpu, cpu = run("gpu"), run("cpu")
    for name in cpu:
        np.testing.assert_array_equal(gpu[name], cpu[name], err_msg=name)


def test_f32_kernels_do_not_enable_f16(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def halve():
        for i in x:  # a comment that says f16 enables nothing
            x[i] = x[i] * 0.5

    assert "enable f16;" not in halve.compile_report().wgsl
    ti.reset()


def test_f16_on_an_adapter_without_it_names_the_type_and_line(device):
    no_f16 = GpuDevice.open(disable=frozenset({"shader-f16"}))
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(no_f16)
    x = ti.field(ti.f16, shape=4)

    @ti.kernel
    def halve():
        for i in x:
            x[i] = x[i] * 0.5

    with pytest.raises(UnsupportedOnBackend) as caught:
        halve()
    message = str(caught.value)
    assert "f16 needs the adapter feature shader-f16" in message
    assert "test_f16.py" in message and "x[i] = x[i] * 0.5" in message
    ti.reset()
