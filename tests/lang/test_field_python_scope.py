"""Python-scope misuses of a field raise what Taichi 1.7.4 raises: slicing is a TypeError,
the wrong number of indices an AssertionError and an index out of bounds Taichi's debug-mode
TaichiAssertionError (both also an IndexError here), iterating a field outside a kernel a
NotImplementedError, `copy_from` a non-field a TypeError; `x.snode._name` is the field's name,
for scalar and vector fields alike; sparse SNodes are Taichi's error for a back end without
them."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


def test_slicing_a_field_is_a_type_error() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.i32, shape=(2, 2))
    with pytest.raises(TypeError, match="slicing a ti.field is not supported so far"):
        x[0, :]
    with pytest.raises(TypeError, match="Detected illegal element of type"):
        x[0, 1.0] = 3


def test_wrong_index_count_is_an_assertion_and_an_index_error() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.i32, shape=(1, 2, 3))
    with pytest.raises(AssertionError, match="Slicing is not supported on ti.field"):
        x[0, 0] = 1
    with pytest.raises(IndexError):
        x[0]
    x[0, 1, 2] = 5
    assert x[0, 1, 2] == 5 and x[np.int64(0), np.int32(1), 2] == 5


def test_iterating_a_field_in_python_scope_is_not_implemented() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(int, shape=3)
    v = ti.Vector.field(2, int, shape=3)
    for field in (x, v):
        with pytest.raises(NotImplementedError, match="only available in Taichi scope"):
            for _ in field:
                pass


def test_copy_from_needs_a_field() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=(2, 3))
    y = ti.field(ti.f32, shape=(2, 3))
    y.fill(2.0)
    with pytest.raises(TypeError):
        x.copy_from(np.zeros((2, 3)))
    x.copy_from(y)
    assert x.to_numpy().sum() == 12.0


def test_snode_name_is_the_field_name() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(2, 3), name="a")
    b = ti.field(ti.math.vec3, shape=(2, 3), name="b")
    c = ti.Matrix.field(3, 3, ti.f32, shape=(5, 4), name="c")
    assert (a.snode._name, b.snode._name, c.snode._name) == ("a", "b", "c")


def test_sparse_snodes_are_declared_on_the_cpu() -> None:
    """Pointer, bitmasked and dynamic nodes (issue #28: until then Taichi's "... SNode is not
    supported on this backend"); their behaviour is tested in tests/sparse and
    tests/differential/cases_sparse.py."""
    ti.init(arch=ti.cpu, offline_cache=False)
    assert ti.root.pointer(ti.i, 10).shape == (10,)
    assert ti.root.dense(ti.i, 10).bitmasked(ti.j, 10).shape == (10, 10)
    assert ti.root.dynamic(ti.i, 10, chunk_size=2).shape == (10,)


def test_out_of_bounds_is_taichis_assertion_error_and_an_index_error() -> None:
    ti.init(arch=ti.cpu, debug=True, offline_cache=False)
    x = ti.field(ti.f32, shape=3)
    for bad in (3, -1):
        with pytest.raises(ti.TaichiAssertionError, match="out of bounds"):
            x[bad] = 10.0
        with pytest.raises(IndexError, match="out of bounds"):
            x[bad]
