"""Both back ends implement `backends/protocol.py`'s `Backend`, and the disk cache uses only it.

The protocol is structural, so nothing but this test says a back end has drifted from it: each
method the protocol declares must exist on both back ends with the same parameter names. The
disk-cache tests then run kernels through it on both arches, including an adjoint kernel, whose
frontend IR prints as its primal's: only its autodiff mode in the key keeps the two apart.
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
