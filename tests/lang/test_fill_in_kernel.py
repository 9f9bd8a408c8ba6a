"""`field.fill(v)` inside a kernel or a ti.func, as Taichi 1.7.4 compiles it (a loop over the
field's indices), while Python scope keeps writing through NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_scalar_field_filled_from_a_kernel_argument() -> None:
    x = ti.field(ti.i32, shape=(3, 5))

    @ti.kernel
    def fill(v: ti.i32):
        x.fill(v)

    fill(7)
    assert (x.to_numpy() == 7).all()
    fill(-2)  # the argument is read at run time, not baked in
    assert (x.to_numpy() == -2).all()


def test_matrix_field_filled_with_a_scalar_or_a_matrix() -> None:
    m = ti.Matrix.field(2, 3, ti.i32, shape=4)

    @ti.kernel
    def with_scalar(v: ti.i32):
        m.fill(v)

    @ti.kernel
    def with_matrix(v: ti.types.matrix(2, 3, ti.i32)):
        m.fill(v)

    with_scalar(3)
    assert (m.to_numpy() == 3).all()
    with_matrix(ti.Matrix([[0, 1, 2], [3, 4, 5]]))
    expected = np.broadcast_to(np.arange(6).reshape(2, 3), (4, 2, 3))
    np.testing.assert_array_equal(m.to_numpy(), expected)


def test_fill_from_a_func_casts_to_the_field_type() -> None:
    x = ti.field(ti.f32, shape=6)
    v = ti.Vector.field(2, ti.i32, shape=3)

    @ti.func
    def reset(value):  # noqa: ANN001, ANN202
        x.fill(value)
        v.fill(value)

    @ti.kernel
    def run(value: ti.f32):
        reset(value)

    run(2.5)
    assert (x.to_numpy() == 2.5).all()
    assert (v.to_numpy() == 2).all()


def test_python_scope_fill_still_writes_directly() -> None:
    x = ti.field(ti.i32, shape=3)
    x.fill(4)
    assert (x.to_numpy() == 4).all()
    assert x.fill.__name__ == "fill"
