"""NumPy arrays and ti.ndarrays at a kernel's ndarray parameter, as Taichi 1.7.4 takes them:
Fortran-ordered arrays (a transpose) copied in and back, other views refused with Taichi's
message, the argument checks' wording, annotations, and the debug-mode bounds checks."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti

ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]


@pytest.fixture(params=ARCHES)
def arch(request: pytest.FixtureRequest) -> object:
    ti.init(arch=request.param)
    return request.param


def _scale_kernel() -> object:
    @ti.kernel
    def scale(a: ti.types.ndarray()):
        for i, j in a:
            a[i, j] = a[i, j] * 10 + i

    return scale


def _weighted_sum_kernel() -> object:
    @ti.kernel
    def weighted(a: ti.types.ndarray()) -> ti.f32:
        s = 0.0
        for i, j in a:
            s += a[i, j] * (i + 1) * (j + 2)
        return s

    return weighted


def _expected_scale(a: np.ndarray) -> np.ndarray:
    rows = np.arange(a.shape[0])[:, None]
    return a * 10 + rows


@pytest.mark.parametrize("contiguous_first", [True, False], ids=["after_c_call", "first_call"])
def test_transposed_and_fortran_arrays_are_written_back(arch, contiguous_first) -> None:
    scale = _scale_kernel()
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    if contiguous_first:  # the fast path knows this signature before the transposed call
        c = base.copy()
        scale(c)
        np.testing.assert_array_equal(c, _expected_scale(base))
    for make in (lambda b: b.copy().T, np.asfortranarray, lambda b: np.asfortranarray(b.T)):
        a = make(base)
        before = a.copy()
        assert not a.flags.c_contiguous
        scale(a)
        np.testing.assert_array_equal(a, _expected_scale(before))
        assert not a.flags.c_contiguous  # the caller's own array, still in its own order


def test_transposed_arrays_are_read_in_their_logical_order(arch) -> None:
    weighted = _weighted_sum_kernel()
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert weighted(base.T.copy()) == weighted(base.T) == 620.0
    assert weighted(np.asfortranarray(base)) == weighted(base) == 604.0
    read_only = np.asfortranarray(base)
    read_only.setflags(write=False)  # read, not written: nothing goes back
    assert weighted(read_only) == 604.0


def test_read_only_fortran_array_is_refused_where_written(arch) -> None:
    scale = _scale_kernel()
    a = np.asfortranarray(np.ones((2, 3), np.float32))
    a.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        scale(a)
    np.testing.assert_array_equal(a, np.ones((2, 3)))


@pytest.mark.parametrize(
    "view",
    [
        lambda b: b[:, ::2],
        lambda b: b[::-1],
        lambda b: b[:, 1:3],
        lambda b: b[::2].T,
    ],
    ids=["step", "reversed", "column_range", "strided_transpose"],
)
def test_other_views_are_refused_as_taichi_does(arch, view) -> None:
    scale = _scale_kernel()
    scale(np.zeros((2, 2), np.float32))  # the fast path holds the signature
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = view(base)
    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported") as e:
        scale(a)
    assert "argument 'a'" in str(e.value) and str(a.strides) in str(e.value)
    np.testing.assert_array_equal(base, np.arange(24).reshape(4, 6))


def test_one_dimensional_column_view_is_refused(arch) -> None:
    @ti.kernel
    def fill(img: ti.types.ndarray()):
        img[0] = 1

    with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
        fill(np.zeros((2, 2))[:, 0])
    row = np.zeros((2, 2))[1]  # a row is contiguous: the kernel writes the caller's array
    fill(row)
    assert row.tolist() == [1.0, 0.0]


def _mat3_kernel() -> object:
    @ti.kernel
    def add(arr: ti.types.ndarray(dtype=ti.math.mat3, ndim=2)):
        for i in ti.grouped(arr):
            arr[i] = arr[i] + 1.5

    return add


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((2, 2, 2, 3), r"required element_shape=\(3, 3\), array with element shape of \(2, 3\)"),
        ((2, 2, 3), r"required array has ndim=2 element_dim=2, array with 3 dimensions is"),
        ((2, 2, 3, 3, 1), r"required array has ndim=2 element_dim=2, array with 5 dimensions"),
    ],
)
def test_numpy_element_axes_are_checked_in_taichis_words(shape, message) -> None:
    ti.init(arch=ti.cpu)
    with pytest.raises(ValueError, match=r"Invalid value for argument arr - " + message) as e:
        _mat3_kernel()(np.zeros(shape, np.float32))
    assert f"got shape {shape}" in str(e.value)  # and ours, naming the shape


def test_numpy_matrix_elements_take_the_arrays_dtype_as_taichi_does() -> None:
    ti.init(arch=ti.cpu)
    add = _mat3_kernel()
    a = np.zeros((2, 2, 3, 3), np.float64)  # an f32 matrix annotation: Taichi compiles for f64
    add(a)
    assert a.dtype == np.float64 and (a == 1.5).all()


def test_numpy_scalar_dtype_is_checked_before_ndim() -> None:
    ti.init(arch=ti.cpu)

    @ti.kernel
    def arange(x: ti.types.ndarray(ti.i32, ndim=1)):
        for i in x:
            x[i] = i

    taichi = r"Invalid value for argument x - required array has dtype=i32, array with dtype=i64"
    for wrong in (np.zeros(5, np.int64), np.zeros((5, 2), np.int64)):
        with pytest.raises(ValueError, match=taichi) as e:
            arange(wrong)
        assert "argument 'x' must have dtype i32, got int64" in str(e.value)
    taichi = r"Invalid value for argument x - required array has ndim=1, array with 2 dimensions"
    with pytest.raises(ValueError, match=taichi):
        arange(np.zeros((5, 2), np.int32))


def test_a_ti_ndarray_is_no_template_argument() -> None:
    ti.init(arch=ti.cpu)

    @ti.kernel
    def copy(src: ti.template(), dst: ti.template()):
        for i in range(src.shape[0]):
            dst[i] = src[i]

    @ti.kernel
    def nested(pair: ti.template()):
        pass

    a, b = ti.ndarray(ti.f32, 4), ti.ndarray(ti.f32, 4)
    message = r"Ndarray shouldn't be passed in via `ti.template\(\)`, please annotate"
    with pytest.raises(ti.TaichiRuntimeTypeError, match=message):
        copy(a, b)
    with pytest.raises(ti.TaichiRuntimeTypeError, match=message):
        nested((a, 1))
    copy(ti.field(ti.f32, 4), ti.field(ti.f32, 4))  # fields are


@pytest.mark.parametrize("arch_", ARCHES)
def test_debug_bounds_checks_say_out_of_bound_access_as_taichi_does(arch_) -> None:
    ti.init(arch=arch_, debug=True)

    @ti.kernel
    def scalar(a: ti.types.ndarray(), x: ti.i32) -> ti.f32:
        return a[x]

    @ti.kernel
    def matrix(a: ti.types.ndarray(), p: ti.i32, q: ti.i32, x: ti.i32, y: ti.i32) -> ti.f32:
        return a[p, q][x, y]

    assert scalar(np.arange(4, dtype=np.float32), 3) == 3
    for x in (4, -1):
        with pytest.raises(AssertionError, match="Out of bound access") as e:
            scalar(np.zeros(4, np.float32), x)
        assert f"Accessing ndarray argument 'a' of shape (4,) with indices ({x},)" in str(e.value)
    m = ti.ndarray(ti.math.mat2, (4, 5))
    with pytest.raises(AssertionError, match="Out of bound access") as e:
        matrix(m, 2, 3, 2, 1)
    assert "Accessing matrix 'a[p, q]' of shape (2, 2) with indices (2, 1)" in str(e.value)
    with pytest.raises(AssertionError, match="Out of bound access"):
        matrix(m, -3, 4, 1, 1)


def _sum_plus_one(fn: object) -> object:
    """`fn`'s parameter annotation with the body every test here runs: x + 1, summed."""

    def body(x):  # noqa: ANN001, ANN202 - a kernel body, annotated by `fn`
        s = 0.0
        for i in ti.grouped(x):
            x[i] = x[i] + 1.0
            s += x[i].sum()
        return s

    body.__annotations__ = {**fn.__annotations__}
    body.__name__ = fn.__name__
    return ti.kernel(body)


