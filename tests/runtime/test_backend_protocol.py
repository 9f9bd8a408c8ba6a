"""Both back ends implement `backends/protocol.py`'s `Backend`; the disk cache and AOT use only it.

The protocol is structural, so nothing but this test says a back end has drifted from it: each
method the protocol declares must exist on both back ends with the same parameter names. The
disk-cache tests then run kernels through it on both arches, including an adjoint kernel, whose
frontend IR prints as its primal's: only its autodiff mode in the key keeps the two apart.
The GPU back end's `aot_artifacts` refuses what a module cannot hold, naming the kernel.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.llvm.backend import CpuBackend
from tistudio.backends.protocol import Backend
from tistudio.backends.webgpu.backend import WebGpuBackend

PROTOCOL_METHODS = (
    "compile",
    "fingerprint",
    "save_entry",
    "load_entry",
    "wait_for_entry",
    "wait_for_optimised",
    "aot_artifacts",
)


@pytest.mark.parametrize("backend", [CpuBackend, WebGpuBackend])
@pytest.mark.parametrize("method", PROTOCOL_METHODS)
def test_both_back_ends_have_the_protocols_methods(backend: type, method: str) -> None:
    declared = list(inspect.signature(getattr(Backend, method)).parameters)
    actual = list(inspect.signature(getattr(backend, method)).parameters)
    assert actual == declared


def _square_sum_and_its_gradient(arch: ti.Arch, path: str) -> int:
    """Run a kernel and its adjoint in a fresh program; return the disk cache's hits."""
    ti.init(arch=arch, offline_cache=True, offline_cache_file_path=path)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def square_sum():
        for i in x:
            loss[None] += x[i] * x[i]

    x.from_numpy(np.arange(4, dtype=np.float32))
    square_sum()
    loss.grad[None] = 1.0
    square_sum.grad()
    assert loss[None] == 14.0
    assert x.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0]
    return ti.lang.impl.get_program().offline_cache.stats.hits


@pytest.mark.parametrize("arch", [ti.cpu, ti.vulkan])
def test_an_adjoint_is_not_its_primal_in_the_disk_cache(
    tmp_path, arch, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    monkeypatch.setenv("TISTUDIO_VERIFY_IR", "0")  # verifying passes bypasses the cache
    _square_sum_and_its_gradient(arch, str(tmp_path))
    hits = _square_sum_and_its_gradient(arch, str(tmp_path))  # both kernels come from disk
    assert hits >= 2


def test_gpu_aot_artifacts_refuse_arguments_beyond_the_immediates() -> None:
    ti.init(arch=ti.vulkan)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def wide(m: ti.types.matrix(4, 4, ti.f64), a: ti.f32):  # 136 bytes, lavapipe has 128
        for i in x:
            x[i] = m[0, 0] + a

    limit = ti.lang.impl.get_program().backend.device.caps.max_immediate_size
    assert limit < 136, "the adapter takes this kernel's arguments as immediates"
    with pytest.raises(ValueError, match="'wide' has 136 bytes of scalar arguments"):
        ti.aot.Module().add_kernel(wide)


def test_gpu_aot_artifacts_refuse_debug_checks() -> None:
    ti.init(arch=ti.vulkan, debug=True)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    with pytest.raises(ValueError, match="'fill' has debug checks"):
        ti.aot.Module().add_kernel(fill)
