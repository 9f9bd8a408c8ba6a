"""2D 5-point stencil: ``b = 0.2 * (a + its four neighbours)`` on the interior, one step."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "b[i,j] = 0.2*(a[i,j] + 4 neighbours), float32, interior only"
SIZES = {"full": 2048, "quick": 512}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n}×{n} f32"  # formatted with n = SIZES[mode]
COLD = False

W = np.float32(0.2)


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)
    return {"a": rng.random((size, size), dtype=np.float32)}


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    a = inputs["a"]
    b = np.zeros_like(a)
    b[1:-1, 1:-1] = W * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return {"b": b}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["a"].shape[0]
    a = ti.field(dtype=ti.f32, shape=(n, n))
    b = ti.field(dtype=ti.f32, shape=(n, n))
    a.from_numpy(inputs["a"])

    @ti.kernel
    def stencil(a: ti.template(), b: ti.template()):
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            b[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    def step() -> None:
        stencil(a, b)
        ti.sync()

    return Impl(step, lambda: {"b": b.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    a = inputs["a"]
    b = np.zeros_like(a)

    @njit(parallel=True)
    def stencil(a, b):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                b[i, j] = W * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    return Impl(lambda: stencil(a, b), lambda: {"b": b})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    a = inputs["a"]
    b = np.zeros_like(a)

    def step() -> None:
        b[1:-1, 1:-1] = W * (
            a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
        )

    return Impl(step, lambda: {"b": b})
