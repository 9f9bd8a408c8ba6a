"""A long serial sum split over the lanes of a workgroup (passes/split_reductions.py): an
n-body kernel, an integer sum, ragged ranges and loops and a count made in the code after
the loop give the CPU's results; float sums are split only with fast_math; tasks the pass
must leave alone (a loop that writes memory or reads its sum another way, a large range,
a user's block_dim, a short loop) keep their shape."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tistudio as ti

Built = tuple[Callable[[], None], dict[str, Any]]


def _run(arch: str, build: Callable[[], Built], fast_math: bool = True) -> tuple[dict, Any]:
    """`build`'s kernel run on `arch`: its output fields as arrays, and its compile report."""
    ti.init(arch=getattr(ti, arch), fallback_to_cpu=False, fast_math=fast_math)
    try:
        kernel, out = build()
        kernel()
        return {name: f.to_numpy() for name, f in out.items()}, kernel.compile_report()
    finally:
        ti.reset()


def _split(report: Any) -> bool:
    """Whether split_reductions changed the kernel (and the WGSL shares memory)."""
    record = next(p for p in report.passes if p.name == "split_reductions")
    assert record.changed == ("var<workgroup>" in report.wgsl)
    return record.changed


def _nbody(n: int = 1024, lo: int = 0, m_lo: int = 0) -> Built:
    """Each body's pull from bodies m_lo..n-1, for bodies lo..n-1 (n-body's inner loop)."""
    rng = np.random.default_rng(7)
    pos = ti.Vector.field(3, ti.f32, shape=n)
    acc = ti.Vector.field(3, ti.f32, shape=n)
    pos.from_numpy(rng.standard_normal((n, 3)).astype(np.float32))

    @ti.kernel
    def nbody():
        for i in range(lo, n):
            p = pos[i]
            a = ti.Vector([0.0, 0.0, 0.0])
            for j in range(m_lo, n):
                d = pos[j] - p
                r2 = d.dot(d) + 0.01
                a += d / (r2 * ti.sqrt(r2))
            acc[i] = a

    return nbody, {"acc": acc}


def test_an_nbody_kernel_is_split_and_gives_the_cpus_pull(device):
    want, _ = _run("cpu", _nbody)
    got, report = _run("gpu", _nbody)
    assert _split(report)
    assert "workgroupBarrier();" in report.wgsl
    assert np.abs(want["acc"]).max() > 10.0  # the bodies pull: zeros would not pass
    # Each lane adds every 32nd term, the tree adds the 32 partial sums: another order than
    # the CPU's, so the f32 rounding differs, by a few ulps of the sum of the terms' sizes
    # (1024 terms each below 100 here): 1e-4 relative, 1e-3 absolute where terms cancel.
    np.testing.assert_allclose(got["acc"], want["acc"], rtol=1e-4, atol=1e-3)


def _int_sum(n: int = 1003, m: int = 1001, lo: int = 5, m_lo: int = 2) -> Built:
    """An i32 sum that wraps around (exact in any order), over ragged ranges."""
    x = ti.field(ti.i32, shape=m)
    out = ti.field(ti.i32, shape=n)
    x.from_numpy(np.random.default_rng(3).integers(-(2**30), 2**30, m, dtype=np.int32))

    @ti.kernel
    def int_sum():
        for i in range(lo, n):
            s = i * 7
            for j in range(m_lo, m):
                s += x[j] * (i + 1) ^ j
            out[i] = s

    return int_sum, {"out": out}


@pytest.mark.parametrize("fast_math", [True, False])
def test_an_integer_sum_is_split_and_bit_identical_to_the_cpus(device, fast_math):
    want, _ = _run("cpu", _int_sum, fast_math)
    got, report = _run("gpu", _int_sum, fast_math)
    assert _split(report)
    assert np.abs(want["out"][5:]).max() > 2**20  # wrapped sums, not zeros
    np.testing.assert_array_equal(got["out"], want["out"])


def test_a_float_sum_is_not_split_without_fast_math(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False, fast_math=False)
    try:
        kernel, _ = _nbody(512)
        assert not _split(kernel.compile_report())
    finally:
        ti.reset()


@pytest.mark.parametrize("build", [lambda: _nbody(1003, 5, 2), lambda: _nbody(1001)])
def test_ragged_ranges_and_loops_give_the_cpus_results(device, build):
    """1003 bodies (32 lanes each: a partial last workgroup of 256) from body 5, loops from 2
    (1001 - 2 trips: the last lanes' last step is skipped); 1001 trips from 0."""
    want, _ = _run("cpu", build)
    got, report = _run("gpu", build)
    assert _split(report) and "ti_active" in report.wgsl
    np.testing.assert_allclose(got["acc"], want["acc"], rtol=1e-4, atol=1e-3)


