"""Serial inclusive prefix sum of int32 values (``ti.loop_config(serialize=True)``)."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "out[i] = out[i-1] + x[i], int32, one serial loop"
SIZES = {"full": 10_000_000, "quick": 1_000_000}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} i32"  # formatted with n = SIZES[mode]
COLD = False


def make_inputs(size: int) -> dict[str, np.ndarray]:
    # Values below 100: the total stays below 2**31 for 10M elements.
    rng = np.random.default_rng(7)
    return {"x": rng.integers(0, 100, size).astype(np.int32)}


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"out": np.cumsum(inputs["x"], dtype=np.int64).astype(np.int32)}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["x"].size
    x = ti.field(dtype=ti.i32, shape=n)
    out = ti.field(dtype=ti.i32, shape=n)
    x.from_numpy(inputs["x"])

    @ti.kernel
    def scan(x: ti.template(), out: ti.template()):
        out[0] = x[0]
        ti.loop_config(serialize=True)
        for i in range(1, n):
            out[i] = out[i - 1] + x[i]

    def step() -> None:
        scan(x, out)
        ti.sync()

    return Impl(step, lambda: {"out": out.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit

    x = inputs["x"]
    out = np.zeros_like(x)

    # A serial loop: nothing for prange to split (the carried dependency is the point).
    @njit
    def scan(x, out):
        out[0] = x[0]
        for i in range(1, x.shape[0]):
            out[i] = out[i - 1] + x[i]

    return Impl(lambda: scan(x, out), lambda: {"out": out})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x = inputs["x"]
    out = np.zeros_like(x)
    return Impl(lambda: np.cumsum(x, out=out), lambda: {"out": out})
