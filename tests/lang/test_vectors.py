"""Vectors and matrices end to end: kernels, fields, ndarrays, arguments and returns."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_vector_arithmetic_methods_and_swizzles() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.math.vec4:
        v = ti.Vector([a, 2.0, 3.0])
        w = v * 2 + 1
        v[1] = 10.0
        return ti.Vector([w.x + v.y, v.dot(w), v.cross(w).z, w.yz.norm_sqr()])

    got = k(1.0).to_numpy()
    v, w = np.array([1.0, 10.0, 3.0]), np.array([3.0, 5.0, 7.0])
    want = [3 + 10, v @ w, np.cross(v, w)[2], 25 + 49]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_matrix_products_determinant_inverse() -> None:
    @ti.kernel
    def k(m: ti.math.mat3, v: ti.math.vec3) -> ti.types.matrix(3, 3, ti.f32):
        return (m @ m.inverse()) * m.determinant() + m.transpose() @ ti.Matrix.identity(
            ti.f32, 3
        ) * (v @ v)

    m = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]], np.float32)
    v = np.array([1.0, 2.0, 2.0], np.float32)
    got = k(ti.Matrix(m), ti.Vector(v)).to_numpy()
    want = np.eye(3) * np.linalg.det(m) + m.T * 9
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_run_time_index_into_a_local_vector() -> None:
    @ti.kernel
    def k(i: ti.i32) -> ti.f32:
        v = ti.Vector([1.0, 2.0, 3.0, 4.0])
        v[i] += 10.0
        return v[i] + v.sum()

    assert [k(i) for i in range(4)] == [11 + 20, 12 + 20, 13 + 20, 14 + 20]


def test_vector_field_layout_and_numpy_conventions() -> None:
    x = ti.Vector.field(3, ti.f32, shape=(4, 2))
    m = ti.Matrix.field(2, 2, ti.i32, shape=5)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = ti.Vector([i, j, i * j])
        for i in m:
            m[i] = ti.Matrix([[i, 1], [2, i * i]])
            m[i][0, 1] += 5

    fill()
    arr = x.to_numpy()
    assert arr.shape == (4, 2, 3) and arr.dtype == np.float32
    np.testing.assert_array_equal(arr[3, 1], [3, 1, 3])
    mats = m.to_numpy()
    assert mats.shape == (5, 2, 2)
    np.testing.assert_array_equal(mats[4], [[4, 6], [2, 16]])
    assert x[3, 1].to_list() == [3.0, 1.0, 3.0]
    x.from_numpy(np.ones((4, 2, 3), np.float32))
    assert x.to_numpy().sum() == 24


def test_vector_ndarray_argument() -> None:
    @ti.kernel
    def scale(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1), s: ti.f32):
        for i in a:
            a[i] = a[i] * s + ti.Vector([0.0, 0.0, 1.0])

    arr = ti.Vector.ndarray(3, ti.f32, 4)
    arr.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    scale(arr, 2.0)
    want = np.arange(12).reshape(4, 3) * 2.0 + [0, 0, 1]
    np.testing.assert_array_equal(arr.to_numpy(), want)


def test_func_taking_and_returning_vectors() -> None:
    @ti.func
    def reflect_x(v):
        return ti.Vector([-v.x, v.y])

    @ti.kernel
    def k() -> ti.math.vec2:
        return ti.math.normalize(reflect_x(ti.Vector([3.0, 4.0])))

    np.testing.assert_allclose(k().to_numpy(), [-0.6, 0.8], rtol=1e-6)


def test_scalarize_shows_tensors_before_and_scalars_after() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, a])
        return v.norm()

    passes = {r.name: r.ir_text for r in k.compile_report(1.0).passes}
    assert "[Tensor (2) f32]" in passes["type_check"]
    assert "Tensor" not in passes["scalarize"]


@pytest.mark.parametrize(
    "arch", [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]
)
def test_writes_to_a_field_or_ndarray_element_at_a_run_time_component_reach_memory(arch) -> None:  # noqa: ANN001
    """`f[i][k] = v`, `m[i][j, k] = v`, `arr[i][k] += v` with a run-time `k` wrote into a local
    copy of the vector and the store was lost (found with the debug checks of #10)."""
    import os

    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    ti.init(arch=arch)
    m = ti.Matrix.field(2, 3, ti.i32, shape=4)
    f = ti.Vector.field(3, ti.i32, shape=4)

    @ti.kernel
    def write(i: ti.i32, j: ti.i32, k: ti.i32, arr: ti.types.ndarray(dtype=ti.math.ivec3, ndim=1)):
        m[i][j, k] = 7
        for c in ti.static(range(3)):  # row j of the matrix (Taichi has no m[i][j] rows)
            m[i][j, c] += c + 1
        arr[i][k] += 10
        f[i][k] = arr[i][k]

    @ti.kernel
    def count(n: ti.i32):
        for t in range(n):  # several threads on one element: atomic adds
            f[t % 4][t % 3] += 1

    arr = np.zeros((4, 3), np.int32)
    write(1, 1, 2, arr)
    write(2, 0, 0, arr)
    count(240)
    want_m = np.zeros((4, 2, 3), np.int32)
    want_m[1, 1] = [1, 2, 10]
    want_m[2, 0] = [8, 2, 3]
    assert np.array_equal(m.to_numpy(), want_m)
    assert arr.tolist() == [[0, 0, 0], [0, 0, 10], [10, 0, 0], [0, 0, 0]]
    assert f.to_numpy().tolist() == [[20, 20, 20], [20, 20, 30], [30, 20, 20], [20, 20, 20]]


@pytest.mark.parametrize(
    "arch", [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]
)
def test_atomics_on_a_vector_element_at_a_run_time_index(arch) -> None:  # noqa: ANN001
    """`ti.atomic_add(v[k], x)` raised InternalCompilerError for a local vector, and for a field
    element it did too (it went to a local copy); Taichi 1.7.4 computes both as here."""
    import os

    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    ti.init(arch=arch)
    f = ti.Vector.field(3, ti.i32, shape=4)

    @ti.kernel
    def local(k: ti.i32) -> ti.i32:
        v = ti.Vector([1, 2, 3])
        old = ti.atomic_add(v[k], 5)
        return old * 100 + v[k]

    @ti.kernel
    def field(n: ti.i32) -> ti.i32:
        total = 0
        for t in range(n):
            total += ti.atomic_max(f[t % 4][t % 3], t)
        return total

    assert [local(k) for k in range(3)] == [106, 207, 308]
    field(24)
    assert f.to_numpy().tolist() == [[12, 16, 20], [21, 13, 17], [18, 22, 14], [15, 19, 23]]


@pytest.mark.parametrize("debug", [False, True])
def test_pythons_all_and_any_reduce_a_vector_in_a_kernel(debug: bool) -> None:
    """`all(v == w)` and `any(...)` in a kernel, as in Taichi 1.7.4 (which gives 111 and 10
    for this kernel): the elements' truth reduced, like `.all()`. An `assert all(...)` compiles
    with debug off too (its condition is compiled there since a364e05) and checks with it on."""
    ti.init(arch=ti.cpu, debug=debug, offline_cache=False)

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        v = ti.Vector([a, 2, 3])
        w = ti.Vector([1, 2, 3])
        r = 0
        if all(v == w):
            r += 1
        if any(v == w):
            r += 10
        if (v == w).all():
            r += 100
        assert all(v == w) or a != 1
        return r

    assert (k(1), k(5)) == (111, 10)
    ti.reset()
