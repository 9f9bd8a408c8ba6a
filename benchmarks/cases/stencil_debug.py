"""The stencil case in debug mode: what bounds checking costs (`ti.init(debug=True)`, Numba's
``boundscheck=True``); compare its row with the stencil row, which runs without checks."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

from benchmarks.cases import Impl, stencil

UNIT = "ms"
DESCRIPTION = "the stencil with bounds checks: ti.init(debug=True), numba boundscheck=True"
SIZES = stencil.SIZES
REPS = stencil.REPS
SIZE_LABEL = stencil.SIZE_LABEL
COLD = False
THROUGHPUT = False  # a debugging aid, not a speed claim: left out of the geomean

make_inputs = stencil.make_inputs
expected = stencil.expected
numpy_impl = stencil.numpy_impl  # NumPy has no unchecked mode: the same row as the stencil's


def taichi_impl(ti, inputs) -> Impl:
    ti.init(arch=ti.cpu, debug=True, offline_cache=False)
    return stencil.taichi_impl(ti, inputs)


def numba_impl(inputs) -> Impl:
    from numba import njit, prange

    a = inputs["a"]
    b = a * 0
    w = stencil.W

    @njit(parallel=True, boundscheck=True)
    def kernel(a, b):
        n, m = a.shape
        for i in prange(1, n - 1):
            for j in range(1, m - 1):
                b[i, j] = w * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    return Impl(lambda: kernel(a, b), lambda: {"b": b})
