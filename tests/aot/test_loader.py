"""Running loaded modules on the CPU and on the GPU (lavapipe), against NumPy and the JIT."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
import tistudio.aot
from tests.aot import kernels


@pytest.fixture(params=["cpu", "vulkan"])
def archived(request, tmp_path):
    """(arch name, path of the module's .tcm) for each arch."""
    module, *_ = kernels.build(getattr(ti, request.param))
    path = tmp_path / "m.tcm"
    module.archive(str(path))
    ti.reset()
    return request.param, path


def test_kernels_fields_and_graph_run(archived):
    arch, path = archived
    m = tistudio.aot.load(path, arch=getattr(ti, arch))
    assert m.arch == ("gpu" if arch == "vulkan" else "cpu")
    m.get_kernel("init")(2.0)
    np.testing.assert_array_equal(m.fields["x"].to_numpy(), kernels.expected_x(2.0))
    np.testing.assert_array_equal(m.fields["v"].to_numpy(), kernels.expected_v())
    assert m.get_kernel("total")() == pytest.approx(kernels.expected_x(2.0).sum())
    arr = np.zeros(5, np.float32)
    m.get_kernel("fill")(arr, val=1.5)
    np.testing.assert_array_equal(arr, 1.5 + np.arange(5, dtype=np.float32))
    m.get_kernel("bump|f=v,")(by=-1)
    np.testing.assert_array_equal(m.fields["v"].to_numpy(), kernels.expected_v() - 1)
    m.get_graph("g").run({"arr": arr, "val": 10.0})
    np.testing.assert_array_equal(arr, 10 + np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(m.fields["x"].to_numpy(), kernels.expected_x(2.0) + 3)


def test_fields_written_from_python_reach_the_kernels(archived):
    arch, path = archived
    m = tistudio.aot.load(path)
    m.fields["x"].from_numpy(np.full((4, 4), 0.5, np.float32))
    assert m.get_kernel("total")() == pytest.approx(8.0)
    m.fields["x"].fill(1)
    m.get_kernel("bump|f=x,")(2)
    assert m.get_kernel("total")() == pytest.approx(48.0)
    with pytest.raises(ValueError, match=r"has shape \(4, 4\), got an array of shape \(3,\)"):
        m.fields["x"].from_numpy(np.zeros(3))


def test_jit_graph_runs_like_the_loaded_one():
    _, x, _, graph = kernels.build(ti.cpu)
    arr = np.zeros(4, np.float32)
    graph.run({"arr": arr, "val": 1.0})
    np.testing.assert_array_equal(arr, [1, 2, 3, 4])
    np.testing.assert_array_equal(x.to_numpy(), np.full((4, 4), 3, np.float32))
    with pytest.raises(TypeError, match="needs argument 'val'"):
        graph.run({"arr": arr})
    with pytest.raises(TypeError, match="has no argument 'size'"):
        graph.run({"arr": arr, "val": 1.0, "size": 3})


def test_wrong_arguments_are_clear_errors(archived):
    arch, path = archived
    m = tistudio.aot.load(path)
    fill = m.get_kernel("fill")
    with pytest.raises(TypeError, match=r"'arr' must be a 1-d float32 array, got a 1-d float64"):
        fill(np.zeros(3), 1.0)
    with pytest.raises(TypeError, match=r"'arr' must be a 1-d float32 array, got a 2-d float32"):
        fill(np.zeros((3, 2), np.float32), 1.0)
    with pytest.raises(TypeError, match="'arr' must be a NumPy array, got list"):
        fill([1.0, 2.0], 1.0)
    with pytest.raises(TypeError, match="'val' must be a float32 scalar, got str"):
        fill(np.zeros(3, np.float32), "1")
    with pytest.raises(TypeError, match="'by' must be an integer for int32, got float"):
        m.get_kernel("bump|f=x,")(1.5)
    with pytest.raises(TypeError, match="needs argument 'val'"):
        fill(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="takes 2 argument"):
        fill(np.zeros(3, np.float32), 1.0, 2.0)
    with pytest.raises(ValueError, match="must be C-contiguous"):
        fill(np.zeros(6, np.float32)[::2], 1.0)
    with pytest.raises(KeyError, match="no kernel 'nope'"):
        m.get_kernel("nope")
    with pytest.raises(KeyError, match="no graph 'h'"):
        m.get_graph("h")
    with pytest.raises(TypeError, match="needs argument 'arr'"):
        m.get_graph("g").run({"val": 1.0})


def test_module_runs_only_on_its_arch(archived):
    arch, path = archived
    other = ti.cpu if arch == "vulkan" else ti.vulkan
    with pytest.raises(tistudio.aot.AotModuleError, match="cannot run on"):
        tistudio.aot.load(path, arch=other)


def test_two_loaded_modules_do_not_share_memory_or_symbols(tmp_path):
    module, *_ = kernels.build(ti.cpu)
    module.archive(str(tmp_path / "m.tcm"))
    first, second = tistudio.aot.load(tmp_path / "m.tcm"), tistudio.aot.load(tmp_path / "m.tcm")
    first.get_kernel("init")(1.0)
    second.get_kernel("init")(3.0)
    np.testing.assert_array_equal(first.fields["x"].to_numpy(), kernels.expected_x(1.0))
    np.testing.assert_array_equal(second.fields["x"].to_numpy(), kernels.expected_x(3.0))
