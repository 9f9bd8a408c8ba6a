"""`ti.graph`: building graphs, and the mistakes a graph builder reports."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tests.aot import kernels


@ti.kernel
def scale(arr: ti.types.ndarray(ti.f32, ndim=1), factor: ti.f32):
    for i in range(arr.shape[0]):
        arr[i] *= factor


@ti.kernel
def vec_norms(vs: ti.types.ndarray(ti.math.vec2, ndim=1), out: ti.types.ndarray(ti.f32, ndim=1)):
    for i in range(vs.shape[0]):
        out[i] = vs[i].norm()


def test_sequential_and_constants(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=False)
    g = ti.graph.GraphBuilder()
    arr = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "arr", ti.f32, ndim=1)
    seq = g.create_sequential()
    seq.dispatch(kernels.fill, arr, 1.0)
    seq.dispatch(scale, arr, ti.graph.Arg(ti.graph.ArgKind.SCALAR, "k", ti.f32))
    g.append(seq)
    g.dispatch(scale, arr, 0.5)
    graph = g.compile()
    a = np.zeros(3, np.float32)
    graph.run({"arr": a, "k": 4.0})
    np.testing.assert_array_equal(a, [2, 4, 6])
    module = ti.aot.Module()
    module.add_graph("pipeline", graph)
    module.archive(str(tmp_path / "g.tcm"))
    loaded = ti.aot.load(tmp_path / "g.tcm")
    assert loaded.kernel_names == ["fill", "scale"]  # one instantiation of scale, reused
    b = np.zeros(3, np.float32)
    loaded.get_graph("pipeline").run({"arr": b, "k": 4.0})
    np.testing.assert_array_equal(b, a)


def test_vector_ndarray_arguments(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=False)
    g = ti.graph.GraphBuilder()
    vs = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "vs", ti.math.vec2, ndim=1)
    out = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "out", ti.f32, ndim=1)
    g.dispatch(vec_norms, vs, out)
    graph = g.compile()
    module = ti.aot.Module()
    module.add_graph("norms", graph)
    module.archive(str(tmp_path / "v.tcm"))
    data = np.array([[3, 4], [6, 8]], np.float32)
    result = np.zeros(2, np.float32)
    ti.aot.load(tmp_path / "v.tcm").get_graph("norms").run({"vs": data, "out": result})
    np.testing.assert_allclose(result, [5, 10])


def test_graph_mistakes_are_clear_errors():
    ti.init(arch=ti.cpu, offline_cache=False)
    arr = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "arr", ti.f32, ndim=1)
    g = ti.graph.GraphBuilder()
    with pytest.raises(TypeError, match="takes 2 argument"):
        g.dispatch(scale, arr)
    with pytest.raises(TypeError, match="'factor': takes an Arg or a number, got str"):
        g.dispatch(scale, arr, "2")
    with pytest.raises(TypeError, match="an ndarray parameter takes an NDARRAY"):
        g.dispatch(scale, np.zeros(3, np.float32), 2.0)
    wrong = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "arr", ti.i32, ndim=1)
    with pytest.raises(TypeError, match="has dtype i32, the kernel wants f32"):
        g.dispatch(scale, wrong, 2.0)
    with pytest.raises(TypeError, match="template parameter 'f' takes a field or value"):
        g.dispatch(kernels.bump, arr, 1)
    with pytest.raises(TypeError, match="dispatch takes a @ti.kernel"):
        g.dispatch(print, arr)
    with pytest.raises(ValueError, match="TEXTURE arguments are not supported"):
        ti.graph.Arg(ti.graph.ArgKind.TEXTURE, "tex")
    with pytest.raises(TypeError, match="takes graph_builder.compile"):
        ti.aot.Module().add_graph("g", g)
