"""Histogram: int32 values in [0, 256) counted into 256 bins with atomic adds."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "hist[x[i]] += 1 (atomic), 256 int32 bins"
SIZES = {"full": 10_000_000, "quick": 1_000_000}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} i32 → 256 bins"  # formatted with n = SIZES[mode]
COLD = False

BINS = 256


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(6)
    return {"x": rng.integers(0, BINS, size).astype(np.int32)}


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"hist": np.bincount(inputs["x"], minlength=BINS).astype(np.int32)}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    x = ti.field(dtype=ti.i32, shape=inputs["x"].size)
    hist = ti.field(dtype=ti.i32, shape=BINS)
    x.from_numpy(inputs["x"])

    @ti.kernel
    def histogram(x: ti.template(), hist: ti.template()):
        for b in hist:
            hist[b] = 0
        for i in x:
            ti.atomic_add(hist[x[i]], 1)

    def step() -> None:
        histogram(x, hist)
        ti.sync()

    return Impl(step, lambda: {"hist": hist.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    import numba
    from numba import njit, prange

    x = inputs["x"]
    hist = np.zeros(BINS, dtype=np.int32)
    chunks = numba.get_num_threads()

    # Numba has no atomics: each prange chunk fills a private histogram, summed at the end.
    @njit(parallel=True)
    def histogram(x, hist, chunks):
        n = x.shape[0]
        local = np.zeros((chunks, hist.shape[0]), dtype=np.int32)
        for c in prange(chunks):
            for i in range(c * n // chunks, (c + 1) * n // chunks):
                local[c, x[i]] += 1
        for b in range(hist.shape[0]):
            s = 0
            for c in range(chunks):
                s += local[c, b]
            hist[b] = s

    return Impl(lambda: histogram(x, hist, chunks), lambda: {"hist": hist})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x = inputs["x"]
    hist = np.zeros(BINS, dtype=np.int32)

    def step() -> None:
        hist[:] = np.bincount(x, minlength=BINS)

    return Impl(step, lambda: {"hist": hist})
