"""After any error in a kernel, the next launch works: no poisoned cache, pool or program."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


def test_good_launches_after_compile_errors_and_bad_arguments() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.i32, shape=8)

    @ti.kernel
    def broken(a: ti.i32) -> ti.i32:
        return a + undefined_name  # noqa: F821

    @ti.kernel
    def fill(arr: ti.types.ndarray(dtype=ti.f32, ndim=1), v: ti.i32) -> ti.f32:
        for i in x:
            x[i] = v + i
        s = 0.0
        for i in range(arr.shape[0]):
            s += arr[i]
        return s

    good = np.ones(5, dtype=np.float32)
    assert fill(good, 1) == 5.0
    for _ in range(2):  # the same error again: nothing half-compiled was cached
        with pytest.raises(ti.TaichiNameError):
            broken(1)
    with pytest.raises(ValueError):
        fill(np.ones(5, dtype=np.int32), 1)  # a new signature that fails its check
    with pytest.raises(TypeError):
        fill(good, 1.5)
    with pytest.raises(TypeError):
        fill(good)
    with pytest.raises(ValueError):
        fill(np.ones(10, dtype=np.float32)[::2], 1)
    assert fill(np.full(3, 2.0, dtype=np.float32), 10) == 6.0
    assert np.array_equal(x.to_numpy(), np.arange(8) + 10)
    assert len(fill.cache_info()) == 1

    @ti.kernel
    def other() -> ti.i32:
        return x[3] * 2

    assert other() == 26


def test_error_inside_a_func_then_the_fixed_kernel_compiles() -> None:
    ti.init(offline_cache=False)

    @ti.func
    def helper(v):
        return v + 1

    @ti.kernel
    def bad(a: ti.f32) -> ti.f32:
        return helper(a) & 1

    @ti.kernel
    def good(a: ti.f32) -> ti.f32:
        return helper(a) * 2

    with pytest.raises(ti.TaichiTypeError):
        bad(1.0)
    assert good(1.5) == 5.0
    with pytest.raises(ti.TaichiTypeError):
        bad(1.0)
    assert good(2.5) == 7.0


def test_field_created_in_a_kernel_is_refused_and_the_program_still_works() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def makes_field():
        y = ti.field(ti.f32, shape=4)  # noqa: F841

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 3

    with pytest.raises(ti.TaichiSyntaxError, match="cannot be called inside a kernel"):
        makes_field()
    fill()
    assert x.to_numpy().tolist() == [0, 3, 6, 9]
    z = ti.field(ti.i32, shape=2)  # fields made after launches go into a new tree

    @ti.kernel
    def fill_z():
        for i in z:
            z[i] = x[i + 1]

    fill_z()
    assert z.to_numpy().tolist() == [3, 6]
