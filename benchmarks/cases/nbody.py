"""N-body: one all-pairs gravitational acceleration step with Plummer softening, float32."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl, compare

UNIT = "ms"
DESCRIPTION = "acc[i] = sum_j m[j]*(p[j]-p[i]) / (|p[j]-p[i]|^2 + eps^2)^1.5, float32 vec3"
SIZES = {"full": 4096, "quick": 1024}
REPS = {"full": 15, "quick": 5}
SIZE_LABEL = "{n:,} bodies f32"  # formatted with n = SIZES[mode]
COLD = False

EPS2 = np.float32(1e-2)  # softening squared
BLOCK = 256  # rows per NumPy block: bounds the (BLOCK, n, 3) temporaries


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(4)
    return {
        "pos": rng.random((size, 3), dtype=np.float32),
        "mass": (0.5 + rng.random(size, dtype=np.float32)).astype(np.float32),
    }


def accelerations(pos: np.ndarray, mass: np.ndarray, acc: np.ndarray) -> None:
    """Vectorised all-pairs sum, a block of rows at a time (in the dtype of ``pos``)."""
    eps2 = pos.dtype.type(EPS2)
    for start in range(0, pos.shape[0], BLOCK):
        d = pos[None, :, :] - pos[start : start + BLOCK, None, :]  # (block, n, 3)
        r2 = np.einsum("ijk,ijk->ij", d, d) + eps2
        inv3 = mass / (r2 * np.sqrt(r2))
        acc[start : start + BLOCK] = np.einsum("ij,ijk->ik", inv3, d)


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    pos = inputs["pos"].astype(np.float64)
    acc = np.empty_like(pos)
    accelerations(pos, inputs["mass"].astype(np.float64), acc)
    return {"acc": acc.astype(np.float32)}


def check(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str | None:
    # Sums of n float32 terms of both signs, in different orders and with or without FMA: the
    # error is relative to the size of the terms, not of the (possibly cancelled) sum.
    scale = float(np.abs(want["acc"]).max())
    return compare(got, want, rtol=1e-3, atol=1e-4 * scale)


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["mass"].size
    pos = ti.Vector.field(3, dtype=ti.f32, shape=n)
    acc = ti.Vector.field(3, dtype=ti.f32, shape=n)
    mass = ti.field(dtype=ti.f32, shape=n)
    pos.from_numpy(inputs["pos"])
    mass.from_numpy(inputs["mass"])

    @ti.kernel
    def nbody(pos: ti.template(), mass: ti.template(), acc: ti.template(), eps2: ti.f32):
        for i in pos:
            p = pos[i]
            a = ti.math.vec3(0.0)
            for j in range(n):
                d = pos[j] - p
                r2 = d.dot(d) + eps2
                a += mass[j] / (r2 * ti.sqrt(r2)) * d
            acc[i] = a

    def step() -> None:
        nbody(pos, mass, acc, float(EPS2))
        ti.sync()

    return Impl(step, lambda: {"acc": acc.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    pos, mass = inputs["pos"], inputs["mass"]
    acc = np.zeros_like(pos)

    @njit(parallel=True)
    def nbody(pos, mass, acc, eps2):
        n = pos.shape[0]
        for i in prange(n):
            px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
            ax = np.float32(0.0)
            ay = np.float32(0.0)
            az = np.float32(0.0)
            for j in range(n):
                dx = pos[j, 0] - px
                dy = pos[j, 1] - py
                dz = pos[j, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + eps2
                s = mass[j] / (r2 * np.sqrt(r2))
                ax += s * dx
                ay += s * dy
                az += s * dz
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    return Impl(lambda: nbody(pos, mass, acc, EPS2), lambda: {"acc": acc})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    pos, mass = inputs["pos"], inputs["mass"]
    acc = np.zeros_like(pos)
    return Impl(lambda: accelerations(pos, mass, acc), lambda: {"acc": acc})
