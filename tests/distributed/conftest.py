"""One real Dask cluster per test module: two worker processes of one thread each.

`distributed` comes with the test extra (`tistudio[dask]`), so it is imported directly: a
missing install fails here, with Python's own message, rather than skipping the tests.
"""

from __future__ import annotations

import distributed
import pytest

import tistudio as ti
from tests.distributed import sim


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        yield client


@pytest.fixture(scope="module")
def cpu_module(tmp_path_factory):
    return sim.build(ti.cpu, tmp_path_factory.mktemp("sim") / "sim.tcm")
