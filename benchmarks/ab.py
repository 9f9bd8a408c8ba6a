"""Launch overhead or compile time of two tistudio checkouts, measured at the same time (not a
test).

    python benchmarks/ab.py OLD_DIR NEW_DIR [--what launch|compile] [--seconds 20]

Each directory holds a `tistudio` package (e.g. `git archive <commit> tistudio | tar -x -C DIR`).
The machines here alternate between spells about 1.8x apart, seconds to minutes long, so two
checkouts timed one after the other can land in different spells. This runs one process per
checkout at once, each pinned to its own core, for `--seconds`, and prints the minimum and the
median in each checkout's and each measure's row:

- `launch` (µs per call): the `launch_overhead` and `launch_overhead_ndarray` cases (a cached
  16-element kernel with two fields and one scalar, and the same with two NumPy arrays) in
  batches of 2,000 calls, alternating (a tiny kernel's launch runs on the calling thread);
- `compile` (ms per kernel): the first call of the `compile_next` case's kernel, each time a
  new kernel object over new fields (so a full compile: frontend, passes, LLVM), on the quick
  tier only (`TISTUDIO_TIERED=quick`: no optimiser thread on the other core).

The two cores need not be equally fast at the same moment (one build of tistudio measured
1.37 us on one and 2.7 us on the other), so there are two rounds, the second with the cores
swapped: a difference that follows the checkout across both rounds is the code's. It needs two
otherwise idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BATCH = 2000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure_launch(seconds: float) -> dict[str, list[float]]:
    """Per-call microseconds of each batch of the `launch_overhead` and
    `launch_overhead_ndarray` benchmark cases (their tistudio versions: the same kernels)."""
    import tistudio as ti

    sys.path.append(ROOT)  # the cases, after the checkout's own if it has them
    from benchmarks.cases import launch_overhead, launch_overhead_ndarray

    ti.init(arch=ti.cpu, offline_cache=False)
    cases = {"fields": launch_overhead, "ndarrays": launch_overhead_ndarray}
    impls = {name: case.taichi_impl(ti, case.make_inputs(BATCH)) for name, case in cases.items()}
    for impl in impls.values():  # compiled, and on optimised code
        impl.step()
    program = ti.lang.impl.get_program()
    if hasattr(program, "wait_for_optimised"):  # older checkouts: the batch above
        program.wait_for_optimised()
    times: dict[str, list[float]] = {name: [] for name in impls}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for name, impl in impls.items():
            start = time.perf_counter()
            impl.step()
            times[name].append((time.perf_counter() - start) / impl.calls_per_step * 1e6)
    return times


def measure_compile(seconds: float) -> dict[str, list[float]]:
    """Milliseconds of each first call of a new instance of the `compile_next` case's kernel
    (compile and a tiny run), on the quick tier."""
    os.environ["TISTUDIO_TIERED"] = "quick"
    import tistudio as ti

    sys.path.append(ROOT)
    from benchmarks.cases import compile_next

    ti.init(arch=ti.cpu, offline_cache=False)
    inputs = compile_next.make_inputs(compile_next.SIZES["full"])
    compile_next.taichi_impl(ti, inputs).step()  # the process's first kernels, not counted
    times: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        impl = compile_next.taichi_impl(ti, inputs)  # compiles its warm-up kernel too
        start = time.perf_counter()
        impl.step()
        times.append((time.perf_counter() - start) * 1e3)
    return {"compile": times}


MEASURES = {"launch": (measure_launch, "us"), "compile": (measure_compile, "ms")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--what", choices=sorted(MEASURES), default="launch")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cpu", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # a child: measure the tistudio on sys.path, on core `--cpu`
        os.sched_setaffinity(0, {args.cpu})
        print(json.dumps(MEASURES[args.what][0](args.seconds)))
        return
    directories = {label: os.path.abspath(getattr(args, label)) for label in ("old", "new")}
    first, second = (sorted(os.sched_getaffinity(0)) * 2)[:2]  # one core: both on it
    for cpus in ({"old": first, "new": second}, {"old": second, "new": first}):
        _round(directories, cpus, args.what, args.seconds)  # each checkout on each core


def _round(directories: dict[str, str], cpus: dict[str, int], what: str, seconds: float) -> None:
    """Measure both checkouts at once, each pinned to its core in `cpus`; print a row each."""
    unit = MEASURES[what][1]
    children = {}
    for label, directory in directories.items():
        command = [sys.executable, os.path.abspath(__file__), "-", "-", "--measure"]
        command += ["--what", what, "--seconds", str(seconds), "--cpu", str(cpus[label])]
        env = {**os.environ, "PYTHONPATH": directory}
        children[label] = subprocess.Popen(command, env=env, stdout=subprocess.PIPE)
    for label, child in children.items():
        out, _ = child.communicate()
        if child.returncode:
            sys.exit(f"{label} ({directories[label]}) failed")
        for name, samples in json.loads(out).items():
            low, mid = min(samples), statistics.median(samples)
            print(
                f"{label:4s} {name:9s} {low:5.2f} {unit} min  {mid:5.2f} {unit} median  "
                f"({len(samples)} samples, cpu {cpus[label]})  {directories[label]}"
            )


if __name__ == "__main__":
    main()
