"""Kernels launched from several Python threads at once: right results, caches intact."""

from __future__ import annotations

import threading

import numpy as np

import tistudio as ti


def _run_in_threads(count: int, work) -> list[BaseException]:  # noqa: ANN001
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(k: int) -> None:
        try:
            barrier.wait()
            work(k)
        except BaseException as e:  # noqa: BLE001 - collected and re-raised by the test
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_threads_launching_one_kernel_with_own_arrays_and_scalars() -> None:
    ti.init(offline_cache=False)

    @ti.kernel
    def scale(arr: ti.types.ndarray(dtype=ti.i64, ndim=1), factor: ti.i64) -> ti.i64:
        total = ti.cast(0, ti.i64)
        for i in range(arr.shape[0]):
            arr[i] = arr[i] * factor
            total += arr[i]
        return total

    def work(k: int) -> None:
        for round_ in range(30):
            arr = np.arange(1000, dtype=np.int64)
            factor = k * 100 + round_
            total = scale(arr, factor)
            assert total == factor * 499500, (k, round_, total)
            assert np.array_equal(arr, np.arange(1000) * factor)

    assert _run_in_threads(6, work) == []
    assert len(scale.cache_info()) == 1  # one signature, compiled once, hit by every call


def test_threads_compiling_different_signatures_at_once() -> None:
    ti.init(offline_cache=False)
    dtypes = [np.int32, np.int64, np.float32, np.float64, np.uint8, np.int16]

    @ti.kernel
    def total(arr: ti.types.ndarray()) -> ti.f64:
        s = ti.cast(0, ti.f64)
        for i in range(arr.shape[0]):
            s += ti.cast(arr[i], ti.f64)
        return s

    def work(k: int) -> None:
        arr = np.arange(50).astype(dtypes[k])
        for _ in range(10):
            assert total(arr) == 1225.0

    assert _run_in_threads(len(dtypes), work) == []
    signatures = {row["signature"] for row in total.cache_info()}
    assert len(signatures) == len(dtypes)
    for dtype in dtypes:  # the cache serves each signature correctly afterwards
        assert total(np.ones(3, dtype=dtype)) == 3.0


def test_threads_writing_disjoint_fields() -> None:
    ti.init(offline_cache=False)
    fields = [ti.field(ti.i32, shape=256) for _ in range(4)]

    @ti.kernel
    def fill(f: ti.template(), value: ti.i32):
        for i in f:
            f[i] = value + i

    def work(k: int) -> None:
        for round_ in range(25):
            fill(fields[k], k * 1000 + round_)
            assert np.array_equal(fields[k].to_numpy(), np.arange(256) + k * 1000 + round_)

    assert _run_in_threads(4, work) == []
