"""Multi-axis ndranges run as a row loop around a serial inner loop (see passes/ndrange.py):
same results as the flat loop in every shape, and row loops still split over the pool."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.llvm.launcher import UNKNOWN_TRIPS, task_grain
from tistudio.ir.ops import TaskType
from tistudio.ir.statements import Offloaded, RangeFor
from tistudio.ir.stmt import walk
from tistudio.lang.kernel import Kernel


@pytest.fixture(autouse=True)
def _cpu() -> None:
    ti.init(arch=ti.cpu)


def _tasks(kernel: Kernel) -> list[Offloaded]:
    final = kernel.instances()[-1].result.final_ir
    return [t for t in final.body if t.task_type is TaskType.range_for]


def _serial_loops(task: Offloaded) -> list[RangeFor]:
    return [s for s in walk(task.body) if isinstance(s, RangeFor)]


@pytest.mark.parametrize("bounds", [((1, 99), (1, 70)), ((3, 3), (0, 5)), ((5, 2), (0, 9))])
def test_2d_ndrange_is_a_row_loop_with_the_same_result(bounds: tuple) -> None:
    (a, b), (c, d) = bounds
    out = np.zeros((100, 100), dtype=np.int32)

    @ti.kernel
    def fill(out: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i, j in ti.ndrange((a, b), (c, d)):
            out[i, j] = i * 1000 + j

    fill(out)
    want = np.zeros_like(out)
    for i in range(a, b):
        for j in range(c, d):
            want[i, j] = i * 1000 + j
    np.testing.assert_array_equal(out, want)
    if b - a >= 64:
        (task,) = _tasks(fill)
        assert len(_serial_loops(task)) == 1


def test_3d_ndrange_with_runtime_bounds_and_continue() -> None:
    out = np.zeros((6, 7, 8), dtype=np.int32)

    @ti.kernel
    def fill(out: ti.types.ndarray(dtype=ti.i32, ndim=3), n: ti.i32):
        for i, j, k in ti.ndrange(n, (1, 7), (2, 8)):
            if k == 5:
                continue
            out[i, j, k] = i * 100 + j * 10 + k

    fill(out, 6)
    want = np.zeros_like(out)
    for i, j, k in np.ndindex(6, 7, 8):
        if j >= 1 and k >= 2 and k != 5:
            want[i, j, k] = i * 100 + j * 10 + k
    np.testing.assert_array_equal(out, want)
    (task,) = _tasks(fill)
    assert len(_serial_loops(task)) == 1  # rows are (i, j) flattened; k is the inner loop


def test_few_constant_rows_stay_flat_for_parallelism() -> None:
    x = ti.field(ti.f32, shape=(2, 50_000))

    @ti.kernel
    def fill():
        for i, j in ti.ndrange(2, 50_000):
            x[i, j] = i + j * 0.5

    fill()
    want = np.arange(2)[:, None] + np.arange(50_000)[None, :] * 0.5
    np.testing.assert_allclose(x.to_numpy(), want)
    (task,) = _tasks(fill)
    assert not _serial_loops(task)


def test_break_leaves_the_whole_serial_ndrange() -> None:
    @ti.kernel
    def first_hit(limit: ti.i32) -> ti.i32:
        found = -1
        for _ in range(1):
            for i, j in ti.ndrange(10, 10):
                if i * 10 + j >= limit:
                    found = i * 10 + j
                    break
        return found

    assert first_hit(37) == 37
    assert first_hit(1000) == -1


def test_task_grain_divides_by_the_inner_work() -> None:
    x = ti.field(ti.f32, shape=(300, 40))

    @ti.kernel
    def rows(n: ti.i32):
        for i in range(300):
            for j in range(40):
                x[i, j] = 1.0
            k = 0
            while k < n:
                k += 1

    rows(3)
    (task,) = _tasks(rows)
    assert task_grain(task, 4096) == max(1, 4096 // UNKNOWN_TRIPS)
    assert task_grain(task, 1) == 1
    assert x.to_numpy().sum() == 300 * 40
