"""End to end: parameters found by gradient descent with `ti.ad.Tape`, on the CPU and the GPU.

A curve fit (three parameters of a*sin(b*x)+c from 64 samples) and a ballistic shot (the launch
velocity that lands a projectile with quadratic drag on a target after 40 time steps, the
trajectory kept in time-indexed vector fields as in Taichi's differentiable simulations).
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(params=["cpu", "vulkan"])
def arch(request):
    ti.init(arch=getattr(ti, request.param))
    yield request.param
    ti.reset()


def test_curve_fit_converges(arch: str) -> None:
    n = 64
    xs = np.linspace(-1.0, 1.0, n).astype(np.float32)
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    params = ti.field(ti.f32, shape=3, needs_grad=True)  # a, b, c
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    x.from_numpy(xs)
    y.from_numpy((1.7 * np.sin(2.3 * xs) + 0.4).astype(np.float32))
    params.from_numpy(np.array([1.0, 1.5, 0.0], np.float32))

    @ti.kernel
    def mse():
        for i in x:
            guess = params[0] * ti.sin(params[1] * x[i]) + params[2]
            loss[None] += (guess - y[i]) ** 2 / n

    @ti.kernel
    def descend(rate: ti.f32):
        for k in params:
            params[k] -= rate * params.grad[k]

    losses = []
    for _ in range(400):
        with ti.ad.Tape(loss=loss):
            mse()
        losses.append(loss[None])
        descend(0.3)
    assert losses[0] > 0.1
    assert losses[-1] < 1e-6, losses[::50]
    np.testing.assert_allclose(params.to_numpy(), [1.7, 2.3, 0.4], atol=2e-3)


def test_ballistic_shot_hits_the_target(arch: str) -> None:
    steps, dt, drag = 40, 0.05, 0.1
    target = np.array([3.0, 0.5], np.float32)
    pos = ti.Vector.field(2, ti.f32, shape=steps + 1, needs_grad=True)
    vel = ti.Vector.field(2, ti.f32, shape=steps + 1, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    goal = ti.Vector([float(target[0]), float(target[1])])

    @ti.kernel
    def step(t: ti.i32):
        for _ in range(1):
            v = vel[t - 1]
            a = ti.Vector([0.0, -9.8]) - drag * v * v.norm()
            vel[t] = v + dt * a
            pos[t] = pos[t - 1] + dt * vel[t]

    @ti.kernel
    def miss():
        for _ in range(1):
            d = pos[steps] - goal
            loss[None] += d.dot(d)

    vel[0] = [2.0, 2.0]
    first = None
    for _ in range(150):
        with ti.ad.Tape(loss=loss):
            for t in range(1, steps + 1):
                step(t)
            miss()
        first = loss[None] if first is None else first
        vel[0] = vel[0] - 0.1 * vel.grad[0]
    assert first > 1.0
    assert loss[None] < 1e-4, loss[None]
    np.testing.assert_allclose(pos[steps].to_numpy(), target, atol=2e-2)
