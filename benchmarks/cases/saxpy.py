"""saxpy: ``y[i] = a * x[i] + y[i]`` over float32 fields; memory bandwidth bound."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "y[i] = a*x[i] + y[i], float32"
SIZES = {"full": 10_000_000, "quick": 1_000_000}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} f32"  # formatted with n = SIZES[mode]
COLD = False

A = np.float32(2.0)


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    # Positive values: a*x + y never cancels, so a fused multiply-add stays within rtol.
    return {
        "x": rng.random(size, dtype=np.float32),
        "y": rng.random(size, dtype=np.float32),
    }


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"y": A * inputs["x"] + inputs["y"]}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["x"].size
    x = ti.field(dtype=ti.f32, shape=n)
    y = ti.field(dtype=ti.f32, shape=n)
    x.from_numpy(inputs["x"])
    y.from_numpy(inputs["y"])

    @ti.kernel
    def saxpy(x: ti.template(), y: ti.template(), a: ti.f32):
        for i in y:
            y[i] = a * x[i] + y[i]

    def step() -> None:
        saxpy(x, y, float(A))
        ti.sync()

    return Impl(step, lambda: {"y": y.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    x, y = inputs["x"].copy(), inputs["y"].copy()

    @njit(parallel=True)
    def saxpy(x, y, a):
        for i in prange(y.shape[0]):
            y[i] = a * x[i] + y[i]

    return Impl(lambda: saxpy(x, y, A), lambda: {"y": y})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x, y = inputs["x"].copy(), inputs["y"].copy()
    tmp = np.empty_like(x)

    def step() -> None:
        np.multiply(x, A, out=tmp)
        np.add(y, tmp, out=y)

    return Impl(step, lambda: {"y": y})
