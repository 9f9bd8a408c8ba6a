"""Sum reduction of float32 values into a 0-D field (``total[None] += x[i]``)."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "total[None] += x[i], float32, into a 0-D field"
SIZES = {"full": 10_000_000, "quick": 1_000_000}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} f32"  # formatted with n = SIZES[mode]
COLD = False


def make_inputs(size: int) -> dict[str, np.ndarray]:
    # Small whole numbers: every partial sum stays an integer below 2**24, so the float32 sum is
    # exact in any order (threads, vector lanes, pairwise) and the check needs no tolerance.
    rng = np.random.default_rng(1)
    return {"x": rng.integers(0, 3, size).astype(np.float32)}


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"total": np.array(inputs["x"].sum(dtype=np.float64), dtype=np.float32)}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    x = ti.field(dtype=ti.f32, shape=inputs["x"].size)
    total = ti.field(dtype=ti.f32, shape=())
    x.from_numpy(inputs["x"])

    @ti.kernel
    def reduce_sum(x: ti.template(), total: ti.template()):
        total[None] = 0.0
        for i in x:
            total[None] += x[i]

    def step() -> None:
        reduce_sum(x, total)
        ti.sync()

    return Impl(step, lambda: {"total": total.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    x = inputs["x"]
    total = np.zeros((), dtype=np.float32)

    @njit(parallel=True)
    def reduce_sum(x, total):
        s = np.float32(0.0)
        for i in prange(x.shape[0]):
            s += x[i]
        total[()] = s

    return Impl(lambda: reduce_sum(x, total), lambda: {"total": total})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x = inputs["x"]
    total = np.zeros((), dtype=np.float32)

    def step() -> None:
        total[()] = x.sum()

    return Impl(step, lambda: {"total": total})
