"""`ti.field(dtype)` with a vector or matrix type (`ti.types.vector(3, ti.f32)`,
`ti.types.matrix(2, 2, ti.i32)`, `ti.math.vec3`) makes the same vector or matrix field as
`ti.Vector.field`/`ti.Matrix.field`, as Taichi 1.7.4 does, with `shape`, `offset`,
`needs_grad` and `name` passed along, on the CPU and on the GPU (lavapipe)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang.matrix_field import MatrixField
from tistudio.lang.snode import root

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]


@pytest.mark.parametrize("arch", ARCHES)
def test_vector_and_matrix_types_make_vector_and_matrix_fields(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    a = ti.field(ti.types.vector(3, ti.f32), shape=4)
    b = ti.field(ti.types.matrix(2, 2, ti.i32), shape=(2, 3))
    c = ti.field(dtype=ti.math.mat2, shape=())
    assert isinstance(a, MatrixField) and (a.n, a.m, a.dtype, a.shape) == (3, 1, ti.f32, (4,))
    assert isinstance(b, MatrixField) and (b.n, b.m, b.dtype, b.shape) == (2, 2, ti.i32, (2, 3))

    @ti.kernel
    def fill():
        for i in a:
            a[i] = ti.Vector([i, 2 * i, 3 * i])
        for i, j in b:
            b[i, j] = ti.Matrix([[i, j], [i + j, i * j]])
        c[None] = [[1, 2], [3, 4]]

    fill()
    np.testing.assert_array_equal(a.to_numpy(), np.arange(4)[:, None] * [1, 2, 3])
    assert a.to_numpy().shape == (4, 3) and b.to_numpy().shape == (2, 3, 2, 2)
    assert b[1, 2].to_numpy().tolist() == [[1, 2], [3, 2]]
    assert c.to_numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("arch", ARCHES)
def test_math_vec3_field_with_offset_and_gradient(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.math.vec3, shape=2, offset=5, needs_grad=True, name="x")
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def f():
        for i in x:
            loss[None] += x[i].dot(ti.Vector([1.0, 2.0, 3.0])) * i

    x.fill(1.0)
    with ti.ad.Tape(loss=loss):
        f()
    assert x.n == 3 and x.offset == (5,) and x.name == "x"
    assert loss[None] == pytest.approx(6.0 * 5 + 6.0 * 6)
    assert x.grad[6].to_list() == pytest.approx([6.0, 12.0, 18.0])


def test_vector_type_field_placed_by_hand() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    e = ti.field(ti.types.vector(2, ti.i32))
    root.dense(ti.i, 3).place(e)
    e[2] = [7, 8]
    assert e.shape == (3,) and e.n == 2 and e.to_numpy().tolist() == [[0, 0], [0, 0], [7, 8]]


def test_vector_type_without_element_dtype_is_a_value_error() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    with pytest.raises(ValueError, match="Invalid data type None"):
        ti.field(ti.types.vector(3), shape=2)
