"""Sparse grid with a pointer level: ``ti.root.pointer(ti.ij, n // 16).dense(ti.ij, 16)``, 3 %
of the blocks active; per step deactivate all, activate by writing, one struct-for (see
`benchmarks/cases/sparse_grid.py`)."""

# No "from __future__ import annotations": Taichi reads kernel annotations as objects.

import numpy as np

from benchmarks.cases import Impl, sparse_grid
from benchmarks.cases.sparse_grid import (  # noqa: F401 (the case contract)
    COLD,
    REPS,
    SIZE_LABEL,
    SIZES,
    UNIT,
    expected,
    make_inputs,
    numba_impl,
    numpy_impl,
)

DESCRIPTION = "pointer(16² blocks) grid, 3 % active: deactivate_all, activate, struct-for + count"


def taichi_impl(ti, inputs: dict[str, np.ndarray]) -> Impl:
    return sparse_grid.taichi_impl(ti, inputs, lambda ti, nb: ti.root.pointer(ti.ij, nb))
