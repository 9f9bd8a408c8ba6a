"""What the benchmarks ran on, and waiting for the CPU to be quiet before a measurement.

Machines here are shared, so a measurement waits until the rest of the machine is idle: the
busy share of all CPUs, read from ``/proc/stat`` over a window and minus this process's own CPU
time, must drop below a threshold. After a timeout the measurement goes ahead and says so.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORK_DISTRIBUTIONS = {
    "tistudio": "tistudio",
    "taichi": "taichi",
    "numba": "numba",
    "numpy": "numpy",
    "llvmlite": "llvmlite",
}


@dataclass(frozen=True)
class IdleWait:
    """Outcome of :func:`wait_until_idle`: busy share of the last window, seconds waited."""

    idle: bool
    busy: float
    waited_s: float


def _snapshot() -> tuple[int, int, float]:
    """(busy jiffies, total jiffies) over all CPUs since boot, and this process's CPU seconds."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # guest time is already counted in user time
    usage = resource.getrusage(resource.RUSAGE_SELF)  # all our threads, pools included
    return total - idle, total, usage.ru_utime + usage.ru_stime


class OthersCpuMeter:
    """Share (0..1) of all CPUs that other processes have used since the meter was made."""

    def __init__(self) -> None:
        self._start = _snapshot()

    def share(self) -> float:
        busy0, total0, own0 = self._start
        busy1, total1, own1 = _snapshot()
        others = (busy1 - busy0) - (own1 - own0) * os.sysconf("SC_CLK_TCK")
        return min(max(others / max(total1 - total0, 1), 0.0), 1.0)


def busy_share(window_s: float) -> float:
    """Share of all CPUs used by other processes during the next ``window_s`` seconds."""
    meter = OthersCpuMeter()
    time.sleep(window_s)
    return meter.share()


def wait_until_idle(
    threshold: float = 0.15, window_s: float = 1.0, timeout_s: float = 30.0
) -> IdleWait:
    """Blocks until other processes use less than ``threshold`` of the CPUs for ``window_s``."""
    start = time.perf_counter()
    while True:
        busy = busy_share(window_s)
        waited = time.perf_counter() - start
        if busy < threshold or waited >= timeout_s:
            return IdleWait(idle=busy < threshold, busy=round(busy, 3), waited_s=round(waited, 2))


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict[str, str]:
    """Installed versions, read from package metadata so that nothing is imported here."""
    found = {}
    for name, dist in FRAMEWORK_DISTRIBUTIONS.items():
        try:
            found[name] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["tistudio"] += f" (checkout {git_revision()})"
    return found


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip()


def describe() -> dict:
    """The machine and software, for the report header."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "versions": versions(),
    }