def test_other_lanes_start_a_float_sum_at_negative_zero(device):
    """Every lane but 0 starts its share at -0.0, the identity of `+` (the contract's start of
    a parallel reduction: a sum of -0.0 terms stays -0.0; +0.0 would make it +0.0), an
    integer share at 0. Checked on the IR: lavapipe itself drops the sign of
    `-0.0 + -0.0` where one operand is a constant (an unsplit serial sum gave +0.0 too),
    which Vulkan allows without SignedZeroInfNanPreserve, so the values cannot show it."""

    def sums() -> Built:
        z = ti.field(ti.f32, shape=512)
        out = ti.field(ti.f32, shape=64)
        count = ti.field(ti.i32, shape=64)

        @ti.kernel
        def float_and_int():
            for i in range(64):
                s, c = -0.0, 0
                for j in range(512):
                    s += z[j]
                    c += 1
                out[i] = s
                count[i] = c

        return float_and_int, {"out": out, "count": count}

    got, report = _run("gpu", sums)
    assert _split(report) and (got["count"] == 512).all()
    ir = next(p for p in report.passes if p.name == "split_reductions").ir_text
    zeros = re.findall(r"<(f32|i32)> (\$\d+) = const (-?0(?:\.0)?)\n", ir)
    picks = re.findall(r"select\(\$\d+, \$\d+, (\$\d+)\)", ir)
    starts = {dtype: value for dtype, name, value in zeros if name in picks}
    assert starts == {"f32": "-0.0", "i32": "0"}, ir


def test_the_code_after_the_loop_runs_once_per_index(device):
    """An atomic count after the loop counts each index once, not once per lane (into a cell
    the index picks: an atomic on one cell would become a thread-local sum, which the pass
    leaves alone). An f32 and an i32 sum: a shared array of each type."""

    def counted() -> Built:
        x = ti.field(ti.f32, shape=512)
        out = ti.field(ti.f32, shape=1003)
        big = ti.field(ti.i32, shape=1003)
        count = ti.field(ti.i32, shape=3)
        x.fill(0.5)

        @ti.kernel
        def sums():
            for i in range(1003):
                s, n = 1.0, i
                for j in range(512):
                    s += x[j]
                    n += ti.select(x[j] > 0.25 + i, j, 0)
                out[i] = s
                big[i] = n
                ti.atomic_add(count[i % 3], 1)

        return sums, {"out": out, "big": big, "count": count}

    got, report = _run("gpu", counted)
    assert _split(report)
    np.testing.assert_array_equal(got["count"], [335, 334, 334])  # not 32 times that
    np.testing.assert_array_equal(got["out"], np.full(1003, 257.0, np.float32))
    assert "array<f32, 256>" in report.wgsl and "array<i32, 256>" in report.wgsl
    np.testing.assert_array_equal(got["big"], [511 * 256] + list(range(1, 1003)))


def test_a_task_that_uses_an_atomics_value_after_the_loop_is_left_alone(device):
    """Its last workgroup would be partial, and the guard around the atomic (the extra
    invocations must not write) cannot give its value to the code after it."""

    def used() -> Built:
        x = ti.field(ti.i32, shape=512)
        total = ti.field(ti.i32, shape=3)
        before = ti.field(ti.i32, shape=1003)
        x.fill(2)

        @ti.kernel
        def sums():
            for i in range(1003):
                s = 0
                for j in range(512):
                    s += x[j]
                before[i] = ti.atomic_add(total[i % 3], s)

        return sums, {"total": total}

    got, report = _run("gpu", used)
    assert not _split(report)
    np.testing.assert_array_equal(got["total"], [335 * 1024, 334 * 1024, 334 * 1024])


def _variant(kind: str) -> Callable[[], Any]:
    """A kernel that the pass splits ("plain") or must not split (each other kind)."""
    n = 40000 if kind == "large range" else 256
    m = 255 if kind == "short loop" else 512
    x = ti.field(ti.f32, shape=max(n, m))
    out = ti.field(ti.f32, shape=n)
    block = 64 if kind == "block_dim" else 0

    @ti.kernel
    def variant():
        ti.loop_config(block_dim=block)
        for i in range(n):
            s, last = 0.0, 0.0
            for j in range(m):
                term = x[j]
                if ti.static(kind == "variable set in loop"):
                    last = term
                if ti.static(kind == "sum read in a branch"):
                    if term > 0.5:
                        term += s
                if ti.static(kind == "store in loop"):
                    x[j] = 1.0
                if ti.static(kind == "atomic in loop"):
                    ti.atomic_add(out[0], 1.0)
                if ti.static(kind == "sum read otherwise"):
                    s = s * 0.5 + term
                else:
                    s += term
            out[i] = s + last

    return variant


KINDS = ["store in loop", "atomic in loop", "sum read otherwise", "sum read in a branch"]
KINDS += ["variable set in loop", "large range", "block_dim", "short loop"]


@pytest.mark.parametrize("kind", ["plain", *KINDS])
def test_tasks_the_pass_must_leave_alone_keep_their_shape(device, kind):
    ti.init(arch=ti.gpu, fallback_to_cpu=False, fast_math=True)
    try:
        report = _variant(kind).compile_report()
        assert _split(report) == (kind == "plain")
    finally:
        ti.reset()


@pytest.mark.parametrize(("n", "lanes"), [(1024, 32), (8192, 32), (16384, 16), (32768, 8)])
def test_lanes_fill_the_gpu_once(device, n, lanes):
    """K = 32, or fewer where n * 32 would pass 2^18 invocations (an H200 holds 270,336):
    more lanes would queue, not hide latency (split_reductions.MAX_INVOCATIONS; a 256² matmul
    split 65536 x 32 ran 3x slower than unsplit on lavapipe)."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    try:
        x = ti.field(ti.i32, shape=512)
        out = ti.field(ti.i32, shape=n)

        @ti.kernel
        def sums():
            for i in range(n):
                s = 0
                for j in range(512):
                    s += x[j]
                out[i] = s

        report = sums.compile_report()
        assert _split(report)
        assert f"range_for(0, {n * lanes})" in report.passes[-1].ir_text
    finally:
        ti.reset()
