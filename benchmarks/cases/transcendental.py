"""Transcendental math: ``y = sin(x) * exp(-x*x) + sqrt(abs(x))`` over float32."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl, compare

UNIT = "ms"
DESCRIPTION = "y[i] = sin(x)*exp(-x*x) + sqrt(abs(x)), float32"
SIZES = {"full": 10_000_000, "quick": 1_000_000}
REPS = {"full": 30, "quick": 10}
SIZE_LABEL = "{n:,} f32"  # formatted with n = SIZES[mode]
COLD = False
# tistudio once more with `ti.init(approx_math=True)`, in a row of its own: glibc's vector
# functions (libmvec, up to 4 ulp) where the default calls glibc's scalar ones (Taichi's bits)
TISTUDIO_VARIANTS = {"approx_math": {"approx_math": True}}


def make_inputs(size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(9)
    return {"x": (6.0 * rng.random(size, dtype=np.float32) - 3.0).astype(np.float32)}


def expected(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    x = inputs["x"].astype(np.float64)
    return {"y": (np.sin(x) * np.exp(-x * x) + np.sqrt(np.abs(x))).astype(np.float32)}


def check(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> str | None:
    # Vectorised float32 sin/exp (SVML, libm or a fast-math polynomial) are a few ulp off the
    # float64 reference, more than the suite's default rtol=1e-5 allows near x = 0.
    return compare(got, want, rtol=1e-4, atol=1e-6)


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    n = inputs["x"].size
    x = ti.field(dtype=ti.f32, shape=n)
    y = ti.field(dtype=ti.f32, shape=n)
    x.from_numpy(inputs["x"])

    @ti.kernel
    def transcendental(x: ti.template(), y: ti.template()):
        for i in x:
            v = x[i]
            y[i] = ti.sin(v) * ti.exp(-v * v) + ti.sqrt(ti.abs(v))

    def step() -> None:
        transcendental(x, y)
        ti.sync()

    return Impl(step, lambda: {"y": y.to_numpy()})


def numba_impl(inputs: dict[str, np.ndarray]) -> Impl:
    from numba import njit, prange

    x = inputs["x"]
    y = np.zeros_like(x)

    @njit(parallel=True)
    def transcendental(x, y):
        for i in prange(x.shape[0]):
            v = x[i]
            y[i] = np.sin(v) * np.exp(-v * v) + np.sqrt(np.abs(v))

    return Impl(lambda: transcendental(x, y), lambda: {"y": y})


def numpy_impl(inputs: dict[str, np.ndarray]) -> Impl:
    x = inputs["x"]
    y = np.zeros_like(x)
    t = np.empty_like(x)

    def step() -> None:
        np.multiply(x, x, out=t)
        np.negative(t, out=t)
        np.exp(t, out=t)
        np.sin(x, out=y)
        np.multiply(y, t, out=y)
        np.abs(x, out=t)
        np.sqrt(t, out=t)
        np.add(y, t, out=y)

    return Impl(step, lambda: {"y": y})
