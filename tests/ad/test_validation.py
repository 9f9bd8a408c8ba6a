"""`ti.ad.Tape(validation=True)` under `ti.init(debug=True)`: Taichi's global data access rule
checker, on the CPU and on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(params=["cpu", "vulkan"])
def debug_arch(request):
    ti.init(arch=getattr(ti, request.param), debug=True)
    yield request.param
    ti.reset()


def _fields():
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    y = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    x.from_numpy(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    return x, y, loss


def test_a_kernel_overwriting_what_an_earlier_one_read_is_named(debug_arch: str) -> None:
    x, y, loss = _fields()

    @ti.kernel
    def reads():
        for i in x:
            loss[None] += x[i] * x[i]

    @ti.kernel
    def overwrites():
        for i in x:
            x[i] = 0.0

    with pytest.raises(ti.TaichiAssertionError) as info:
        with ti.ad.Tape(loss=loss, validation=True):
            reads()
            overwrites()
    message = str(info.value)
    assert "global data access rule" in message and "overwrites" in message
    assert "x[i] = 0.0" in message  # the user's line


def test_a_kernel_overwriting_what_it_read_is_named(debug_arch: str) -> None:
    x, y, loss = _fields()

    @ti.kernel
    def in_place():
        for i in x:
            x[i] = x[i] * 2.0

    with pytest.raises(ti.TaichiAssertionError, match="x\\[i\\] = x\\[i\\] \\* 2.0"):
        with ti.ad.Tape(loss=loss, validation=True):
            in_place()


def test_kernels_that_follow_the_rule_pass_and_differentiate(debug_arch: str) -> None:
    x, y, loss = _fields()

    @ti.kernel
    def square():
        for i in x:
            y[i] = x[i] * x[i]

    @ti.kernel
    def total():
        for i in y:
            loss[None] += y[i]

    for _ in range(2):  # the check bits start clear in every Tape
        with ti.ad.Tape(loss=loss, validation=True):
            square()
            total()
    np.testing.assert_allclose(x.grad.to_numpy(), [2.0, 4.0, 6.0, 8.0])


def test_validation_without_debug_warns() -> None:
    ti.init(arch=ti.cpu)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    with pytest.warns(UserWarning, match="debug=True"):
        ti.ad.Tape(loss=loss, validation=True)
    ti.reset()


def _in_place_kernel():
    x = ti.field(ti.f32, shape=4, needs_grad=True, name="x")

    @ti.kernel
    def in_place():
        for i in x:
            x[i] = x[i] * 2.0

    return in_place


@pytest.mark.parametrize("debug", [True, False])
def test_grad_of_an_in_place_update_is_refused_in_debug_mode(debug: bool) -> None:
    """Without a Tape, debug mode still refuses `x[i] = f(x[i])` when compiling the adjoint
    (release mode compiles it, and the gradient is wrong, as in Taichi)."""
    ti.init(arch=ti.cpu, debug=debug)
    in_place = _in_place_kernel()
    in_place()
    if debug:
        with pytest.raises(ti.TaichiSyntaxError) as info:
            in_place.grad()
        assert "field 'x'" in str(info.value) and "x[i] = x[i] * 2.0" in str(info.value)
    else:
        in_place.grad()
    ti.reset()
