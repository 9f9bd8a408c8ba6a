"""Matrices and vectors in kernels as Taichi 1.7.4 has them (`ti.zero`/`ti.one`, global
vectors used in kernels, transposes, Python-scope operators)."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import ops


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_zero_and_one_keep_the_type_and_shape_of_their_argument() -> None:
    total = ti.field(ti.u32, shape=())

    @ti.kernel
    def run(a: ti.f32) -> ti.u32:
        s = ops.zero(total[None])  # a u32 accumulator, as `ti.zero(x)` in Taichi's reductions
        for i in range(4):
            s += ti.u32(i)
        total[None] = s
        v = ops.one(ti.Vector([1.5, 2.0])) + ops.zero(a)
        m = ops.one(ti.Matrix([[1, 2], [3, 4]]))
        return s + ti.u32(v.sum() + m.sum())

    assert run(3.0) == 6 + 2 + 4
    assert total[None] == 6


def test_zero_is_for_kernels_only() -> None:
    with pytest.raises(ti.TaichiSyntaxError):
        ops.zero(np.float32(1.0))
