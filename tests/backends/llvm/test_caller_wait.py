"""The launching thread waits for a slower worker awake, not asleep (`runtime_ir.
CALLER_SPIN_CYCLES`): when it slept on the futex after ~50 us, the worker's wake-up moved it onto
the worker's CPU, and later launches ran both threads on one core.

Observed from another Python thread (the launch has let the GIL go): while the pool's `pending`
count says a worker's chunk is still running, the pool's `caller_sleeping` flag, which the
launching thread sets before it sleeps on the futex, must stay 0."""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.backend import default_backend


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a worker on another core")
def test_the_caller_waits_for_a_slower_worker_without_sleeping() -> None:
    ti.init(arch=ti.cpu, cpu_max_num_threads=2, offline_cache=False)
    n = 1 << 16  # two chunks: the caller's first half, the worker's second half
    out = np.zeros(n, dtype=np.float32)

    @ti.kernel
    def lopsided(out: ti.types.ndarray(dtype=ti.f32, ndim=1), rounds: ti.i32):
        for i in range(n):
            acc = 0.0
            trips = 1 if i < n // 2 else rounds  # the second half is the slow one
            for k in range(trips):
                acc = acc * 0.5 + ti.sin(acc + k)
            out[i] = acc

    lopsided(out, 2)
    ti.lang.impl.get_program().wait_for_optimised()
    pool = default_backend().pool
    pending = ctypes.c_int32.from_address(pool.state_address + rt.PENDING)
    sleeping = ctypes.c_int32.from_address(pool.state_address + rt.CALLER_SLEEPING)
    seen = {"awake": 0, "asleep": 0}
    stop = threading.Event()

    def watch() -> None:  # sleeps between looks: a busy watcher took the caller's core
        while not stop.wait(0.0002):
            if pending.value:  # a launch waits for (or runs beside) the worker's chunk
                seen["asleep" if sleeping.value else "awake"] += 1

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(20):
            lopsided(out, 12)  # the worker's half: a few milliseconds more than the caller's
    finally:
        stop.set()
        watcher.join()
    assert seen["awake"] >= 10, seen  # the watcher did look during the launches
    assert seen["asleep"] == 0, seen
    assert np.isfinite(out).all()
