"""Launch overhead of two tistudio checkouts, measured at the same time (not a test).

    python benchmarks/launch_ab.py OLD_DIR NEW_DIR [--seconds 20]

Each directory holds a `tistudio` package (e.g. `git archive <commit> tistudio | tar -x -C DIR`).
The machines here alternate between spells about 1.8x apart, seconds to minutes long, so two
checkouts timed one after the other can land in different spells. This runs one process per
checkout at once, each on its own core (a tiny kernel's launch runs on the calling thread), so
both see the same spells: each calls a cached 16-element kernel with two fields and one scalar,
and the same with two NumPy arrays, in batches of 2,000 calls, alternating, for `--seconds`, and
prints the minimum and the median per call in microseconds and the number of batches. It
needs two otherwise idle cores: any other load lands on one of the two processes (the same
checkout twice then gives medians 2.4x apart; the minimums still agree).
"""

# No "from __future__ import annotations": kernel annotations must be objects (`ti` is local).

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

N = 16
BATCH = 2000


def _calls(ti, np) -> dict:  # noqa: ANN001
    """name -> (kernel, its arguments): two fields and a scalar, two NumPy arrays and a scalar."""
    x, y = ti.field(ti.f32, shape=N), ti.field(ti.f32, shape=N)

    @ti.kernel
    def tiny(x: ti.template(), y: ti.template(), a: ti.f32):
        for i in range(16):
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def tiny_nd(x: ti.types.ndarray(), y: ti.types.ndarray(), a: ti.f32):
        for i in range(16):
            y[i] = a * x[i] + y[i]

    xn, yn = np.ones(N, np.float32), np.ones(N, np.float32)
    return {"fields": (tiny, (x, y, 0.5)), "ndarrays": (tiny_nd, (xn, yn, 0.5))}


def measure(seconds: float) -> dict[str, list[float]]:
    """Per-call microseconds of each batch, for the field kernel and the ndarray kernel."""
    import numpy as np

    import tistudio as ti

    ti.init(arch=ti.cpu, offline_cache=False)
    calls = _calls(ti, np)
    for kernel, args in calls.values():  # compiled, and on optimised code
        for _ in range(1000):
            kernel(*args)
    program = ti.lang.impl.get_program()
    if hasattr(program, "wait_for_optimised"):  # older checkouts: the 1,000 calls above
        program.wait_for_optimised()
    times: dict[str, list[float]] = {name: [] for name in calls}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for name, (kernel, args) in calls.items():
            start = time.perf_counter()
            for _ in itertools.repeat(None, BATCH):
                kernel(*args)
            times[name].append((time.perf_counter() - start) / BATCH * 1e6)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # a child: measure the tistudio on sys.path
        print(json.dumps(measure(args.seconds)))
        return
    children = {}
    for label in ("old", "new"):
        directory = os.path.abspath(getattr(args, label))
        env = {**os.environ, "PYTHONPATH": directory}
        command = [sys.executable, os.path.abspath(__file__), "-", "-", "--measure"]
        command += ["--seconds", str(args.seconds)]
        children[label] = (directory, subprocess.Popen(command, env=env, stdout=subprocess.PIPE))
    for label, (directory, child) in children.items():
        out, _ = child.communicate()
        if child.returncode:
            sys.exit(f"{label} ({directory}) failed")
        for name, samples in json.loads(out).items():
            low, mid = min(samples), statistics.median(samples)
            print(
                f"{label:4s} {name:9s} {low:5.2f} us min  {mid:5.2f} us median  "
                f"({len(samples)} batches)  {directory}"
            )


if __name__ == "__main__":
    main()
