"""A sweep on Dask against the same module run in-process: `python benchmarks/dask_sweep.py`.

Exports a CPU module of one kernel (a damped oscillator per element of a field, `steps` time
steps each), then times a sweep of `--tasks` parameter sets (a) in this process, one after
the other on the loaded module (fields reset, kernel, field copied out: what a Dask task does),
and (b) with `tistudio.distributed.sweep` on a `LocalCluster` of 1 and of 2 worker processes
(one thread each), after a warm-up sweep that loads the module on every worker. Two task
sizes: `tiny` (one time step: the per-task overhead) and `work` (`--steps` time steps). Prints
the median of `--repeat` sweeps, and the overhead per task: (sweep time - in-process time) /
tasks, at one worker. The machine's load average is printed: on a busy machine the numbers
are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from distributed import Client, LocalCluster

import tistudio as ti
import tistudio.aot
from tistudio.distributed import sweep

N = 256
x = None


@ti.kernel
def simulate(damping: ti.f32, steps: ti.i32):
    for i in x:
        pos, vel = ti.cast(i, ti.f32) / 64.0, 0.0
        for _ in range(steps):
            vel += -0.1 * pos - damping * vel
            pos += 0.1 * vel
        x[i] = pos


def build(path: Path) -> Path:
    global x
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=N)
    module = ti.aot.Module(ti.cpu)
    module.add_field("x", x)
    module.add_kernel(simulate)
    module.archive(str(path))
    ti.reset()
    return path


def params(tasks: int, steps: int) -> list[dict]:
    # light damping: a heavily damped oscillator reaches subnormal floats, 100x slower to step
    return [{"damping": float(d), "steps": steps} for d in np.linspace(0, 0.002, tasks)]


def in_process(path: Path, sets: list[dict]) -> float:
    module = tistudio.aot.load(path)
    kernel, field = module.get_kernel("simulate"), module.fields["x"]
    initial = field.to_numpy()
    start = time.perf_counter()
    for p in sets:
        field.from_numpy(initial)
        kernel(**p)
        field.to_numpy()
    return time.perf_counter() - start


def on_dask(client: Client, path: Path, sets: list[dict]) -> float:
    start = time.perf_counter()
    sweep(client, path, "simulate", sets, outputs="x", show_progress=False)
    return time.perf_counter() - start


def median(fn, repeat: int) -> float:
    return statistics.median(fn() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    path = build(folder / "bench.tcm")
    sizes = {"tiny": params(args.tasks, 1), "work": params(args.tasks, args.steps)}
    rows = {
        name: {"in_process_s": median(lambda s=s: in_process(path, s), args.repeat)}
        for name, s in sizes.items()
    }
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as cluster,
            Client(cluster) as client,
        ):
            on_dask(client, path, sizes["tiny"])  # warm-up: imports and one load per worker
            for name, s in sizes.items():
                rows[name][f"dask_{workers}w_s"] = median(
                    lambda s=s: on_dask(client, path, s), args.repeat
                )
    print(f"{args.tasks} tasks, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'task':<6}{'in-process':>12}{'dask 1 worker':>15}{'dask 2 workers':>16}")
    for name, row in rows.items():
        print(
            f"{name:<6}{row['in_process_s']:>11.3f}s{row['dask_1w_s']:>14.3f}s"
            f"{row['dask_2w_s']:>15.3f}s"
        )
    for name, row in rows.items():
        overhead = (row["dask_1w_s"] - row["in_process_s"]) / args.tasks
        speedup = row["dask_1w_s"] / row["dask_2w_s"]
        print(
            f"{name}: overhead {overhead * 1e3:.2f} ms/task at 1 worker; 2 workers {speedup:.2f}x"
        )
    shutil.rmtree(folder)
    print(json.dumps({"tasks": args.tasks, "steps": args.steps, "rows": rows}))


if __name__ == "__main__":
    main()
