"""A small simulation exported as an AOT module for the Dask tests, and its parameter sets.

`build(arch, path)` writes a module with a field `x`, a damped oscillator per element
(`simulate`, which writes `x` from scratch), a reduction with a return value (`energy`), an
ndarray kernel (`scale`), a kernel that accumulates into `x` (`accumulate`, whose result
depends on whether each task starts from the fields as loaded), and a graph `run` of
`simulate` then `scale`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import tistudio as ti

N = 64
x = None  # set by build()


@ti.kernel
def simulate(damping: ti.f32, steps: ti.i32):
    for i in x:
        pos, vel = ti.cast(i, ti.f32) / 8.0, 0.0
        for _ in range(steps):
            vel += -0.1 * pos - damping * vel
            pos += 0.1 * vel
        x[i] = pos


@ti.kernel
def energy() -> ti.f32:
    s = 0.0
    for i in x:
        s += x[i] * x[i]
    return s


@ti.kernel
def scale(arr: ti.types.ndarray(ti.f32, ndim=1), k: ti.f32):
    for i in range(arr.shape[0]):
        arr[i] = arr[i] * k + x[i % N]


@ti.kernel
def accumulate(by: ti.f32):
    for i in x:
        x[i] += by


def build(arch, path: Path, *, extra: bool = False) -> Path:
    """Export the module for `arch` into `path` (a `.tcm`); `extra` adds `accumulate`
    (so the module's bytes, and its SHA-256, differ)."""
    global x
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=N)
    module = ti.aot.Module(arch)
    module.add_field("x", x)
    for kernel in (simulate, energy, scale) + ((accumulate,) if extra else ()):
        module.add_kernel(kernel)
    builder = ti.graph.GraphBuilder()
    damping = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "damping", ti.f32)
    steps = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "steps", ti.i32)
    arr = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "arr", ti.f32, ndim=1)
    k = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "k", ti.f32)
    builder.dispatch(simulate, damping, steps)
    builder.dispatch(scale, arr, k)
    module.add_graph("run", builder.compile())
    module.archive(str(path))
    ti.reset()
    return path


def params(count: int, steps: int = 200) -> list[dict]:
    """`count` parameter sets of `simulate`, one damping each."""
    return [{"damping": float(d), "steps": steps} for d in np.linspace(0.0, 0.3, count)]
