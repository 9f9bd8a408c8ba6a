"""Kernels and fields shared by the AOT tests, and the module they make.

`build(arch)` declares two fields and four kernels (a 2-D field write, a reduction with a
return value, an ndarray kernel, a template kernel) plus a graph, in a fresh program, and
returns the module and the objects; `expected()` is what running them must produce, computed
with NumPy, so CPU, GPU and JIT results are all checked against the same numbers.
"""

from __future__ import annotations

import numpy as np

import tistudio as ti
from tistudio.lang import impl

x = v = None  # set by build()


@ti.kernel
def init(a: ti.f32):
    for i, j in x:
        x[i, j] = a * i + j
    for k in v:
        v[k] = [k, 2 * k, 3 * k]


@ti.kernel
def total() -> ti.f32:
    s = 0.0
    for i, j in x:
        s += x[i, j]
    return s


@ti.kernel
def fill(arr: ti.types.ndarray(ti.f32, ndim=1), val: ti.f32):
    for i in range(arr.shape[0]):
        arr[i] = val + i


@ti.kernel
def bump(f: ti.template(), by: ti.i32):
    for I in ti.grouped(f):
        f[I] += by


def build(arch, device=None, **options):
    """A fresh program on `arch` (on `device`, a `GpuDevice`, if given; `options` go to
    `ti.init`) and a module with everything above; returns (module, x, v, graph)."""
    global x, v
    ti.init(arch=arch, offline_cache=False, **options)
    if device is not None:
        impl.get_program().use_gpu(device)
    x = ti.field(ti.f32, shape=(4, 4))
    v = ti.Vector.field(3, ti.f32, shape=8)
    module = ti.aot.Module(arch)
    module.add_field("x", x)
    module.add_field("v", v)
    module.add_kernel(init)
    module.add_kernel(total)
    module.add_kernel(fill)
    with module.add_kernel_template(bump) as kt:
        kt.instantiate(f=x)
        kt.instantiate(f=v)
    builder = ti.graph.GraphBuilder()
    arr = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "arr", ti.f32, ndim=1)
    val = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "val", ti.f32)
    builder.dispatch(fill, arr, val)
    builder.dispatch(bump, x, 3)
    graph = builder.compile()
    module.add_graph("g", graph)
    return module, x, v, graph


def expected_x(a: float) -> np.ndarray:
    i, j = np.indices((4, 4))
    return (a * i + j).astype(np.float32)


def expected_v() -> np.ndarray:
    k = np.arange(8, dtype=np.float32)[:, None]
    return np.hstack([k, 2 * k, 3 * k])
