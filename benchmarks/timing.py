"""Timing on a shared machine: keep only the samples taken while other processes were quiet.

Samples are taken in chunks of about half a second. A chunk during which other processes used
more than ``BUSY_THRESHOLD`` of the CPUs (read from ``/proc/stat``, this process's own threads
excluded) is dropped, and sampling resumes once the machine is idle again. When the machine
never quiets down within the patience limit, the disturbed samples are used and the report says
``idle: false``, so that the table can mark the number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.machine import OthersCpuMeter, wait_until_idle

BUSY_THRESHOLD = 0.15  # share of all CPUs that other processes may use while we measure
MIN_REPS = 3  # a slow framework still gets this many repetitions beyond the time budget


@dataclass(frozen=True)
class Policy:
    """How long to measure and how long to wait for quiet, per mode."""

    budget_s: float  # seconds of kept samples after which we stop, once MIN_REPS are kept
    patience_s: float  # seconds after which we stop waiting for quiet and use what we have
    window_s: float  # idle means: quiet for this long
    wait_timeout_s: float  # longest single wait for idle
    chunk_s: float = 0.5


POLICY = {
    "full": Policy(budget_s=8.0, patience_s=30.0, window_s=1.0, wait_timeout_s=10.0),
    "quick": Policy(budget_s=2.0, patience_s=4.0, window_s=0.3, wait_timeout_s=2.0),
}


def _wait(policy: Policy) -> float:
    waited = wait_until_idle(BUSY_THRESHOLD, policy.window_s, policy.wait_timeout_s)
    return waited.waited_s


def _time_chunk(step: Callable[[], None], at_most: int, chunk_s: float) -> list[float]:
    times: list[float] = []
    end = time.perf_counter() + chunk_s
    while len(times) < at_most and (not times or time.perf_counter() < end):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def sample_quietly(step: Callable[[], None], reps: int, mode: str) -> tuple[list[float], dict]:
    """Times ``step()`` up to ``reps`` times (seconds each) and says how quiet the machine was."""
    policy = POLICY[mode]
    kept: list[float] = []
    dropped: list[float] = []
    waited = _wait(policy)
    start = time.perf_counter()
    while len(kept) < reps:
        meter = OthersCpuMeter()
        chunk = _time_chunk(step, reps - len(kept), policy.chunk_s)
        busy = meter.share() >= BUSY_THRESHOLD
        (dropped if busy else kept).extend(chunk)
        if len(kept) >= MIN_REPS and sum(kept) > policy.budget_s:
            break
        if time.perf_counter() - start > policy.patience_s:
            break
        if busy:
            waited += _wait(policy)
    idle = len(kept) >= min(MIN_REPS, reps)
    samples = kept if idle else kept + dropped
    return samples, {"idle": idle, "dropped": len(dropped), "waited_s": round(waited, 2)}


def time_once_quietly(step: Callable[[], None], mode: str) -> tuple[float, dict]:
    """Times one call (a cold start cannot be repeated in the same process)."""
    waited = _wait(POLICY[mode])
    meter = OthersCpuMeter()
    start = time.perf_counter()
    step()
    seconds = time.perf_counter() - start
    busy = meter.share()
    return seconds, {"idle": busy < BUSY_THRESHOLD, "busy": round(busy, 3), "waited_s": waited}
