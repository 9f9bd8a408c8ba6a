"""AOT load versus JIT compile, each in a fresh process: `python benchmarks/aot_load.py`.

Builds a CPU module of two kernels (an ndarray fill and a field reduction), then times in new
processes (a) `import tistudio` + first calls of the JIT kernels (compile + run, offline cache
off), (b) `import tistudio.aot` + `load(.tcm)` + first calls of the loaded kernels, and (c) the
per-call cost of a warm call of a tiny kernel (`tick`) of each kind. Prints medians over
`--repeat` processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KERNELS = """
import time, numpy as np
t0 = time.perf_counter()
import tistudio as ti
ti.init(arch=ti.cpu, offline_cache=False)
x = ti.field(ti.f32, shape=(256, 256))

@ti.kernel
def fill(arr: ti.types.ndarray(ti.f32, ndim=1), val: ti.f32):
    for i in range(arr.shape[0]):
        arr[i] = val + i
    for i, j in x:
        x[i, j] = val * i - j

@ti.kernel
def tick(n: ti.i32) -> ti.i32:
    return n + 1

@ti.kernel
def total() -> ti.f32:
    s = 0.0
    for i, j in x:
        s += x[i, j]
    return s
"""

JIT = (
    KERNELS
    + """
a = np.zeros(1000, np.float32)
fill(a, 1.0); total(); tick(1)
first = time.perf_counter() - t0
t1 = time.perf_counter()
for _ in range(20000):
    tick(1)
warm = (time.perf_counter() - t1) / 20000
print(json.dumps({"first_s": first, "warm_us": warm * 1e6}))
"""
)

BUILD = (
    KERNELS
    + """
m = ti.aot.Module()
m.add_field("x", x)
m.add_kernel(fill)
m.add_kernel(total)
m.add_kernel(tick)
m.archive(OUT)
print("{}")
"""
)

AOT = """
import json, time, numpy as np
t0 = time.perf_counter()
import tistudio.aot
m = tistudio.aot.load(PATH)
fill, total, tick = m.get_kernel("fill"), m.get_kernel("total"), m.get_kernel("tick")
a = np.zeros(1000, np.float32)
fill(a, 1.0); total(); tick(1)
first = time.perf_counter() - t0
t1 = time.perf_counter()
for _ in range(20000):
    tick(1)
warm = (time.perf_counter() - t1) / 20000
print(json.dumps({"first_s": first, "warm_us": warm * 1e6}))
"""


def _run(code: str, folder: Path) -> dict:
    script = folder / "case.py"
    script.write_text("import json\n" + code)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tcm = folder / "m.tcm"
        _run(BUILD.replace("OUT", repr(str(tcm))), folder)
        rows = {"jit": [], "aot": []}
        for _ in range(args.repeat):
            rows["jit"].append(_run(JIT, folder))
            rows["aot"].append(_run(AOT.replace("PATH", repr(str(tcm))), folder))
        print(f"module: {tcm.stat().st_size} bytes")
        for kind, results in rows.items():
            first = statistics.median(r["first_s"] for r in results) * 1e3
            warm = statistics.median(r["warm_us"] for r in results)
            print(f"{kind}: import + first calls {first:.0f} ms, warm call {warm:.2f} us")


if __name__ == "__main__":
    main()
