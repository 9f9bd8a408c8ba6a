"""Autodiff stacks whose size is a guess (a loop's trip count known only at run time): in debug
mode a push past the capacity raises `TaichiAssertionError` naming the kernel, the capacity, the
user's line and `ti.init(ad_stack_size=N)`; in release mode the push overwrites the newest entry
and never memory past the stack (Taichi 1.7.4 crashes there on the CPU). CPU and GPU (lavapipe).
"""

from __future__ import annotations

import inspect
import math
import os

import numpy as np
import pytest

import tistudio as ti

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]
STARTS = np.array([0.5, 1.0, 1.5, 2.0], np.float32)


def _sines():  # noqa: ANN202
    """x[i] <- sin applied n times to x[i]: one stack push per iteration of a run-time loop."""
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    y = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def sines(n: ti.i32):
        for i in x:
            v = x[i]
            for _ in range(n):
                v = ti.sin(v)
            y[i] = v

    return x, y, sines


def _grad(x, y, kernel, n: int) -> np.ndarray:  # noqa: ANN001
    x.from_numpy(STARTS)
    x.grad.fill(0.0)
    y.grad.fill(1.0)
    kernel(n)
    kernel.grad(n)
    return x.grad.to_numpy()


def _exact(n: int) -> list[float]:
    out = []
    for v in STARTS.tolist():
        d = 1.0
        for _ in range(n):
            d, v = d * math.cos(v), math.sin(v)
        out.append(d)
    return out


@pytest.mark.parametrize("arch", ARCHES)
def test_overflow_in_debug_mode_names_kernel_capacity_line_and_the_setting(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, ad_stack_size=8, offline_cache=False)
    x, y, sines = _sines()
    with pytest.warns(UserWarning, match="holds 8 values per thread"):
        with pytest.raises(ti.TaichiAssertionError) as info:
            _grad(x, y, sines, 9)
    lines, first = inspect.getsourcelines(_sines)
    line = first + next(k for k, text in enumerate(lines) if "v = ti.sin(v)" in text)
    message = str(info.value)
    assert message.startswith(f"(kernel=sines_reverse_grad, line {line}) Autodiff stack overflow")
    assert "(8 values per thread;" in message and "ti.init(ad_stack_size=N)" in message
    assert f'File "{__file__}", line {line}' in message and "v = ti.sin(v)" in message
    for _ in range(2):  # the next launches work and are right
        np.testing.assert_allclose(_grad(x, y, sines, 8), _exact(8), rtol=1e-5)
    with pytest.raises(ti.TaichiAssertionError, match="stack overflow"):
        _grad(x, y, sines, 100)


@pytest.mark.parametrize("arch", ARCHES)
def test_release_mode_is_right_in_bounds_and_stays_inside_the_stack_past_it(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=False, ad_stack_size=8, offline_cache=False)
    x, y, sines = _sines()
    with pytest.warns(UserWarning, match="holds 8 values per thread"):
        np.testing.assert_allclose(_grad(x, y, sines, 8), _exact(8), rtol=1e-5)
    report = sines.grad.compile_report(8)
    assert "stack count" not in report.passes[-1].ir_text  # no checks without debug
    # past the capacity: wrong gradients (the warning says so) but no crash and no write past
    # the stack, so later launches are right
    past = _grad(x, y, sines, 1000)
    assert np.isfinite(past).all()
    np.testing.assert_allclose(_grad(x, y, sines, 5), _exact(5), rtol=1e-5)