def test_matrix_annotation_without_sizes_takes_any_matrix() -> None:
    ti.init(arch=ti.cpu)
    runtime = ti.lang.impl.get_runtime()

    def total(x: ti.types.ndarray(dtype=ti.types.matrix())) -> ti.f32: ...

    total = _sum_plus_one(total)
    before = runtime.get_num_compiled_functions()
    assert total(ti.ndarray(ti.math.mat2, 3)) == 12.0
    assert total(ti.ndarray(ti.math.mat3, 2)) == 18.0
    assert runtime.get_num_compiled_functions() == before + 2  # one per element shape
    assert total(np.zeros((3, 2, 2))) == 12.0
    assert total(np.zeros((3, 3, 3), np.float32)) == 27.0  # the same ndim: its own instance
    assert total(ti.ndarray(ti.types.matrix(2, 2, ti.f64), 3)) == 12.0  # any dtype
    for wrong in (ti.ndarray(ti.math.vec2, 3), ti.ndarray(ti.f32, 3)):
        with pytest.raises(ValueError, match="Invalid value for argument x"):
            total(wrong)
    with pytest.raises(ValueError, match="required element_dim=2, array with 1 dimensions"):
        total(np.zeros(4))


def test_vector_annotation_without_size_takes_any_vector() -> None:
    ti.init(arch=ti.cpu)

    def total(x: ti.types.ndarray(dtype=ti.types.vector())) -> ti.f32: ...

    total = _sum_plus_one(total)
    assert total(ti.ndarray(ti.math.vec3, 3)) == 9.0
    assert total(ti.ndarray(ti.math.vec2, 3)) == 6.0
    assert total(np.zeros((3, 4), np.int32)) == 12.0
    with pytest.raises(ValueError, match=r"Invalid value for argument x - required element type"):
        total(ti.ndarray(ti.math.mat2, 3))


