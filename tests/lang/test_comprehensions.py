"""List/dict comprehensions and `:=` in kernels, with the results Taichi 1.7.4 gives."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_nested_comprehension_builds_a_matrix() -> None:
    @ti.kernel
    def k(i: ti.i32, j: ti.i32) -> ti.i32:
        m = ti.Matrix([[r * 4 + c for c in range(4)] for r in range(3)])
        return m[i, j] + m.n * 100 + m.m * 1000

    assert k(2, 1) == 9 + 300 + 4000


def test_comprehension_of_runtime_elements() -> None:
    x = ti.field(ti.f32, 4)

    @ti.kernel
    def k(a: ti.f32) -> ti.math.vec3:
        return ti.Vector([x[i] * a + i for i in range(3)])

    x.from_numpy(np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_allclose(k(2.0).to_numpy(), [2.0, 5.0, 8.0])


def test_comprehension_in_a_func_with_filters_and_two_generators() -> None:
    @ti.func
    def pairs(a):
        return ti.Vector([a * i + j for i in ti.static(range(3)) for j in range(2) if i != j])

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        v = pairs(a)
        return v.n * 1000 + v.sum()

    # (i, j) pairs with i != j: (0,1) (1,0) (2,0) (2,1)
    assert k(10) == 4 * 1000 + (1 + 10 + 20 + 21)


def test_comprehension_over_vectors_tuples_and_ndrange() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, 2 * a, 3 * a])
        doubled = ti.Vector([e * 2 for e in v])
        weighted = ti.Vector([v[i] * w for i, w in [(0, 1.0), (2, 0.5)]])
        grid = ti.Vector([i * 10 + j for i, j in ti.ndrange(2, (1, 3))])
        return doubled.sum() + weighted.sum() + grid.sum()

    assert k(1.0) == pytest.approx(12.0 + 2.5 + (1 + 2 + 11 + 12))


def test_comprehension_variables_stay_inside_it() -> None:
    @ti.kernel
    def k() -> ti.i32:
        i = 5
        v = ti.Vector([i * 2 for i in range(3)])
        return v.sum() + i

    assert k() == 6 + 5


def test_local_matrix_from_comprehension_indexed_at_run_time() -> None:
    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        m = ti.Matrix([[0 for _ in range(3)] for _ in range(3)])
        for i in range(n):
            m[i % 3, (i + 1) % 3] += i
        return m[0, 1] * 100 + m[1, 2] * 10 + m[2, 0]

    assert k(4) == (0 + 3) * 100 + 1 * 10 + 2


def test_dict_comprehension() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        d = {i: a * i for i in range(4)}
        return d[3] + len(d)

    assert k(5) == 15 + 4


def test_comprehension_over_a_runtime_range_is_taichis_type_error() -> None:
    @ti.kernel
    def k(n: ti.i32) -> ti.i32:
        values = [i for i in range(n)]
        return values[0]

    with pytest.raises(ti.TaichiTypeError, match="compile-time bounds"):
        k(3)


def test_comprehension_filter_must_be_compile_time() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        values = ti.Vector([i for i in range(4) if i < a])
        return values.sum()

    with pytest.raises(ti.TaichiSyntaxError, match="'if' must be a compile-time condition"):
        k(2)


def test_set_comprehension_stays_unsupported() -> None:
    @ti.kernel
    def k() -> ti.i32:
        values = {i for i in range(3)}
        return len(values)

    with pytest.raises(ti.TaichiSyntaxError, match="SetComp"):
        k()


def test_walrus_declares_and_reassigns() -> None:
    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        s = 0
        b = 100
        for i in range(4):
            if (t := i * a) > 2:
                s += t
        c = (b := a + 1) * b
        return s * 1000 + c + b

    # a = 2: t = 0, 2, 4, 6 -> s = 10; b = 3, c = 9
    assert k(2) == 10 * 1000 + 9 + 3


def test_walrus_of_a_vector_and_of_a_static_value() -> None:
    @ti.kernel
    def k(a: ti.f32) -> ti.f32:
        v = ti.Vector([1.0, 2.0])
        s = (w := v * a).sum()
        n = (m := ti.static(3)) * 2
        return s + w[0] + ti.static(m) * 100 + n

    assert k(2.0) == pytest.approx(6.0 + 2.0 + 300 + 6)
