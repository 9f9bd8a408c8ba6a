"""Launch overhead, ndarray arguments: a cached tiny kernel given two NumPy arrays and a scalar.

The same computation and batching as ``launch_overhead``, but the kernel's array arguments are
``ti.types.ndarray()`` and each call passes the NumPy arrays themselves, so the time includes
how each framework hands an external array to a kernel. Numba and NumPy have no fields, so their
versions are the same as in ``launch_overhead``.
"""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl
from benchmarks.cases.launch_overhead import (  # noqa: F401  (same Numba/NumPy versions)
    A,
    N,
    expected,
    make_inputs,
    numba_impl,
    numpy_impl,
)

UNIT = "us"
DESCRIPTION = "per call of a cached 16-element kernel (2 ndarrays + 1 scalar), batch then sync"
SIZES = {"full": 10_000, "quick": 1_000}  # calls per repetition
REPS = {"full": 7, "quick": 5}
SIZE_LABEL = "{n:,} calls × 16"  # formatted with n = SIZES[mode]
COLD = False
THROUGHPUT = False  # a per-call latency: left out of the geometric mean


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    calls = int(inputs["calls"])
    x, y = inputs["x"].copy(), inputs["y"].copy()
    assert x.size == N

    @ti.kernel
    def tiny(x: ti.types.ndarray(), y: ti.types.ndarray(), a: ti.f32):
        for i in range(16):
            y[i] = a * x[i] + y[i]

    a = float(A)

    def step() -> None:
        for _ in range(calls):
            tiny(x, y, a)
        ti.sync()

    return Impl(step, lambda: {"y": y.copy()}, calls_per_step=calls)
