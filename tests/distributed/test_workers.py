"""Sweeps survive a worker that dies, and a module that cannot load says which one it is.

The worker is killed for real (SIGKILL to its process, found with `client.run(os.getpid)`)
while the sweep runs; its nanny starts a new one and Dask reschedules the lost tasks.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from distributed import wait

import tistudio.aot
from tests.distributed import sim
from tistudio.aot.archive import read_module, write_tcm
from tistudio.aot.format import AotModuleError
from tistudio.distributed import ModuleLoadError, submit_sweep, sweep

STEPS = 5000  # ~50-100 ms a task here: long enough to kill a worker mid-sweep


def test_a_worker_killed_mid_sweep_loses_no_result(client, cpu_module):
    params = sim.params(32, steps=STEPS)
    futures = submit_sweep(client, cpu_module, "simulate", params, outputs="x")
    deadline = time.monotonic() + 60
    while sum(f.done() for f in futures) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    os.kill(pids[victim], signal.SIGKILL)
    assert sum(f.done() for f in futures) < len(futures), "the sweep ended before the kill"
    results = client.gather(futures)
    module = tistudio.aot.load(cpu_module)
    for p, got in zip(params, results):
        module.get_kernel("simulate")(**p)
        np.testing.assert_array_equal(got, module.fields["x"].to_numpy())
    client.wait_for_workers(2, timeout=60)
    assert pids[victim] not in client.run(os.getpid).values()


def damaged(path, target):
    """`path`'s module with one byte of `simulate.o` changed, written to `target`."""
    files = read_module(path)
    code = bytearray(files["simulate.o"])
    code[len(code) // 2] ^= 0xFF
    files["simulate.o"] = bytes(code)
    write_tcm(files, target)
    return target


def test_a_module_that_fails_to_load_names_the_archive(client, cpu_module, tmp_path):
    path = damaged(cpu_module, tmp_path / "damaged.tcm")
    with pytest.raises(ModuleLoadError) as info:
        sweep(client, path, "simulate", sim.params(4, steps=10), retries=0)
    text = str(info.value)
    assert repr(str(path)) in text and "failed to load on worker tcp://" in text
    assert "'simulate.o' is corrupted" in text
    assert "tistudio-modules" not in text  # the worker's copy is not what the user knows


def test_an_archive_that_is_not_a_module_fails_on_the_client(client, cpu_module, tmp_path):
    path = tmp_path / "truncated.tcm"
    path.write_bytes(cpu_module.read_bytes()[:200])
    with pytest.raises(AotModuleError, match=r"truncated\.tcm' is not a readable AOT module"):
        submit_sweep(client, path, "simulate", sim.params(2))
    futures = submit_sweep(client, cpu_module, "simulate", sim.params(2, steps=10))
    wait(futures)  # the cluster is fine
