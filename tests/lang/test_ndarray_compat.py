"""Ndarray containers as Taichi 1.7.4's programs and tests use them: the Scalar/Vector/Matrix
kinds and their attributes, `fill`, `copy_from`, deep copies, Python-scope element access and
element comparisons, the shapes Taichi refuses, and the sizes Taichi reports."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiIndexError
from tistudio.ir.assertions import TaichiRuntimeError
from tistudio.lang.ndarray import MatrixNdarray, ScalarNdarray, VectorNdarray


@pytest.fixture(autouse=True)
def _cpu() -> None:
    ti.init(arch=ti.cpu)


def test_kinds_and_attributes() -> None:
    v = ti.Vector.ndarray(3, ti.f64, (2, 5))
    m = ti.Matrix.ndarray(2, 3, ti.i32, 4)
    s = ti.ndarray(ti.f32, 6)
    assert isinstance(v, VectorNdarray) and isinstance(m, MatrixNdarray)
    assert isinstance(s, ScalarNdarray)
    assert (v.shape, v.element_shape, v.dtype, v.n) == ((2, 5), (3,), ti.f64, 3)
    assert (m.shape, m.element_shape, m.dtype, m.n, m.m) == ((4,), (2, 3), ti.i32, 2, 3)
    assert (s.shape, s.element_shape, s.element_type) == ((6,), (), ti.f32)
    assert not hasattr(v, "m") and not hasattr(s, "n")
    assert m.element_type.shape() == [2, 3] and m.element_type.element_type() == ti.i32
    assert repr(v.element_type) == "[Tensor (3) f64]"


@pytest.mark.parametrize(
    "dtype", [ti.math.vec3, ti.types.vector(3, ti.f32)], ids=["math.vec3", "types.vector"]
)
def test_vector_types_make_vector_ndarrays(dtype) -> None:
    a = ti.ndarray(dtype, shape=4)
    assert isinstance(a, VectorNdarray) and a.n == 3 and a.dtype == ti.f32
    assert a.to_numpy().shape == (4, 3)
    b = ti.ndarray(dtype=ti.types.matrix(3, 4, float), shape=(2, 3))
    assert isinstance(b, MatrixNdarray) and b.total_shape() == [2, 3, 3, 4]


def test_sizes() -> None:
    assert ti.ndarray(ti.i32, 8)._get_element_size() == 4
    b = ti.Vector.ndarray(10, ti.f64, 5)
    assert (b._get_element_size(), b._get_nelement()) == (80, 5)
    assert b.arr.total_shape() == [5, 10]


def test_fill_with_scalars_vectors_and_matrices() -> None:
    v = ti.ndarray(ti.math.vec2, (3, 3))
    v.fill(1.5)
    assert (v.to_numpy() == 1.5).all()
    v.fill(ti.math.vec2(2.0, 4.0))
    assert v.to_numpy()[2, 1].tolist() == [2.0, 4.0]
    m = ti.Matrix.ndarray(2, 2, ti.f32, 4)
    m.fill(ti.math.mat2([[1, 2], [3, 4]]))
    assert m.to_numpy()[3].tolist() == [[1, 2], [3, 4]]


def test_element_comparisons_are_element_wise() -> None:
    y = ti.ndarray(ti.math.vec2, shape=2)
    y[0] = [1.0, 2.0]
    same, other = y[0] == [1.0, 2.0], y[0] == [1.0, 3.0]
    assert same.to_list() == [True, True] and same.all() and same
    assert other.to_list() == [True, False] and other.any() and not other.all()
    assert not other
    assert (y[0] != [1.0, 3.0]).to_list() == [False, True]
    assert y[1] == ti.Vector([0.0, 0.0])
    assert (y[0] == [1.0, 2.0, 3.0]) is False  # another shape: not equal, as for any object


def test_element_writes_go_through() -> None:
    x = ti.Vector.ndarray(4, ti.i32, 5)
    x[1][0] = 7
    m = ti.Matrix.ndarray(2, 2, ti.i32, 5)
    m[4][1, 0] = 9
    assert x.to_numpy()[1].tolist() == [7, 0, 0, 0] and m.to_numpy()[4, 1, 0] == 9
    assert isinstance(x[1], ti.Vector) and x[1, 0] == 7


def test_zero_dim_ndarrays_take_none_and_empty_tuple() -> None:
    x = ti.ndarray(ti.f32, shape=())
    x[()] = 1.5
    assert x[None] == 1.5
    y = ti.ndarray(ti.math.vec2, shape=())
    y[None] = [1.0, 2.0]
    assert y[()].to_list() == [1.0, 2.0]


def test_index_count_must_fit() -> None:
    x = ti.ndarray(ti.f32, shape=(4, 4))
    with pytest.raises(TaichiIndexError, match=r"2d ndarray indexed with 1d indices"):
        x[0]
    with pytest.raises(TaichiIndexError, match=r"2d ndarray indexed with 3d indices"):
        x[0, 0, 0] = 1.0


def test_copy_from_and_deepcopy() -> None:
    x, y = ti.Matrix.ndarray(2, 2, ti.i32, 5), ti.Matrix.ndarray(2, 2, ti.i32, 5)
    y[4][1, 0] = 6
    x.copy_from(y)
    assert x[4][1, 0] == 6
    with pytest.raises(ValueError, match="do not match"):
        x.copy_from(ti.Matrix.ndarray(2, 3, ti.i32, 5))
    z = copy.deepcopy(x)
    assert isinstance(z, MatrixNdarray) and (z.n, z.m, z.shape) == (2, 2, (5,))
    x[4][1, 0] = 1
    assert z[4][1, 0] == 6


@pytest.mark.parametrize("shape", [2**31, 1.5, 0, (1, 0), (1, 0.5), (1, 2**31)])
def test_invalid_shapes_are_taichi_runtime_errors(shape) -> None:
    with pytest.raises(TaichiRuntimeError, match=r"is not a valid shape for ndarray"):
        ti.ndarray(dtype=int, shape=shape)


def test_numpy_round_trip_of_matrix_ndarray() -> None:
    m = ti.Matrix.ndarray(2, 3, ti.f32, 4)
    data = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    m.from_numpy(data)
    assert np.array_equal(m.to_numpy(), data)
    with pytest.raises(ValueError, match=r"Mismatch shape: \(4, 2, 3\) expected"):
        m.from_numpy(data[:3])


def test_element_type_mismatch_names_both_types() -> None:
    @ti.kernel
    def wants_vec2(a: ti.types.ndarray(dtype=ti.types.vector(2, ti.i32))):
        pass

    @ti.kernel
    def wants_mat22(a: ti.types.ndarray(dtype=ti.types.matrix(2, 2, ti.i32))):
        pass

    required = r"Invalid value for argument a - required element type: "
    with pytest.raises(ValueError, match=required + r"VectorType\[2, i32\], but .* is provided"):
        wants_vec2(ti.Matrix.ndarray(2, 1, ti.i32, shape=(4, 7)))
    # (4, 2) vectors end with axes (2, 2), but their elements are not 2x2 matrices
    with pytest.raises(ValueError, match=required + r"MatrixType\[2,2, i32\], but \[Tensor \(2\)"):
        wants_mat22(ti.Vector.ndarray(2, ti.i32, shape=(4, 2)))


def test_scalar_parameter_refuses_vector_elements() -> None:
    @ti.kernel
    def wants_f32(arr: ti.types.ndarray(dtype=ti.f32)):
        for i in ti.grouped(arr):
            arr[i] = 2.0

    with pytest.raises(TypeError, match=r"Expect element type f32 .* get \[Tensor \(3\) i32\]"):
        wants_f32(ti.ndarray(ti.types.vector(3, ti.i32), shape=(12, 4)))
    with pytest.raises(TypeError, match=r"but get \[Tensor \(3\) f32\]"):
        wants_f32(ti.Vector.ndarray(3, ti.f32, 4))
    with pytest.raises(ValueError, match=r"Expect element type f32 for argument arr, but get i32"):
        wants_f32(ti.ndarray(ti.i32, 4))


def test_ndim_mismatch_in_taichi_words() -> None:
    @ti.kernel
    def wants_1d(arr: ti.types.ndarray(ndim=1)):
        pass

    message = r"required ndim=1, but 2d ndarray with shape \(12, 13\) is provided"
    with pytest.raises(ValueError, match=message):
        wants_1d(ti.ndarray(ti.f32, shape=(12, 13)))


@pytest.mark.parametrize("literal", [[1, 2], [7]], ids=["two", "one"])
def test_list_of_another_size_is_not_stored(literal) -> None:
    @ti.kernel
    def store(arr: ti.types.ndarray(dtype=ti.types.vector(3, ti.i32))):
        for i in ti.grouped(arr):
            arr[i] = literal  # a Python list, as a vector literal

    size = len(literal)
    message = rf"cannot assign '\[Tensor \({size}\) i32\]' to '\[Tensor \(3\) i32\]'"
    with pytest.raises(ti.TaichiTypeError, match=message):
        store(ti.ndarray(ti.types.vector(3, ti.i32), shape=(2, 4)))


def test_ndim_without_element_type_counts_a_containers_own_elements() -> None:
    @ti.kernel
    def first_to_100(x: ti.types.ndarray(ndim=1)):
        x[0] = [100, 100, 100]

    arr = ti.ndarray(ti.math.vec3, shape=4)
    first_to_100(arr)
    assert arr[0].to_list() == [100.0, 100.0, 100.0]
    with pytest.raises(ValueError, match=r"required ndim=1, but 2d ndarray with shape \(4, 2\)"):
        first_to_100(ti.ndarray(ti.math.vec3, shape=(4, 2)))


def test_the_container_classes_are_ti_names() -> None:
    """Taichi's programs test `isinstance(a, ti.VectorNdarray)`: the classes are `ti.` names."""
    assert (ti.ScalarNdarray, ti.VectorNdarray, ti.MatrixNdarray) == (
        ScalarNdarray,
        VectorNdarray,
        MatrixNdarray,
    )
