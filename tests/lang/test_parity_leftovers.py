"""Small behaviours of Taichi 1.7.4 that its own test suite checks and that belong to no bigger
topic: tuple unpacking of matrices, atomic builtins on non-writable operands, dataclass methods,
ti.func parameters annotated as ndarrays. Each case was compared with real Taichi."""

from __future__ import annotations

import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiIndexError  # not yet ti.TaichiIndexError

VEC3 = ti.types.vector(3, ti.f32)
MAT31 = ti.types.matrix(3, 1, ti.f32)


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_a_vector_unpacks_into_its_elements() -> None:
    @ti.kernel
    def run() -> ti.i32:
        v = ti.Vector([2, 3, 4])
        p, q, r = v
        return p * 100 + q * 10 + r

    assert run() == 234


@pytest.mark.parametrize("rows", [[[2, 3], [4, 5]], [[2], [4]], [[2, 3]]])
def test_a_matrix_does_not_unpack_even_when_the_count_matches(rows: list) -> None:
    @ti.kernel
    def run() -> ti.i32:
        m = ti.Matrix(rows)
        p, q = m  # 4, 2 or 1x2 entries: Taichi unpacks vectors only
        return 0

    with pytest.raises(ti.TaichiCompilationError, match="more than one columns") as info:
        run()
    assert "p, q = m" in str(info.value)


def test_unpacking_a_matrix_into_as_many_targets_as_its_entries_is_refused() -> None:
    a = ti.field(ti.f32, shape=4)

    @ti.kernel
    def run():
        m = ti.Matrix([[2, 3], [4, 5]])
        a[0], a[1], a[2], a[3] = m

    with pytest.raises(ti.TaichiCompilationError, match="cannot unpack a 2x2 matrix"):
        run()


def test_a_count_mismatch_names_both_counts_and_taichi_words() -> None:
    a = ti.field(ti.f32, shape=2)

    @ti.kernel
    def run():
        a[0], a[1] = ti.Vector([1, 2, 3])

    with pytest.raises(ti.TaichiSyntaxError, match="3 values into 2 targets") as info:
        run()
    assert "The number of targets is not equal to value length" in str(info.value)


@pytest.mark.parametrize("name", ["atomic_min", "atomic_add", "atomic_and", "atomic_xor"])
def test_an_atomic_on_a_value_that_cannot_be_written_is_refused_with_taichi_words(
    name: str,
) -> None:
    atomic = getattr(ti, name)

    @ti.kernel
    def run():
        y = ti.Vector([1, 2, 3])
        z = atomic([3, 2, 1], y)  # noqa: F841 - the first operand is a list, not a place

    with pytest.raises(ti.TaichiSyntaxError, match=f"ti.{name}\\(\\) needs a field element") as e:
        run()
    assert f"cannot use a non-writable target as the first operand of '{name}'" in str(e.value)


def test_a_func_ndarray_parameter_writes_through_to_the_callers_array() -> None:
    @ti.func
    def fill(a: ti.types.ndarray(dtype=VEC3, ndim=1), b: ti.types.ndarray()):
        a[0] = [100, 200, 300]
        b[1] = 7

    @ti.kernel
    def run(x: ti.types.ndarray(ndim=1), y: ti.types.ndarray(ndim=1)):
        fill(x, y)

    arr = ti.ndarray(VEC3, shape=4)
    flat = ti.ndarray(ti.i32, shape=4)
    run(arr, flat)
    assert list(arr[0]) == [100, 200, 300]
    assert flat[1] == 7


@ti.func
def _write_vec2(a: ti.types.ndarray(dtype=ti.math.vec2, ndim=1)):
    a[0] = 1


@ti.func
def _write_mat31(a: ti.types.ndarray(dtype=MAT31, ndim=1)):
    a[0] = 1


