"""`ti.ad.Tape(loss, grad_check=[...])`: Taichi's finite-difference check of the gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def cpu():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    yield
    ti.reset()


def _setup():
    x = ti.field(ti.f64, shape=6, needs_grad=True)
    y = ti.field(ti.f64, shape=6, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    x.from_numpy(np.linspace(0.1, 1.1, 6))

    @ti.kernel
    def forward():
        for i in x:
            y[i] = ti.sin(x[i]) * x[i]

    @ti.kernel
    def total():
        for i in y:
            loss[None] += y[i] * y[i]

    @ti.kernel
    def wrong_grad():
        for i in x:
            x.grad[i] = 0.5 * y.grad[i]

    return x, y, loss, forward, total, wrong_grad


def test_correct_gradients_pass_and_the_program_is_restored(capsys) -> None:
    x, y, loss, forward, total, _ = _setup()
    with ti.ad.Tape(loss=loss, grad_check=[x, loss]):
        forward()
        total()
    assert "variable 0 passes grad check" in capsys.readouterr().out
    expected = np.sum((np.sin(x.to_numpy()) * x.to_numpy()) ** 2)
    assert loss[None] == pytest.approx(expected)
    assert np.abs(x.grad.to_numpy()).max() > 0.1


def test_a_wrong_custom_gradient_fails_the_check() -> None:
    x, y, loss, forward, total, wrong_grad = _setup()

    @ti.ad.grad_replaced
    def step():
        forward()

    @ti.ad.grad_for(step)
    def step_grad():
        wrong_grad()

    with pytest.raises(AssertionError, match="Not all variables pass grad check"):
        with ti.ad.Tape(loss=loss, grad_check=[x]):
            step()
            total()