def test_partly_open_and_dtype_free_element_annotations() -> None:
    ti.init(arch=ti.cpu)

    def rows2(x: ti.types.ndarray(dtype=ti.types.matrix(2))) -> ti.f32: ...

    def any_vec3(x: ti.types.ndarray(dtype=ti.types.vector(3))) -> ti.f32: ...

    def f32_vec3(x: ti.types.ndarray(dtype=ti.math.vec3)) -> ti.f32: ...

    rows2 = _sum_plus_one(rows2)
    assert rows2(ti.ndarray(ti.types.matrix(2, 3, ti.f32), 3)) == 18.0
    with pytest.raises(ValueError, match="Invalid value for argument x"):
        rows2(ti.ndarray(ti.types.matrix(3, 2, ti.f32), 3))
    any_vec3 = _sum_plus_one(any_vec3)  # no dtype: vec3 of any dtype, as in Taichi
    assert any_vec3(ti.ndarray(ti.types.vector(3, ti.i32), 3)) == 9.0
    f32_vec3 = _sum_plus_one(f32_vec3)  # ti.math.vec3 is f32
    with pytest.raises(TypeError, match="Expect element type f32"):
        f32_vec3(ti.ndarray(ti.types.vector(3, ti.i32), 3))
    with pytest.raises(TypeError):
        ti.field(ti.types.matrix(), shape=2)  # an element annotation, not a field dtype


