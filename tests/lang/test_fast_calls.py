"""The fast path of a kernel call (`lang/fast_calls.py`, `backends/llvm/launch_code.py`): a call
seen before goes straight to a launch function written for the kernel's parameters. These tests
call each kernel at least twice, so that the calls checked are the fast path's."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.kernel_builder import ParamSpec
from tistudio.ir.types import f32
from tistudio.lang.fast_calls import fast_key_function


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)


def test_arguments_reach_their_parameters_between_fields() -> None:
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def mix(
        a: ti.f32, f: ti.template(), arr: ti.types.ndarray(dtype=ti.i32, ndim=1), b: ti.i32
    ) -> ti.f32:
        total = 0.0
        for i in range(4):
            f[i] = a * i + b
            total += arr[i] * a
        return total + b

    arr = np.arange(4, dtype=np.int32)
    for a, b in [(1.5, 2), (2.0, -7), (0.25, 100)]:
        assert mix(a, x, arr, b) == pytest.approx(6 * a + b)
        np.testing.assert_allclose(x.to_numpy(), np.arange(4) * a + b)
    assert mix.cache_info()[0]["hits"] == 2


def test_a_bad_argument_on_the_fast_path_is_named_and_the_kernel_still_runs() -> None:
    @ti.kernel
    def twice(n: ti.i32) -> ti.i32:
        return n * 2

    assert twice(3) == 6
    with pytest.raises(TypeError, match="argument 'n' must be an integer for i32, not float"):
        twice(1.5)
    with pytest.raises(TypeError, match="argument 'n' must be an integer for i32, not str"):
        twice("2")
    assert twice(4) == 8  # the launch's lock was let go after the errors


def test_a_field_declared_after_a_call_is_allocated_before_the_next() -> None:
    x = ti.field(ti.i32, shape=3)

    @ti.kernel
    def fill(f: ti.template(), v: ti.i32):
        for i in f:
            f[i] = v

    fill(x, 1)
    y = ti.field(ti.i32, shape=5)  # a new tree, pending until a kernel or an access needs it
    fill(x, 2)
    fill(y, 3)
    assert x.to_numpy().tolist() == [2, 2, 2]
    assert y.to_numpy().tolist() == [3] * 5


def test_arrays_of_another_dtype_or_dimension_count_instantiate_again() -> None:
    @ti.kernel
    def total(arr: ti.types.ndarray()) -> ti.f64:
        s = ti.cast(0, ti.f64)
        for i in ti.grouped(arr):
            s += ti.cast(arr[i], ti.f64)
        return s

    cases = [
        np.arange(6, dtype=np.float32),
        np.arange(6, dtype=np.int64),
        np.arange(6, dtype=np.float32).reshape(2, 3),
    ]
    for _ in range(2):
        for arr in cases:
            assert total(arr) == 15.0
    assert [row["hits"] for row in total.cache_info()] == [1, 1, 1]


def test_an_array_reshaped_in_place_is_stored_again() -> None:
    @ti.kernel
    def fill(arr: ti.types.ndarray(dtype=ti.i32, ndim=2)):
        for i, j in ti.ndrange(arr.shape[0], arr.shape[1]):
            arr[i, j] = i * 100 + j

    a = np.zeros((4, 6), np.int32)
    fill(a)
    fill(a)  # the same array: its address and extents are not written again
    a.shape = (6, 4)  # the same object and memory, other extents
    fill(a)
    np.testing.assert_array_equal(a, np.arange(6)[:, None] * 100 + np.arange(4))


def test_the_written_out_key_equals_the_general_one_for_numpy_arrays() -> None:
    specs = [
        ParamSpec("f", "template"),
        ParamSpec("a", "ndarray", f32, 1),
        ParamSpec("s", "scalar", f32),
        ParamSpec("v", "ndarray", f32, 2, (3,)),  # an ndarray of 3-vectors: one element axis
    ]
    key = fast_key_function(specs)
    assert key is not None
    general = key.__globals__["general"]  # what the written-out key falls back to
    field = ti.field(ti.f32, shape=2)
    calls = [
        (field, np.zeros(4, np.float32), 1.0, np.zeros((2, 5, 3), np.float32)),
        (field, np.zeros((4, 2), np.float64), 1.0, np.zeros((2, 5, 4), np.float32)),
        (field, np.zeros(4, np.float32), 1.0, [1.0, 2.0]),  # not an array: the general key
    ]
    keys = [key(args) for args in calls]
    assert keys == [general(args) for args in calls]
    assert len(set(keys)) == 3
    assert keys[0][-2:] == (np.dtype(np.float32), (3,))  # the element axis, not the dimensions


def test_waiting_for_optimised_code_leaves_every_kernel_on_it() -> None:
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def fill(f: ti.template(), v: ti.f32):
        for i in f:
            f[i] = v * i

    fill(x, 0.5)
    (entry,) = fill.instances()
    optimised = entry.instance.optimised  # tiered: quick code first, O3 in the background
    assert optimised is not None
    ti.lang.impl.get_program().wait_for_optimised()
    assert optimised.ready
    fill(x, 2.0)  # now on the optimised code
    np.testing.assert_allclose(x.to_numpy(), 2.0 * np.arange(64))


def test_a_dropped_kernel_instance_is_freed_without_the_cyclic_collector() -> None:
    """The written-out launch functions do not refer back to their executable: an instance
    the cache drops is freed at once (its machine code with it), not at some later collection."""
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def fill(f: ti.template(), a: ti.f32):
        for i in range(16):
            f[i] = a

    fill(x, 1.0)
    fill(x, 2.0)  # the fast path's launch function exists now
    ti.lang.impl.get_program().wait_for_optimised()  # the optimiser's callback has run
    executable = weakref.ref(fill.instances()[0].instance)
    gc.disable()
    try:
        fill._cache.clear()
        fill._fast.clear()
        assert executable() is None
    finally:
        gc.enable()
