"""`ti.root.lazy_grad()` and `ti.root.lazy_dual()`: fields made without `needs_grad` or
`needs_dual` get their `.grad` / `.dual` placed next to them afterwards, so reverse and forward
mode then run on them (Taichi's spelling of "differentiate these after all")."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu, offline_cache=False)


def test_lazy_dual_gives_forward_mode_its_duals() -> None:
    n = 6
    out, x, y = (ti.field(ti.f32, shape=n) for _ in range(3))
    ti.root.lazy_dual()
    x.from_numpy(np.arange(n, dtype=np.float32))
    y.from_numpy(-np.arange(n, dtype=np.float32))

    @ti.kernel
    def pick():
        for i in range(n):
            out[i] = ti.select(i % 2, x[i] * x[i], y[i])

    with ti.ad.FwdMode(loss=out, param=x, seed=[1.0] * n):
        pick()
    i = np.arange(n)
    np.testing.assert_array_equal(out.to_numpy(), np.where(i % 2, i * i, -i))
    np.testing.assert_array_equal(out.dual.to_numpy(), np.where(i % 2, 2.0 * i, 0.0))


def test_lazy_grad_gives_reverse_mode_its_gradients() -> None:
    loss, x = ti.field(ti.f32, shape=()), ti.field(ti.f32, shape=4)
    ti.root.lazy_grad()
    x.from_numpy(np.array([1, 2, 3, 4], np.float32))

    @ti.kernel
    def total():
        for i in x:
            loss[None] += x[i] ** 2

    with ti.ad.Tape(loss=loss):
        total()
    np.testing.assert_array_equal(x.grad.to_numpy(), [2, 4, 6, 8])
