"""Launch overhead: a cached tiny kernel (two fields, one scalar, 16 elements) called in a loop.

One step is a batch of calls followed by one ``ti.sync()``; the reported time is per call. The
data are small whole numbers times 0.5, so every sum is exact in float32 and a fused multiply-add
cannot change the checked result.
"""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "us"
DESCRIPTION = "per call of a cached 16-element kernel (2 fields + 1 scalar), batch then sync"
SIZES = {"full": 10_000, "quick": 1_000}  # calls per repetition
REPS = {"full": 7, "quick": 5}
SIZE_LABEL = "{n:,} calls × 16"  # formatted with n = SIZES[mode]
COLD = False
THROUGHPUT = False  # a per-call latency: left out of the geometric mean

N = 16
A = np.float32(0.5)


def make_inputs(size: int) -> dict[str, np.ndarray]:
    return {
        "x": np.arange(N, dtype=np.float32),
        "y": np.ones(N, dtype=np.float32),
        "calls": np.array(size),
    }


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    calls = int(inputs["calls"])
    return {"y": inputs["y"] + np.float32(calls) * A * inputs["x"]}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    calls = int(inputs["calls"])
    x = ti.field(dtype=ti.f32, shape=N)
    y = ti.field(dtype=ti.f32, shape=N)
    x.from_numpy(inputs["x"])
    y.from_numpy(inputs["y"])

    @ti.kernel
    def tiny(x: ti.template(), y: ti.template(), a: ti.f32):
        for i in range(16):
            y[i] = a * x[i] + y[i]

    a = float(A)

    def step() -> None:
        for _ in range(calls):
            tiny(x, y, a)
        ti.sync()

    return Impl(step, lambda: {"y": y.to_numpy()}, calls_per_step=calls)


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    calls = int(inputs["calls"])
    x, y = inputs["x"].copy(), inputs["y"].copy()

    @njit(parallel=True)
    def tiny(x, y, a):
        for i in prange(16):
            y[i] = a * x[i] + y[i]

    def step() -> None:
        for _ in range(calls):
            tiny(x, y, A)

    return Impl(step, lambda: {"y": y}, calls_per_step=calls)


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    calls = int(inputs["calls"])
    x, y = inputs["x"].copy(), inputs["y"].copy()
    tmp = np.empty_like(x)

    def step() -> None:
        for _ in range(calls):
            np.multiply(x, A, out=tmp)
            np.add(y, tmp, out=y)

    return Impl(step, lambda: {"y": y}, calls_per_step=calls)