def test_a_ti_ndarray_reaches_a_kernel_only_as_its_argument() -> None:
    ti.init(arch=ti.cpu)
    weight = ti.ndarray(ti.f32, (2, 2, 2))
    weight.fill(42.0)

    @ti.real_func
    def first(w: ti.types.ndarray(ti.f32, ndim=3)) -> ti.f32:
        return w[1, 1, 1]

    @ti.kernel
    def through_real_func() -> ti.f32:
        return first(weight)

    @ti.kernel
    def direct() -> ti.f32:
        return weight[1, 1, 1]  # was a compile-time constant: stale after weight.fill(7)

    @ti.kernel
    def as_argument(w: ti.types.ndarray(ti.f32, ndim=3)) -> ti.f32:
        return first(w)

    message = r"Expected ndarray in the kernel argument for argument w, got <ti.ndarray>"
    with pytest.raises(ti.TaichiTypeError, match=message):
        through_real_func()
    with pytest.raises(ti.TaichiTypeError, match="pass it to the kernel as a ti.types.ndarray"):
        direct()
    assert as_argument(weight) == 42.0
    weight.fill(7.0)
    assert as_argument(weight) == 7.0


def test_boundary_clamp_clamps_each_array_index(arch) -> None:
    @ti.kernel
    def read(x: ti.types.ndarray(boundary="clamp"), i: ti.i32, j: ti.i32) -> ti.f32:
        return x[i, j]

    @ti.kernel
    def write(x: ti.types.ndarray(boundary="clamp"), i: ti.i32, j: ti.i32):
        x[i, j] = 100

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    reads = [(0, 5), (-1, 2), (1, -1), (3, 0), (2, 7), (5, 5), (-3, -3), (1, 2)]
    assert [read(a, i, j) for i, j in reads] == [3, 2, 4, 8, 11, 11, 0, 6]  # Taichi's values
    b = np.zeros((3, 4), np.float32)
    write(b, 1, 5)
    write(b, -1, 9)
    assert np.flatnonzero(b).tolist() == [3, 7]


def test_boundary_clamp_clamps_an_elements_flat_index(arch) -> None:
    @ti.kernel
    def vec(x: ti.types.ndarray(boundary="clamp"), i: ti.i32, k: ti.i32) -> ti.f32:
        return x[i, 0][k]

    @ti.kernel
    def mat(x: ti.types.ndarray(boundary="clamp"), i: ti.i32, j: ti.i32) -> ti.f32:
        return x[1, 2][i, j]

    v = ti.ndarray(ti.math.vec3, (2, 2))
    v.from_numpy(np.arange(12, dtype=np.float32).reshape(2, 2, 3))
    assert [vec(v, i, k) for i, k in [(0, 3), (0, -1), (2, 1), (1, 7)]] == [2, 0, 7, 8]
    m = ti.ndarray(ti.math.mat2, (3, 3))
    m.from_numpy(np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2))  # m[1, 2]: 20..23
    # the flat index i * 2 + j is clamped into [0, 4): (2, 0) is element 3, not row 1
    cases = [(-1, 0), (1, -1), (2, 0), (1, 2), (0, 1), (5, 5)]
    assert [mat(m, i, j) for i, j in cases] == [20, 21, 23, 23, 21, 23]


def test_boundary_is_unsafe_or_clamp() -> None:
    with pytest.raises(ValueError, match="Invalid boundary argument: wrap"):
        ti.types.ndarray(boundary="wrap")


def test_numpy_scalars_with_vectors_give_vectors() -> None:
    ti.init(arch=ti.cpu, debug=True)
    scalar, vec = np.cos(0), ti.Vector([1, 2])
    for value in (scalar + vec, vec + scalar, scalar / vec, scalar * vec):
        assert isinstance(value, ti.Matrix)
    assert (scalar / vec).to_list() == [1.0, 0.5]

    @ti.kernel
    def mixed() -> ti.f32:
        x = scalar + vec
        y = scalar / vec
        return x[1] * 10 + y[1]

    assert mixed() == 30.5
