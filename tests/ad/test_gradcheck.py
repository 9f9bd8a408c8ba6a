"""Reverse-mode gradients (`ti.ad.Tape`) and forward-mode derivatives (`ti.ad.FwdMode`) against
central finite differences, on the CPU and on the GPU (WebGPU on lavapipe), in f64.

Each case builds its fields and kernels for a given `ti`, returning the kernels to run (in
order), the input fields to differentiate and the scalar `loss`; the check perturbs every input
element by +-eps, reruns the kernels from the same state and compares (L+ - L-) / 2 eps with
`x.grad`. The inputs stay away from kinks (abs, max, branches) by more than eps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl

EPS = 1e-6
RNG = np.random.default_rng(7)


def _fields(n: int, *names: str, lo: float = -1.0, hi: float = 1.0) -> list:
    out = []
    for _ in names:
        f = ti.field(ti.f64, shape=n, needs_grad=True, needs_dual=True)
        f.from_numpy(RNG.uniform(lo, hi, n))
        out.append(f)
    return out


def _loss() -> object:
    return ti.field(ti.f64, shape=(), needs_grad=True, needs_dual=True)


# --- the kernels -------------------------------------------------------------------------------


def case_polynomial():
    (x,), loss = _fields(16, "x"), _loss()

    @ti.kernel
    def f():
        for i in x:
            loss[None] += x[i] ** 3 - 2.0 * x[i] ** 2 + x[i] * 0.5

    return [f], [x], loss


def case_transcendental():
    (x,), loss = _fields(16, "x"), _loss()

    @ti.kernel
    def f():
        for i in x:
            v = x[i]
            loss[None] += ti.exp(v) * ti.log(1.0 + v * v) + ti.sin(v) * ti.cos(2.0 * v)

    return [f], [x], loss


def case_roots_and_tanh():
    (x,), loss = _fields(12, "x", lo=0.2, hi=2.0), _loss()

    @ti.kernel
    def f():
        for i in x:
            loss[None] += ti.sqrt(x[i]) * ti.tanh(x[i]) + ti.rsqrt(x[i] + 1.0)

    return [f], [x], loss


def case_division_and_pow():
    (x, y), loss = _fields(10, "x", "y", lo=0.3, hi=1.7), _loss()

    @ti.kernel
    def f():
        for i in x:
            loss[None] += x[i] / (y[i] + 0.5) + x[i] ** y[i] - y[i] / x[i]

    return [f], [x, y], loss


def case_inverse_trig():
    (x, y), loss = _fields(10, "x", "y", lo=-0.8, hi=0.8), _loss()

    @ti.kernel
    def f():
        for i in x:
            loss[None] += ti.atan2(x[i], y[i] + 2.0) + ti.asin(x[i]) * ti.acos(y[i])

    return [f], [x, y], loss


def case_abs_max_min():
    (x, y), loss = _fields(10, "x", "y"), _loss()

    @ti.kernel
    def f():
        for i in x:
            loss[None] += ti.abs(x[i]) * ti.max(x[i], y[i]) - ti.min(x[i] * 2.0, y[i] ** 2)

    return [f], [x, y], loss


def case_branches():
    (x,), loss = _fields(16, "x"), _loss()

    @ti.kernel
    def f():
        for i in x:
            v = x[i]
            if v > 0.0:
                v = v * v * 3.0
            elif v > -0.5:
                v = ti.sin(v)
            else:
                v = -v * 0.5
            loss[None] += v

    return [f], [x], loss


def case_select_and_casts():
    (x,), loss = _fields(16, "x"), _loss()

    @ti.kernel
    def f():
        for i in x:
            s = ti.select(x[i] > 0.1, x[i] * 4.0, ti.exp(x[i]))
            loss[None] += s + ti.cast(ti.cast(x[i], ti.f32), ti.f64) * 0.0 + ti.floor(x[i]) * x[i]

    return [f], [x], loss


def case_funcs_and_static_loops():
    (x,), loss = _fields(8, "x"), _loss()

    @ti.func
    def smooth(v):
        out = 0.0
        for k in ti.static(range(1, 4)):
            out += ti.sin(v * k) / k
        return out

    @ti.kernel
    def f():
        for i in x:
            loss[None] += smooth(x[i]) ** 2

    return [f], [x], loss


def case_vectors():
    v = ti.Vector.field(3, ti.f64, shape=6, needs_grad=True)
    v.from_numpy(RNG.uniform(-1, 1, (6, 3)))
    loss = _loss()

    @ti.kernel
    def f():
        for i in v:
            a = v[i]
            b = ti.Vector([a[1], a[2] * 2.0, 1.0])
            loss[None] += a.norm() + a.cross(b).dot(a) + a.normalized()[0]

    return [f], [v], loss


def case_matrices():
    m = ti.Matrix.field(2, 2, ti.f64, shape=4, needs_grad=True)
    m.from_numpy(RNG.uniform(-1, 1, (4, 2, 2)) + np.eye(2) * 2)
    u = ti.Vector.field(2, ti.f64, shape=4, needs_grad=True)
    u.from_numpy(RNG.uniform(-1, 1, (4, 2)))
    loss = _loss()

    @ti.kernel
    def f():
        for i in m:
            a = m[i]
            w = a @ u[i]
            loss[None] += w.dot(w) + a.determinant() + (a.transpose() @ a).trace() * 0.1

    return [f], [m, u], loss


def case_loop_carried_local():
    (x,), loss = _fields(8, "x", lo=0.1, hi=1.0), _loss()

    @ti.kernel
    def f():
        for i in x:
            v = x[i]
            for _ in range(5):
                v = ti.sin(v) * v + 0.3 * v
            loss[None] += v

    return [f], [x], loss


def case_nested_loops_with_branch():
    (x, w), loss = _fields(6, "x", "w"), _loss()

    @ti.kernel
    def f():
        for i in x:
            v = x[i]
            acc = 0.0
            for j in range(6):
                for _ in range(3):
                    if v * w[j] > 0.0:
                        v = v * 0.9 + w[j] * 0.1
                    else:
                        v = v - 0.05 * w[j] * w[j]
                acc += v * v
            loss[None] += acc

    return [f], [x, w], loss


def case_stencil_2d():
    x = ti.field(ti.f64, shape=(6, 5), needs_grad=True)
    x.from_numpy(RNG.uniform(-1, 1, (6, 5)))
    loss = _loss()

    @ti.kernel
    def f():
        for i, j in x:
            if i < 5 and j < 4:
                dx = x[i + 1, j] - x[i, j]
                dy = x[i, j + 1] - x[i, j]
                loss[None] += dx * dx + ti.sin(dy) * x[i, j]

    return [f], [x], loss


def case_chain_of_kernels():
    (x,), loss = _fields(8, "x"), _loss()
    y = ti.field(ti.f64, shape=8, needs_grad=True)
    z = ti.field(ti.f64, shape=3, needs_grad=True)

    @ti.kernel
    def first():
        for i in x:
            y[i] = ti.exp(x[i] * 0.5) - x[i]

    @ti.kernel
    def scatter():
        for i in y:
            z[i % 3] += y[i] * y[i]

    @ti.kernel
    def last():
        for k in z:
            loss[None] += ti.sqrt(z[k] + 1.0)

    return [first, scatter, last], [x], loss


def case_serial_kernel():
    (a, b), loss = _fields(1, "a", "b"), _loss()

    @ti.kernel
    def f():
        t = a[0] * b[0]
        s = 0.0
        for k in ti.static(range(4)):  # a top-level loop would break the simplicity rule
            s += ti.cos(t * k) * b[0]
        loss[None] = s + t * t

    return [f], [a, b], loss


def case_gather():
    (x, table), loss = _fields(8, "x", "table"), _loss()
    idx = ti.field(ti.i32, shape=8)
    idx.from_numpy(np.array([3, 1, 3, 7, 0, 0, 5, 2], np.int32))

    @ti.kernel
    def f():
        for i in x:
            loss[None] += table[idx[i]] * x[i] + table[(idx[i] + 1) % 8] ** 2

    return [f], [x, table], loss


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


# --- the checks ----------------------------------------------------------------------------------


def _run(kernels: list[Callable[[], None]], loss: object, fields: list) -> float:
    for f in fields:  # intermediate results start from zero each run, as in a fresh Tape
        f.fill(0)
    loss.fill(0)
    for k in kernels:
        k()
    return loss[None]


def _finite_differences(kernels, inputs, loss, scratch) -> list[np.ndarray]:
    grads = []
    for x in inputs:
        base = x.to_numpy()
        g = np.zeros(base.size)
        for k in range(base.size):
            values = []
            for sign in (1.0, -1.0):
                bumped = base.reshape(-1).copy()
                bumped[k] += sign * EPS
                x.from_numpy(bumped.reshape(base.shape))
                values.append(_run(kernels, loss, scratch))
            g[k] = (values[0] - values[1]) / (2 * EPS)
        x.from_numpy(base)
        grads.append(g.reshape(base.shape))
    return grads


def _scratch(inputs: list, loss: object) -> list:
    """Fields the kernels write besides the loss: every needs_grad field not an input."""
    program = impl.get_program()
    seen = {id(f) for f in inputs} | {id(loss)}
    fields = program.fields_by_snode.values()
    return [f for f in fields if f._primal is None and f.grad is not None and id(f) not in seen]


@pytest.fixture(params=["cpu", "vulkan"])
def arch(request):
    ti.init(arch=getattr(ti, request.param), default_fp=ti.f64)
    yield request.param
    ti.reset()


@pytest.mark.parametrize("name", sorted(CASES))
def test_reverse_mode_matches_finite_differences(name: str, arch: str) -> None:
    kernels, inputs, loss = CASES[name]()
    impl.get_program().materialize()
    scratch = [f for f in _scratch(inputs, loss) if not _is_component_of(f, inputs)]
    with ti.ad.Tape(loss=loss):
        for k in kernels:
            k()
    # the Tape set loss.grad to 1; the adjoint of an overwriting store (serial_kernel) zeroes it
    assert loss.grad[None] == (0.0 if name == "serial_kernel" else 1.0)
    grads = [x.grad.to_numpy() for x in inputs]
    expected = _finite_differences(kernels, inputs, loss, scratch)
    for got, want in zip(grads, expected):
        assert np.abs(want).max() > 1e-3, "a check that cannot fail"
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=f"{name} {arch}")


def _is_component_of(field: object, inputs: list) -> bool:
    components = [c for x in inputs for c in getattr(x, "components", [])]
    return any(field is c for c in components)


@pytest.mark.parametrize("name", ["transcendental", "loop_carried_local", "branches", "gather"])
def test_forward_mode_matches_finite_differences(name: str, arch: str) -> None:
    """FwdMode's `loss.dual` along a random seed equals the directional finite difference."""
    kernels, inputs, loss = CASES[name]()
    x = inputs[0]
    impl.get_program().materialize()
    seed = RNG.uniform(-1, 1, x.shape[0])
    base = x.to_numpy()
    scratch = [f for f in _scratch(inputs, loss) if f is not x]
    loss.fill(0)
    with ti.ad.FwdMode(loss=loss, param=x, seed=list(seed)):
        for k in kernels:
            k()
    values = []
    for sign in (1.0, -1.0):
        x.from_numpy(base + sign * EPS * seed)
        values.append(_run(kernels, loss, scratch))
    want = (values[0] - values[1]) / (2 * EPS)
    assert abs(want) > 1e-3
    assert loss.dual[None] == pytest.approx(want, rel=2e-5, abs=2e-6)
