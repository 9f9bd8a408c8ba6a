"""Dense matrix-vector product ``y = A @ x``, float32, one thread per row."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "y[i] = sum_j A[i,j]*x[j], dense float32"
SIZES = {"full": 4096, "quick": 1024}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n}×{n} f32"  # formatted with n = SIZES[mode]
COLD = False


def make_inputs(size: int) -> dict[str, np.ndarray]:
    # Small whole numbers: every partial sum is an integer below 2**24, so the float32 result is
    # exact in any summation order (vector lanes, BLAS blocking, FMA) and needs no tolerance.
    rng = np.random.default_rng(5)
    return {
        "a": rng.integers(0, 3, (size, size)).astype(np.float32),
        "x": rng.integers(0, 3, size).astype(np.float32),
    }


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    y = inputs["a"].astype(np.float64) @ inputs["x"].astype(np.float64)
    return {"y": y.astype(np.float32)}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["x"].size
    a = ti.field(dtype=ti.f32, shape=(n, n))
    x = ti.field(dtype=ti.f32, shape=n)
    y = ti.field(dtype=ti.f32, shape=n)
    a.from_numpy(inputs["a"])
    x.from_numpy(inputs["x"])

    @ti.kernel
    def matvec(a: ti.template(), x: ti.template(), y: ti.template()):
        for i in y:
            s = 0.0
            for j in range(n):
                s += a[i, j] * x[j]
            y[i] = s

    def step() -> None:
        matvec(a, x, y)
        ti.sync()

    return Impl(step, lambda: {"y": y.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    a, x = inputs["a"], inputs["x"]
    y = np.zeros_like(x)

    @njit(parallel=True)
    def matvec(a, x, y):
        n, m = a.shape
        for i in prange(n):
            s = np.float32(0.0)
            for j in range(m):
                s += a[i, j] * x[j]
            y[i] = s

    return Impl(lambda: matvec(a, x, y), lambda: {"y": y})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    a, x = inputs["a"], inputs["x"]
    y = np.zeros_like(x)
    return Impl(lambda: np.matmul(a, x, out=y), lambda: {"y": y})