@ti.func
def _write_i32(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
    a[0] = 1


@pytest.mark.parametrize(
    ("write", "words"),
    [
        (_write_vec2, "required element type: VectorType[2, f32], but [Tensor (3) f32]"),
        (_write_mat31, "required element type: MatrixType[3,1, f32], but"),
        (_write_i32, "Expect element type i32 for argument a, but get [Tensor (3) f32]"),
    ],
)
def test_a_func_ndarray_parameter_checks_the_element_type(write: object, words: str) -> None:
    @ti.kernel
    def run(x: ti.types.ndarray(ndim=1)):
        write(x)

    with pytest.raises(ti.TaichiCompilationError, match="parameter 'a' takes an ndarray") as e:
        run(ti.ndarray(ti.math.vec3, shape=4))
    assert words in str(e.value)
    assert "write(x)" in str(e.value)


def test_a_func_ndarray_parameter_of_scalars_refuses_vector_elements_and_other_dtypes() -> None:
    @ti.kernel
    def run(x: ti.types.ndarray(ndim=1)):
        _write_i32(x)

    run(ti.ndarray(ti.i32, shape=2))
    with pytest.raises(ti.TaichiCompilationError, match="Expect element type i32 .* but get f32"):
        run(ti.ndarray(ti.f32, shape=2))


@ti.dataclass
class Pair:
    x: ti.f32
    y: ti.f32

    @ti.func
    def plus(self, other: ti.template()):
        return Pair(self.x + other.x, self.y + other.y)

    def plus_python(self, other):
        return Pair(self.x + other.x, self.y + other.y)

    def _norm1(self):
        return abs(self.x) + abs(self.y)


def test_dataclass_python_methods_work_on_python_scope_values() -> None:
    @ti.kernel
    def twice(p: Pair) -> Pair:
        return p.plus(p)

    b = twice(Pair(1, 2))
    c = b.plus_python(b)
    assert (c.x, c.y) == (4, 8)
    assert c._norm1() == 12
    cells = Pair.field(shape=2)
    cells[1] = Pair(3, -4)
    assert cells[1]._norm1() == 7


def test_a_dataclass_ti_func_method_is_for_kernels_and_a_python_one_for_python_scope() -> None:
    with pytest.raises(ti.TaichiSyntaxError, match="can only be called from a kernel"):
        Pair(1, 2).plus(Pair(1, 2))

    @ti.kernel
    def run(p: Pair) -> ti.f32:
        return p.plus_python(p).x

    with pytest.raises(ti.TaichiSyntaxError, match="'plus_python' of struct Pair is a plain"):
        run(Pair(1, 2))


def test_a_dataclass_member_with_a_default_value_is_refused() -> None:
    with pytest.raises(ti.TaichiSyntaxError, match="member 'b' has a default value") as e:

        @ti.dataclass
        class Point:
            a: int
            b: float = 3.14

    assert "Default value in @dataclass is not supported." in str(e.value)


def test_a_kernel_indexes_a_matrix_with_two_indices_and_a_vector_with_one() -> None:
    mf = ti.Matrix.field(3, 3, ti.f32, shape=())
    vf = ti.Vector.field(3, ti.f32, shape=())

    @ti.kernel
    def matrix_field_row():
        print(mf[None][0])

    @ti.kernel
    def vector_field_pair():
        print(vf[None][0, 0])

    @ti.kernel
    def local_row(i: ti.i32) -> ti.i32:
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        return m[i].sum()

    @ti.kernel
    def local_vector_pair() -> ti.i32:
        v = ti.Vector([1, 2, 3, 4])
        return v[0, 0]

    for kernel, words in [
        (matrix_field_row, "a 3x3 matrix takes two indices, m[i, j]"),
        (local_row, "a 2x3 matrix takes two indices, m[i, j]"),
    ]:
        with pytest.raises(TaichiIndexError, match="Expected 2 indices, got 1") as e:
            kernel(*([1] if kernel is local_row else []))
        assert words in str(e.value)
    for kernel in (vector_field_pair, local_vector_pair):
        with pytest.raises(TaichiIndexError, match="Expected 1 indices, got 2"):
            kernel()


def test_two_indices_still_reach_matrix_elements() -> None:
    mf = ti.Matrix.field(2, 2, ti.i32, shape=3)

    @ti.kernel
    def run(i: ti.i32, j: ti.i32) -> ti.i32:
        m = ti.Matrix([[1, 2], [3, 4]])
        mf[i][j, 1] = m[j, 1] * 10
        return mf[i][j, 1] + m[i - 1, j]

    assert run(1, 1) == 40 + 2  # m[0, 1]
    assert mf.to_numpy()[1].tolist() == [[0, 0], [0, 40]]


def test_trace_and_inverse_need_a_square_matrix_in_both_scopes() -> None:
    tall = ti.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]])
    for method in (tall.trace, tall.inverse):
        with pytest.raises(ti.TaichiCompilationError, match=r"got shape \(3, 2\)"):
            method()
    assert abs(ti.Matrix([[0.1, 3.0], [5.0, 7.0]]).trace() - 7.1) < 1e-12

    @ti.kernel
    def run() -> ti.f32:
        x = ti.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]])
        return x.trace()

    with pytest.raises(ti.TaichiCompilationError, match=r"expected a square matrix, got shape"):
        run()
