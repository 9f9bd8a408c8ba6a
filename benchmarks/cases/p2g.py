"""MPM particle-to-grid (P2G) scatter in 2D: quadratic B-spline weights, atomic adds into the grid.

Each particle adds ``w * m`` to the mass and ``w * m * v`` to the momentum of the 3×3 grid nodes
around it (the transfer of mpm88, without the stress and affine terms).
"""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl, compare

UNIT = "ms"
DESCRIPTION = "2D MPM P2G: 3×3 quadratic B-spline weights, atomic mass + momentum scatter"
SIZES = {"full": 500_000, "quick": 100_000}  # particles
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} particles → 256² grid"  # formatted with n = SIZES[mode]
COLD = False

GRID = 256
P_MASS = np.float32(1.0)


def make_inputs(size: int) -> dict[str, np.ndarray]:
    # Positions in [0.2, 0.8]: every particle's 3×3 stencil lies inside the grid.
    rng = np.random.default_rng(10)
    return {
        "x": (0.2 + 0.6 * rng.random((size, 2), dtype=np.float32)).astype(np.float32),
        "v": (rng.random((size, 2), dtype=np.float32) - 0.5).astype(np.float32),
    }


def p2g_numpy(x: np.ndarray, v: np.ndarray, grid_m: np.ndarray, grid_v: np.ndarray) -> None:
    """Vectorised scatter: one ``bincount`` per stencil offset and output (in x's dtype)."""
    t = x.dtype.type
    xp = x * t(GRID)
    base = (xp - t(0.5)).astype(np.int32)
    fx = xp - base
    w = [t(0.5) * (t(1.5) - fx) ** 2, t(0.75) - (fx - t(1.0)) ** 2, t(0.5) * (fx - t(0.5)) ** 2]
    cells = GRID * GRID
    m = np.zeros(cells)
    mv = np.zeros((cells, 2))
    for i in range(3):
        for j in range(3):
            weight = w[i][:, 0] * w[j][:, 1] * t(P_MASS)
            index = (base[:, 0] + i) * GRID + (base[:, 1] + j)
            m += np.bincount(index, weight, cells)
            mv[:, 0] += np.bincount(index, weight * v[:, 0], cells)
            mv[:, 1] += np.bincount(index, weight * v[:, 1], cells)
    grid_m[:] = m.reshape(GRID, GRID)
    grid_v[:] = mv.reshape(GRID, GRID, 2)


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    grid_m = np.zeros((GRID, GRID))
    grid_v = np.zeros((GRID, GRID, 2))
    p2g_numpy(inputs["x"].astype(np.float64), inputs["v"].astype(np.float64), grid_m, grid_v)
    return {"grid_m": grid_m.astype(np.float32), "grid_v": grid_v.astype(np.float32)}


def check(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str | None:
    # float32 atomic sums in thread order against a float64 reference; momenta of mixed sign can
    # cancel, so the absolute tolerance is relative to the largest value.
    scale = max(float(np.abs(w).max()) for w in want.values())
    return compare(got, want, rtol=1e-4, atol=1e-5 * scale)


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["x"].shape[0]
    x = ti.Vector.field(2, dtype=ti.f32, shape=n)
    v = ti.Vector.field(2, dtype=ti.f32, shape=n)
    grid_m = ti.field(dtype=ti.f32, shape=(GRID, GRID))
    grid_v = ti.Vector.field(2, dtype=ti.f32, shape=(GRID, GRID))
    x.from_numpy(inputs["x"])
    v.from_numpy(inputs["v"])

    @ti.kernel
    def p2g(x: ti.template(), v: ti.template(), grid_m: ti.template(), grid_v: ti.template()):
        for i, j in grid_m:
            grid_m[i, j] = 0.0
            grid_v[i, j] = ti.math.vec2(0.0)
        for p in x:
            xp = x[p] * GRID
            base = ti.cast(xp - 0.5, ti.i32)
            fx = xp - base
            w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
            for i in ti.static(range(3)):
                for j in ti.static(range(3)):
                    weight = w[i][0] * w[j][1] * P_MASS
                    grid_m[base[0] + i, base[1] + j] += weight
                    grid_v[base[0] + i, base[1] + j] += weight * v[p]

    def step() -> None:
        p2g(x, v, grid_m, grid_v)
        ti.sync()

    return Impl(step, lambda: {"grid_m": grid_m.to_numpy(), "grid_v": grid_v.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    import numba
    from numba import njit, prange

    x, v = inputs["x"], inputs["v"]
    grid_m = np.zeros((GRID, GRID), dtype=np.float32)
    grid_v = np.zeros((GRID, GRID, 2), dtype=np.float32)
    chunks = numba.get_num_threads()

    # Numba has no atomics: each prange chunk scatters into a private grid, summed at the end.
    @njit(parallel=True)
    def p2g(x, v, grid_m, grid_v, chunks):
        n = x.shape[0]
        g = grid_m.shape[0]
        local = np.zeros((chunks, g, g, 3), dtype=np.float32)
        for c in prange(chunks):
            w = np.empty((3, 2), dtype=np.float32)
            for p in range(c * n // chunks, (c + 1) * n // chunks):
                bx = int(x[p, 0] * g - 0.5)
                by = int(x[p, 1] * g - 0.5)
                for d in range(2):
                    f = x[p, d] * g - (bx if d == 0 else by)
                    w[0, d] = 0.5 * (1.5 - f) ** 2
                    w[1, d] = 0.75 - (f - 1.0) ** 2
                    w[2, d] = 0.5 * (f - 0.5) ** 2
                for i in range(3):
                    for j in range(3):
                        weight = w[i, 0] * w[j, 1] * P_MASS
                        local[c, bx + i, by + j, 0] += weight
                        local[c, bx + i, by + j, 1] += weight * v[p, 0]
                        local[c, bx + i, by + j, 2] += weight * v[p, 1]
        for i in prange(g):
            for j in range(g):
                m = np.float32(0.0)
                mx = np.float32(0.0)
                my = np.float32(0.0)
                for c in range(chunks):
                    m += local[c, i, j, 0]
                    mx += local[c, i, j, 1]
                    my += local[c, i, j, 2]
                grid_m[i, j] = m
                grid_v[i, j, 0] = mx
                grid_v[i, j, 1] = my

    return Impl(
        lambda: p2g(x, v, grid_m, grid_v, chunks),
        lambda: {"grid_m": grid_m, "grid_v": grid_v},
    )


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x, v = inputs["x"], inputs["v"]
    grid_m = np.zeros((GRID, GRID), dtype=np.float32)
    grid_v = np.zeros((GRID, GRID, 2), dtype=np.float32)
    return Impl(
        lambda: p2g_numpy(x, v, grid_m, grid_v),
        lambda: {"grid_m": grid_m, "grid_v": grid_v},
    )
