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

    budget_s: float  # seconds of samples after which we stop, once MIN_REPS are taken
    patience_s: float  # after this long, stop waiting for quiet and keep disturbed samples too
    window_s: float  # idle means: quiet for this long
    wait_timeout_s: float  # longest single wait for idle
    chunk_s: float = 0.5


POLICY = {
    "full": Policy(budget_s=8.0, patience_s=10.0, window_s=1.0, wait_timeout_s=5.0),
    "quick": Policy(budget_s=2.0, patience_s=3.0, window_s=0.3, wait_timeout_s=2.0),
}


def _wait(policy: Policy, give_up: float) -> float:
    """Waits for idle, no longer than the policy allows nor past ``give_up``; returns seconds."""
    timeout = min(policy.wait_timeout_s, give_up - time.perf_counter())
    if timeout <= 0:
        return 0.0
    return wait_until_idle(BUSY_THRESHOLD, policy.window_s, timeout).waited_s


def _time_chunk(step: Callable[[], None], at_most: int, chunk_s: float) -> list[float]:
    times: list[float] = []
    end = time.perf_counter() + chunk_s
    while len(times) < at_most and (not times or time.perf_counter() < end):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def sample_quietly(step: Callable[[], None], reps: int, policy: Policy) -> tuple[list[float], dict]:
    """Times ``step()`` up to ``reps`` times (seconds each) and says how quiet the machine was."""
    give_up = time.perf_counter() + policy.patience_s
    samples: list[float] = []
    dropped = 0
    disturbed = False
    waited = _wait(policy, give_up)
    while len(samples) < reps:
        meter = OthersCpuMeter()
        chunk = _time_chunk(step, reps - len(samples), policy.chunk_s)
        busy = meter.share() >= BUSY_THRESHOLD
        if busy and time.perf_counter() < give_up:
            dropped += len(chunk)
            waited += _wait(policy, give_up)
            continue
        samples.extend(chunk)
        disturbed |= busy
        if len(samples) >= MIN_REPS and sum(samples) > policy.budget_s:
            break
    return samples, {"idle": not disturbed, "dropped": dropped, "waited_s": round(waited, 2)}


def time_once_quietly(step: Callable[[], None], policy: Policy) -> tuple[float, dict]:
    """Times one call (a cold start cannot be repeated in the same process)."""
    waited = _wait(policy, time.perf_counter() + policy.patience_s)
    meter = OthersCpuMeter()
    start = time.perf_counter()
    step()
    seconds = time.perf_counter() - start
    busy = meter.share()
    return seconds, {"idle": busy < BUSY_THRESHOLD, "busy": round(busy, 3), "waited_s": waited}
