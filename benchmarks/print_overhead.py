"""What `print` in kernels costs (#11): a launch with and without a print, and 100k prints
from a parallel loop (records decoded and written through `sys.stdout`, here a StringIO).

    python benchmarks/print_overhead.py cpu      (or vulkan; results go to stderr)
"""

from __future__ import annotations

import contextlib
import io
import sys
import time

import tistudio as ti


def main(arch: str) -> None:
    ti.init(arch=getattr(ti, arch), offline_cache=False)

    @ti.kernel
    def one(i: ti.i32):
        print("value", i)

    @ti.kernel
    def none(i: ti.i32) -> ti.i32:
        return i + 1

    @ti.kernel
    def many(n: ti.i32):
        for i in range(n):
            print("i =", i, "x =", i * 0.5)

    def per_call_us(fn, reps: int = 2000) -> float:  # noqa: ANN001
        fn(0)
        start = time.perf_counter()
        for k in range(reps):
            fn(k)
        return (time.perf_counter() - start) / reps * 1e6

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        plain, printing = per_call_us(none), per_call_us(one)
        many(10)
        start = time.perf_counter()
        many(100_000)
        lines_ms = (time.perf_counter() - start) * 1e3
    print(
        f"{arch}: launch {plain:.1f} us without print, {printing:.1f} us with one print; "
        f"100k prints from a parallel loop {lines_ms:.0f} ms",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
