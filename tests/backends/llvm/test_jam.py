"""Unroll-and-jam of a parallel loop around a long inner loop (`backends/llvm/jam.py`): the same
results as the loop as written, for every row count and chunking, on both tiers."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti

COLS = 100  # above jam.MIN_TRIPS


@pytest.fixture(params=["quick", "0"], ids=["quick_tier", "optimised_tier"])
def tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TISTUDIO_TIERED", request.param)
    return request.param


@pytest.mark.parametrize("rows", [1, 3, 4, 5, 67, 1027])
@pytest.mark.parametrize("threads", [1, 3])
def test_a_row_reduction_gives_numpys_result(tier: str, rows: int, threads: int) -> None:
    ti.init(arch=ti.cpu, cpu_max_num_threads=threads, offline_cache=False)
    rng = np.random.default_rng(rows)
    a_np = rng.standard_normal((rows, COLS)).astype(np.float32)
    x_np = rng.standard_normal(COLS).astype(np.float32)
    a = ti.field(ti.f32, shape=(rows, COLS))
    x = ti.field(ti.f32, shape=COLS)
    y = ti.field(ti.f32, shape=rows)
    a.from_numpy(a_np)
    x.from_numpy(x_np)

    @ti.kernel
    def matvec():
        for i in y:
            s = 0.0
            for j in range(COLS):
                s += a[i, j] * x[j]
            y[i] = s

    matvec()
    np.testing.assert_allclose(y.to_numpy(), a_np.astype(np.float64) @ x_np, rtol=1e-4, atol=1e-4)
    assert "jam:" in matvec.compile_report().llvm_ir_unoptimized


def test_each_copy_keeps_its_own_locals_and_index(tier: str) -> None:
    """Code before and after the inner loop, local variables, an ndarray and a range that does
    not start at 0: every one of the four copies must see its own `i`, and no copy may run past
    the range (the arrays go on beyond it, so that such a row would be written, not crash)."""
    ti.init(arch=ti.cpu, cpu_max_num_threads=2, offline_cache=False)
    n, start = 203, 5
    a = np.arange((n + 8) * COLS, dtype=np.int32).reshape(n + 8, COLS) % 7
    out = ti.field(ti.i32, shape=n + 8)

    @ti.kernel
    def rows(a: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i in range(start, n):
            bias = i * 3
            total = bias
            for j in range(COLS):
                total += a[i, j] * (j % 5) + bias
            out[i] = total - i

    rows(a)
    i = np.arange(n + 8)
    want = 3 * i + (a * (np.arange(COLS) % 5)).sum(axis=1) + COLS * 3 * i - i
    want[:start] = 0
    want[n:] = 0
    np.testing.assert_array_equal(out.to_numpy(), want)
    assert "jam:" in rows.compile_report(a).llvm_ir_unoptimized


def _not_jammed(kernel) -> None:  # noqa: ANN001 — a kernel
    kernel()
    assert "jam:" not in kernel.compile_report().llvm_ir_unoptimized


def test_an_inner_loop_that_stores_is_left_alone() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(8, COLS))

    @ti.kernel
    def stores():
        for i in range(8):
            for j in range(COLS):
                a[i, j] = a[i, j] * 2.0

    _not_jammed(stores)


def test_a_short_inner_loop_is_left_alone() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(8, COLS))
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def short():
        for i in y:
            s = 0.0
            for j in range(16):
                s += a[i, j]
            y[i] = s

    _not_jammed(short)


def test_an_inner_loop_under_a_branch_is_left_alone() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(8, COLS))
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def branch():
        for i in y:
            s = 0.0
            if i > 2:
                for j in range(COLS):
                    s += a[i, j]
            y[i] = s

    _not_jammed(branch)


def test_an_inner_loop_reading_what_the_loop_writes_is_left_alone() -> None:
    """Row i reads row i - 1, which the iteration before wrote: their order stays."""
    ti.init(arch=ti.cpu, offline_cache=False)
    f = ti.field(ti.f32, shape=(8, COLS))

    @ti.kernel
    def recurrence():
        for i in range(1, 8):
            s = 0.0
            for j in range(COLS):
                s += f[i - 1, j]
            f[i, 0] = s

    _not_jammed(recurrence)


def test_two_ndarrays_count_as_one_array() -> None:
    """Two ndarray parameters may be one array, so a store into one and loads of the other
    in the inner loop are not jammed."""
    ti.init(arch=ti.cpu, offline_cache=False)
    a = np.ones((8, COLS), dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)

    @ti.kernel
    def rows(a: ti.types.ndarray(dtype=ti.f32, ndim=2), y: ti.types.ndarray(dtype=ti.f32)):
        for i in range(8):
            s = 0.0
            for j in range(COLS):
                s += a[i, j]
            y[i] = s

    rows(a, y)
    assert "jam:" not in rows.compile_report(a, y).llvm_ir_unoptimized
    np.testing.assert_array_equal(y, np.full(8, COLS, dtype=np.float32))
