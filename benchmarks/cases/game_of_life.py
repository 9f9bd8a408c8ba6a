"""Conway's Game of Life: one step on an int32 grid; border cells stay dead."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl

UNIT = "ms"
DESCRIPTION = "one Life step (B3/S23) over the interior of an int32 grid, 8-neighbour count"
SIZES = {"full": 2048, "quick": 512}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n}×{n} i32"  # formatted with n = SIZES[mode]
COLD = False


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(8)
    alive = (rng.random((size, size)) < 0.35).astype(np.int32)
    alive[0, :] = alive[-1, :] = alive[:, 0] = alive[:, -1] = 0
    return {"a": alive}


def life_numpy(a: np.ndarray, b: np.ndarray) -> None:
    c = a[1:-1, 1:-1]
    count = (
        a[:-2, :-2] + a[:-2, 1:-1] + a[:-2, 2:] + a[1:-1, :-2] + a[1:-1, 2:]
        + a[2:, :-2] + a[2:, 1:-1] + a[2:, 2:]
    )  # fmt: skip
    b[1:-1, 1:-1] = (count == 3) | ((count == 2) & (c == 1))


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    b = np.zeros_like(inputs["a"])
    life_numpy(inputs["a"], b)
    return {"b": b}


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["a"].shape[0]
    a = ti.field(dtype=ti.i32, shape=(n, n))
    b = ti.field(dtype=ti.i32, shape=(n, n))
    a.from_numpy(inputs["a"])

    @ti.kernel
    def life(a: ti.template(), b: ti.template()):
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            count = (
                a[i - 1, j - 1] + a[i - 1, j] + a[i - 1, j + 1] + a[i, j - 1] + a[i, j + 1]
                + a[i + 1, j - 1] + a[i + 1, j] + a[i + 1, j + 1]
            )  # fmt: skip
            alive = 0
            if count == 3 or (count == 2 and a[i, j] == 1):
                alive = 1
            b[i, j] = alive

    def step() -> None:
        life(a, b)
        ti.sync()

    return Impl(step, lambda: {"b": b.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    a = inputs["a"]
    b = np.zeros_like(a)

    @njit(parallel=True)
    def life(a, b):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                count = (
                    a[i - 1, j - 1] + a[i - 1, j] + a[i - 1, j + 1] + a[i, j - 1] + a[i, j + 1]
                    + a[i + 1, j - 1] + a[i + 1, j] + a[i + 1, j + 1]
                )  # fmt: skip
                alive = 0
                if count == 3 or (count == 2 and a[i, j] == 1):
                    alive = 1
                b[i, j] = alive

    return Impl(lambda: life(a, b), lambda: {"b": b})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    a = inputs["a"]
    b = np.zeros_like(a)
    return Impl(lambda: life_numpy(a, b), lambda: {"b": b})
