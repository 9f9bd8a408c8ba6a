"""The launching thread waits for a slower worker awake, not asleep (`runtime_ir.
CALLER_SPIN_CYCLES`): when it slept on the futex after ~50 us, the worker's wake-up moved it onto
the worker's CPU, and later launches ran both threads on one core.

Observed from another Python thread (the launch has let the GIL go): the pool's
`caller_sleeping` flag, which the launching thread sets only once its spin budget is spent, may be
seen set only during a launch that lasted at least that budget. This holds however busy the
machine is (load makes a launch longer, never shorter); a machine too busy for the worker to
finish within the budget makes the caller sleep, which is then allowed. How fast the pool joins
is measured by `benchmarks/cases/stencil.py` (the case that chose the budget), not here."""

from __future__ import annotations

import ctypes
import os
import threading
import time

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.backend import default_backend

# How long the caller must stay awake for a slower worker, at least. Its budget is counted in
# time-stamp-counter ticks (30M: 6 ms at 5 GHz, the fastest counter we run on); a budget of
# ~50 us, as it once was, makes the caller sleep in the test's ~2 ms launches.
AWAKE_AT_LEAST_S = 0.005


def _run_watched(launch, enough_looks: int) -> tuple[list[tuple[float, float]], list, int]:
    """Launch until a watcher thread has looked at the pool during `enough_looks` launches'
    waits; returns each launch's (start, end), the (before, after) moments of every look that
    found the caller asleep, and the number of looks made while a launch was pending."""
    pool = default_backend().pool
    pending = ctypes.c_int32.from_address(pool.state_address + rt.PENDING)
    sleeping = ctypes.c_int32.from_address(pool.state_address + rt.CALLER_SLEEPING)
    asleep: list[tuple[float, float]] = []
    looks = [0]
    stop = threading.Event()

    def watch() -> None:  # sleeps between looks: a busy watcher took the caller's core
        while not stop.wait(0.0002):
            before = time.perf_counter()
            if pending.value:
                looks[0] += 1
                if sleeping.value:
                    asleep.append((before, time.perf_counter()))

    launches: list[tuple[float, float]] = []
    watcher = threading.Thread(target=watch)
    watcher.start()
    deadline = time.monotonic() + 120  # generous: only a hung pool gets near it
    try:
        while len(launches) < 20 or (looks[0] < enough_looks and time.monotonic() < deadline):
            start = time.perf_counter()
            launch()
            launches.append((start, time.perf_counter()))
    finally:
        stop.set()
        watcher.join()
    return launches, asleep, looks[0]


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
    # the worker's half: ~2 ms more than the caller's on an idle machine, well inside the budget
    launches, asleep, looks = _run_watched(lambda: lopsided(out, 6), enough_looks=10)
    assert looks >= 10, (looks, len(launches))  # the watcher did look during the launches
    for before, after in asleep:
        during = [(s, e) for s, e in launches if s <= before and after <= e]
        if not during:  # the look straddled two launches: which one slept is unknown
            continue
        (start, end), *_ = during
        lasted = end - start
        assert lasted >= AWAKE_AT_LEAST_S, f"the caller slept in a launch of {lasted * 1e3:.2f} ms"
    assert np.isfinite(out).all()
