"""A GPU module's tasks run only on workers started with the resource `GPU`.

The cluster here has two worker processes, one plain and one started with
`resources={"GPU": 1}` (what `dask worker --resources "GPU=1"` does); the GPU is Mesa's
lavapipe, as in the rest of the GPU tests.
"""

from __future__ import annotations

import numpy as np
import pytest
from distributed import Client, Nanny, Scheduler, SpecCluster

import tistudio as ti
import tistudio.aot
from tests.distributed import sim
from tistudio.distributed import cache_info, submit_sweep, sweep


def worker(**options) -> dict:
    return {"cls": Nanny, "options": {"nthreads": 1, **options}}


@pytest.fixture(scope="module")
def mixed_client():
    with (
        SpecCluster(
            workers={"cpu": worker(), "gpu": worker(resources={"GPU": 1})},
            scheduler={"cls": Scheduler, "options": {"dashboard_address": None}},
        ) as cluster,
        Client(cluster) as client,
    ):
        client.wait_for_workers(2)
        yield client


def test_gpu_tasks_go_to_the_gpu_worker_only(mixed_client, tmp_path):
    path = sim.build(ti.vulkan, tmp_path / "gpu.tcm")
    params = sim.params(8, steps=30)
    results = sweep(mixed_client, path, "simulate", params, outputs="x")
    module = tistudio.aot.load(path)
    for p, got in zip(params, results):
        module.get_kernel("simulate")(**p)
        np.testing.assert_array_equal(got, module.fields["x"].to_numpy())
    info = mixed_client.scheduler_info()["workers"]
    gpu_worker = next(a for a, w in info.items() if w.get("resources", {}).get("GPU"))
    loaded = {w: loads for w, loads in cache_info(mixed_client).items() if loads}
    assert list(loaded) == [gpu_worker], loaded


def test_without_a_gpu_worker_the_tasks_wait_and_say_why(client, tmp_path):
    """`client` is the two plain workers of conftest's LocalCluster."""
    path = sim.build(ti.vulkan, tmp_path / "gpu.tcm")
    with pytest.warns(UserWarning, match=r"no worker has the resources \{'GPU': 1\}"):
        futures = submit_sweep(client, path, "simulate", sim.params(2, steps=10))
    cpu = submit_sweep(client, sim.build(ti.cpu, tmp_path / "cpu.tcm"), "energy", [{}])
    assert client.gather(cpu) == [0.0]
    assert [f.status for f in futures] == ["pending", "pending"]
    client.cancel(futures)
