"""Sweeps on a real `LocalCluster` give what running the module in-process gives.

Every number is compared with the same module loaded in this process (`tistudio.aot.load`)
and run one parameter set at a time; the load counts are read from the workers' caches.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
import tistudio.aot
from tests.distributed import sim
from tistudio.aot.format import AotModuleError
from tistudio.distributed import SweepTaskError, cache_info, submit_sweep, sweep


def in_process(path, name, params, outputs):
    """Each parameter set on the module loaded here, the fields reset in between."""
    module = tistudio.aot.load(path)
    initial = module.fields["x"].to_numpy()
    results = []
    for p in params:
        module.fields["x"].from_numpy(initial)
        args = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in p.items()}
        if name in module.graph_names:
            module.get_graph(name).run(args)
        else:
            returned = module.get_kernel(name)(**args)
        results.append({"x": module.fields["x"].to_numpy(), **args} if outputs else returned)
    return results


def test_a_sweep_of_32_gives_the_in_process_results(client, cpu_module):
    params = sim.params(32)
    results = sweep(client, cpu_module, "simulate", params, outputs="x")
    expected = in_process(cpu_module, "simulate", params, outputs=True)
    assert len(results) == 32
    for got, want in zip(results, expected):
        assert isinstance(got, np.ndarray) and got.dtype == np.float32
        np.testing.assert_array_equal(got, want["x"])
    assert len({r.tobytes() for r in results}) == 32  # the damping reached every task


def test_a_graph_with_arrays_returns_fields_and_arrays(client, cpu_module):
    params = [
        {**p, "arr": np.arange(10, dtype=np.float32), "k": float(i)}
        for i, p in enumerate(sim.params(6, steps=50))
    ]
    results = sweep(client, cpu_module, "run", params, outputs=["x", "arr"])
    expected = in_process(cpu_module, "run", params, outputs=True)
    for got, want in zip(results, expected):
        assert sorted(got) == ["arr", "x"]
        np.testing.assert_array_equal(got["x"], want["x"])
        np.testing.assert_array_equal(got["arr"], want["arr"])
    np.testing.assert_array_equal(params[3]["arr"], np.arange(10))  # the caller's copy


def test_return_values_and_tasks_start_from_the_loaded_fields(client, tmp_path):
    path = sim.build(ti.cpu, tmp_path / "extra.tcm", extra=True)
    # each task adds to x; starting from x as loaded, every task sees x = by
    results = sweep(client, path, "accumulate", [{"by": 1.0}] * 12, outputs="x")
    for got in results:
        np.testing.assert_array_equal(got, np.ones(sim.N, np.float32))
    energies = sweep(client, path, "energy", [{}] * 4)
    assert energies == [0.0] * 4


def test_each_worker_loads_a_module_once(client, tmp_path):
    path = sim.build(ti.cpu, tmp_path / "counted.tcm", extra=True)
    sha = __import__("hashlib").sha256(path.read_bytes()).hexdigest()
    before = {w: loads.get(sha, 0) for w, loads in cache_info(client).items()}
    sweep(client, path, "simulate", sim.params(24, steps=20), outputs="x")
    sweep(client, path, "energy", [{}] * 8)
    after = {w: loads.get(sha, 0) for w, loads in cache_info(client).items()}
    assert sum(after.values()) >= 1
    assert all(after[w] - before.get(w, 0) <= 1 for w in after), after
    assert all(count <= 1 for count in after.values()), after


def test_a_ti_aot_module_object_or_folder_can_be_swept(client, tmp_path):
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v * i

    module = ti.aot.Module(ti.cpu)
    module.add_field("x", x)
    module.add_kernel(fill)
    results = sweep(client, module, "fill", [{"v": 1.0}, {"v": 2.0}], outputs="x")
    np.testing.assert_array_equal(results[1], [0, 2, 4, 6])
    module.save(str(tmp_path / "folder"))  # a saved folder travels as its archive
    ti.reset()
    results = sweep(client, tmp_path / "folder", "fill", [{"v": 3.0}], outputs="x")
    np.testing.assert_array_equal(results[0], [0, 3, 6, 9])


def test_a_kernel_error_is_reported_with_its_text(client, cpu_module):
    params = [{"arr": np.zeros(3, np.float32), "k": 1.0} for _ in range(4)]
    params[2] = {"arr": np.zeros(3, np.float64), "k": 1.0}
    futures = submit_sweep(client, cpu_module, "scale", params, outputs="arr", retries=1)
    with pytest.raises(SweepTaskError) as info:
        client.gather(futures)
    text = str(info.value)
    assert "'arr' must be a 1-d float32 array, got a 1-d float64 array" in text
    assert "parameter set 2" in text and "'scale'" in text and str(cpu_module) in text
    assert futures[0].result() is not None  # the other tasks still ran
    story = client.story(futures[2].key)
    runs = [s for s in story if s[0] == "scheduler" and s[2:4] == ("waiting", "processing")]
    assert len(runs) == 2  # Dask ran it again (retries=1) before reporting it


def test_unknown_names_fail_on_the_client(client, cpu_module):
    with pytest.raises(KeyError, match="has no kernel or graph 'simulat'"):
        submit_sweep(client, cpu_module, "simulat", [{}])
    with pytest.raises(KeyError, match="output 'y' is neither"):
        submit_sweep(client, cpu_module, "simulate", sim.params(2), outputs="y")
    with pytest.raises(AotModuleError, match="no-such.tcm"):
        submit_sweep(client, "no-such.tcm", "simulate", [{}])
