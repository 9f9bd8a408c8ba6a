"""How fields, ndarrays and `dense()` read a user's shape (`lang.types.as_shape`).

`tuple(shape)` and `int()` had accepted nonsense and made something else of it, silently:
`shape="34"` became a 3x4 field, `(2.5, 3)` a 2x3 one, `True` one cell.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti

MAKERS = {
    "field": lambda shape: ti.field(ti.f32, shape=shape),
    "vector field": lambda shape: ti.Vector.field(2, ti.f32, shape=shape),
    "struct field": lambda shape: ti.Struct.field({"a": ti.f32}, shape=shape),
    "ndarray": lambda shape: ti.ndarray(ti.f32, shape=shape),
}


@pytest.fixture(autouse=True)
def cpu():
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize(
    ("shape", "want"),
    [
        (3, (3,)),
        ((2, 3), (2, 3)),
        ([4, 5], (4, 5)),
        ((np.int64(3),), (3,)),
        (np.array([2, 3]), (2, 3)),
    ],
)
def test_ints_are_shapes(make, shape, want) -> None:
    made = make(shape)
    assert made.shape == want
    assert all(type(size) is int for size in made.shape)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("shape", ["34", (2.5, 3), 2.0, True, (3, None), np.array([2.0, 3.0])])
def test_anything_else_is_refused(make, shape) -> None:
    with pytest.raises(TypeError, match=r"shape must be an int or a tuple of ints, got"):
        make(shape)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_negative_sizes_are_refused(make) -> None:
    with pytest.raises(ValueError, match=r"must not be negative, got \(2, -1\)"):
        make((2, -1))


def test_dense_reads_its_sizes_the_same_way() -> None:
    x, y, z = ti.field(ti.f32), ti.field(ti.f32), ti.field(ti.f32)
    ti.root.dense(ti.ij, 3).place(x)  # one size for both axes
    ti.root.dense(ti.ij, (2, 5)).place(y)
    ti.root.dense(ti.ij, (4,)).place(z)  # so is a sequence of one, as in Taichi
    assert (x.shape, y.shape, z.shape) == ((3, 3), (2, 5), (4, 4))
    with pytest.raises(TypeError, match=r"dense\(\) sizes must be an int or a tuple of ints"):
        ti.root.dense(ti.ij, (2.5, 3))
    with pytest.raises(ValueError, match="dense\\(\\) got 2 axes but 3 sizes"):
        ti.root.dense(ti.ij, (2, 3, 4))


@pytest.mark.parametrize("shape", [0, (3, 0), (0, 2)])
def test_a_field_with_an_empty_axis_is_refused_as_taichi_does(shape) -> None:
    """Taichi 1.7.4: TaichiRuntimeError "Every dimension of a Taichi field should be positive"."""
    with pytest.raises(ti.TaichiRuntimeError, match="Every dimension of a Taichi field should be"):
        ti.field(ti.f32, shape=shape)
    with pytest.raises(ValueError, match=r"got 0 in dimension \d"):
        ti.Vector.field(2, ti.f32, shape=shape)
