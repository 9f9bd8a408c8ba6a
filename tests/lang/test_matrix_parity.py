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


def test_python_scope_vectors_met_in_kernel_arithmetic_are_constants() -> None:
    x = ti.Vector.field(3, dtype=ti.i32, shape=(8, 8))
    offsets = [ti.Vector([1, 2]), ti.Vector([2, 3])]

    @ti.kernel
    def run():
        v = ti.Vector([4, 5])
        x[v + ti.static(offsets)[0]] = [1, 1, 1]  # a vector picked from a Python list
        w = ti.Vector([0, 1])
        x[ti.select(w, w, ti.static(offsets)[1])] = [2, 2, 2]
        w += ti.static(offsets)[0]
        x[w] = [3, 3, 3]

    run()
    assert (x[5, 7] == [1, 1, 1]).all()
    assert (x[2, 1] == [2, 2, 2]).all()
    assert (x[1, 3] == [3, 3, 3]).all()


def test_operator_functions_compile_as_their_operators() -> None:
    import operator

    m1, m2 = ti.Matrix([[1, 2], [3, 4]]), ti.Matrix([[5, 6], [7, 8]])
    r = ti.Matrix.field(2, 2, dtype=ti.i32, shape=())
    flags = ti.Vector.field(2, dtype=ti.i32, shape=())

    @ti.kernel
    def run(k: ti.i32):
        r[None] = operator.matmul(m1, m2) - ops.add(m1, k)
        v = ti.Vector([k, 5])
        flags[None] = operator.lt(v, 5) + ops.neg(v)

    run(2)
    np.testing.assert_array_equal(r[None].to_numpy(), [[19 - 3, 22 - 4], [43 - 5, 50 - 6]])
    assert flags[None].to_numpy().tolist() == [1 - 2, 0 - 5]
    assert ops.add(2, 3) == 5  # Python scope: Python's operator


def test_a_vector_has_no_transpose_in_either_scope() -> None:
    @ti.kernel
    def outer():
        x = ti.Vector([1, 2])
        y = ti.Vector([3, 4])
        print(x @ y.transpose())

    with pytest.raises(ti.TaichiCompilationError, match="write `a.outer_product"):
        outer()
    with pytest.raises(ti.TaichiCompilationError, match="cannot apply to a vector"):
        ti.Vector([1, 2]).transpose()
    assert ti.Matrix.cols([ti.Vector([1, 2]), ti.Vector([3, 4])]).to_numpy().tolist() == [
        [1, 3],
        [2, 4],
    ]


def test_vector_times_matrix_and_tuples_as_vectors_in_a_kernel() -> None:
    out = ti.Vector.field(2, dtype=ti.f32, shape=3)

    @ti.kernel
    def run(t: ti.i32):
        w = ti.Vector([5, -12])
        m = ti.Matrix([[5, 7], [9, t]])
        out[0] = w @ m  # a row vector times a matrix, not a dot product
        a = ti.Vector([1, 2], ti.f32) / 2
        out[1] = a - (0.5, 1.0) + [t, 0]
        c = ti.Matrix([[1, 2], [3, 4]])
        out[2] = ti.Vector([(c == ((1, 2), (3, 5))).cast(ti.i32).sum(), all(c < ((2, 3), (4, 5)))])

    run(10)
    assert out[0].to_numpy().tolist() == [25 - 108, 35 - 120]
    assert out[1].to_numpy().tolist() == [10, 0]
    assert out[2].to_numpy().tolist() == [3, 1]


def test_python_scope_operators_and_math_on_matrices() -> None:
    import operator

    a, b = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    for op in (operator.ifloordiv, operator.imod, operator.ilshift, operator.irshift):
        np.testing.assert_array_equal(op(ti.Matrix(a), ti.Matrix(b)).to_numpy(), op(a, b))
    for op in (operator.ior, operator.ixor, operator.iand, operator.ipow):
        np.testing.assert_array_equal(op(ti.Matrix(a), ti.Matrix(b)).to_numpy(), op(a, b))
    v = ti.Vector([1.5, 2.5])
    assert (v < [2, 3]).all() and not (v > [2, 3]).any() and (v >= 1.5).all()
    assert ti.max(2, ti.Vector([1, 3])).to_numpy().tolist() == [2, 3]
    np.testing.assert_allclose(ti.cos(ti.Vector([2, 3])).to_numpy(), np.cos([2, 3]))
    assert ti.select(ti.Vector([1, 0]), ti.Vector([2, 3]), ti.Vector([4, 5])).to_list() == [2, 5]
    assert ti.types.vector(3, ti.f32)([0, 1, 2]).entries.dtype == np.float32
    assert ti.types.matrix(2, 2, ti.i32)([[0, 1], [2, 3]]).entries.dtype == np.int32


def test_fill_method_writes_variables_and_field_elements_in_place() -> None:
    x = ti.Struct.field({"a": ti.f32, "b": ti.types.vector(3, ti.i32)}, shape=3)
    out = ti.Vector.field(2, ti.f32, shape=())

    @ti.kernel
    def run():
        m = ti.Matrix([[0.0, 0.0], [0.0, 0.0]])
        m.fill(1.5)
        v = ti.Vector([1, 2])
        v.fill(7)
        out[None] = [m.sum(), v.sum()]
        for i in x:
            x[i].b.fill(i + 0.5)  # cast to the member's i32, as any store

    with pytest.warns(UserWarning, match="may lose precision"):
        run()
    assert out[None].to_list() == [6.0, 14.0]
    assert x.b.to_numpy().tolist() == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]


def test_a_field_in_vector_arithmetic_is_an_unsupported_operand() -> None:
    x = ti.field(int, shape=())

    @ti.kernel
    def run():
        a = ti.Vector([1, 1, 1])
        print(a * x)

    with pytest.raises(ti.TaichiTypeError, match=r"unsupported operand type.*index it"):
        run()


def test_numpy_scalars_and_python_matrices_make_matrices() -> None:
    vec = ti.Vector([1, 2])
    assert isinstance(np.cos(0) + vec, ti.Matrix) and isinstance(vec + np.cos(0), ti.Matrix)
    assert (np.float32(2) / vec).to_list() == [2.0, 1.0]
    assert ti.Vector([3, 4]).cross(ti.Vector([5, -12])) == -56


def test_python_scope_swizzles_write_elements() -> None:
    w, r = ti.Vector([5, -12]), ti.Vector([1, 2, 3, 4])
    w.y = 3 * w[0]
    r.x = r.y
    r.zw = 7, 8
    assert w.to_list() == [5, 15] and r.to_list() == [2, 2, 7, 8]
    x = ti.Vector.field(2, ti.i32, shape=2)
    element = x[1]
    element.y = 9  # an element of a field writes through
    assert x[1].to_list() == [0, 9]
