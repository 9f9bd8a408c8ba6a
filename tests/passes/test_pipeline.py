"""The pass pipeline as a whole (passes/pipeline.py): which groups run where, on user kernels."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture
def cpu() -> Iterator[None]:
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


def _smooth_and_count():
    """A 20-line kernel like benchmarks/cases/compile_next.py: a serial inner loop, a branch,
    ti.select, integer and float math and a counter that make_thread_local takes over."""
    n = 64
    a = ti.field(ti.f32, shape=n)
    out = ti.field(ti.f32, shape=n)
    clipped = ti.field(ti.i32, shape=())
    a.from_numpy(np.linspace(-4, 4, n, dtype=np.float32))

    @ti.kernel
    def smooth(limit: ti.f32):
        clipped[None] = 0
        for i in a:
            lo = ti.max(i - 2, 0)
            hi = ti.min(i + 2, n - 1)
            s = 0.0
            j = lo
            while j <= hi:
                s += a[j]
                j += 1
            s /= hi - lo + 1
            if ti.abs(s) > limit:
                s = ti.select(s > 0, limit, -limit)
                clipped[None] += 1
            out[i] = s

    return smooth, a, out, clipped


def test_simplify_groups_run_before_offload_and_after_lower_access_only(cpu: None) -> None:
    smooth, a, out, clipped = _smooth_and_count()
    smooth(2.0)
    names = [p.name for p in smooth.compile_report(2.0).passes]
    offload, lower_access = names.index("offload"), names.index("lower_access")
    groups = [(k, n[n.index("(") + 1 : -1]) for k, n in enumerate(names) if "(simplify" in n]
    assert {g for _, g in groups} == {"simplify I", "simplify II"}
    assert all(k < offload for k, g in groups if g == "simplify I")
    assert all(k > lower_access for k, g in groups if g == "simplify II")
    # what the groups between them used to clean up still is: one counter per thread, no
    # atomic per iteration, addresses computed once
    assert names.index("make_thread_local") < lower_access
    final = smooth.compile_report(2.0).passes[-1].ir_text
    assert "tls prologue" in final and "thread local ptr" in final
    body = final[final.index("body {") : final.index("tls epilogue")]
    assert "atomic" not in body
    x = a.to_numpy().astype(np.float64)
    want = np.array([x[max(i - 2, 0) : min(i + 2, 63) + 1].mean() for i in range(64)])
    np.testing.assert_allclose(out.to_numpy(), np.clip(want, -2, 2), rtol=1e-5)
    assert clipped[None] == np.count_nonzero(np.abs(want) > 2)
