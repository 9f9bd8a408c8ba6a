"""Launch overhead and saxpy throughput of the CPU back end (not a test).

    python benchmarks/llvm_launch_overhead.py [--threads N]

Prints, for kernels written directly as final IR (no frontend involved):
  * the launch cost of a cached tiny kernel (a 16-iteration range_for, one scalar argument, one
    ndarray argument), i.e. everything `CpuExecutable.launch` does around the native call;
  * the cost of one parallel launch that wakes the pool (2 grains of a trivial loop);
  * saxpy `y = a*x + y` on 10M float32 against NumPy.
Each figure is the minimum and the median of several repeats, in microseconds or milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm.thread_pool import MIN_GRAIN
from tistudio.ir import Param, parse_ir, verify
from tistudio.ir.config import CompileConfig
from tistudio.ir.types import f32

RANGE_KERNEL = """
kernel {{
  $0 = offloaded range_for(0, {n}) body {{
    <i32> $1 = loop $0 index 0
    <*f32> $2 = external_ptr arg 1, [$1]
    <*f32> $3 = external_ptr arg 2, [$1]
    <f32> $4 = argload[0]
    <f32> $5 = global load $2
    <f32> $6 = mul $4 $5
    <f32> $7 = global load $3
    <f32> $8 = add $6 $7
    $9 : global store [$3 <- $8]
  }}
}}
"""

PARAMS = [
    Param("a", "scalar", f32),
    Param("x", "ndarray", f32, 1),
    Param("y", "ndarray", f32, 1),
]


def compile_saxpy(backend: CpuBackend, n: int, threads: int):
    kernel = parse_ir(RANGE_KERNEL.format(n=n))
    kernel.params = list(PARAMS)
    verify(kernel)
    return backend.compile(kernel, CompileConfig(cpu_max_num_threads=threads))


def per_call_us(fn, calls: int, repeats: int = 7) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    threads = parser.parse_args().threads
    backend = CpuBackend(threads)
    print(f"threads: {threads}, grain: {MIN_GRAIN}")

    tiny = compile_saxpy(backend, 16, threads)
    x, y = np.ones(16, np.float32), np.zeros(16, np.float32)
    args, roots = (2.0, x, y), ()
    lo, med = per_call_us(lambda: tiny.launch(args, roots), 20000)
    print(f"tiny range_for launch (16 iterations, inline): {lo:.2f} us min, {med:.2f} us median")

    n = 2 * MIN_GRAIN
    wake = compile_saxpy(backend, n, threads)
    inline = compile_saxpy(backend, n, 1)
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    args = (2.0, x, y)
    lo_p, med_p = per_call_us(lambda: wake.launch(args, roots), 5000)
    lo_i, med_i = per_call_us(lambda: inline.launch(args, roots), 5000)
    print(f"range_for of {n} on {threads} threads: {lo_p:.2f} us min, {med_p:.2f} us median")
    print(f"same loop on 1 thread (no pool):     {lo_i:.2f} us min, {med_i:.2f} us median")

    n = 10_000_000
    saxpy = compile_saxpy(backend, n, threads)
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    args = (2.0, x, y)
    lo_k, med_k = per_call_us(lambda: saxpy.launch(args, roots), 5, repeats=9)
    tmp = np.empty_like(x)

    def numpy_saxpy() -> None:
        np.multiply(x, np.float32(2.0), out=tmp)
        np.add(tmp, y, out=y)

    lo_n, med_n = per_call_us(numpy_saxpy, 5, repeats=9)
    print(f"saxpy 10M f32, tistudio: {lo_k / 1e3:.2f} ms min, {med_k / 1e3:.2f} ms median")
    print(f"saxpy 10M f32, numpy:    {lo_n / 1e3:.2f} ms min, {med_n / 1e3:.2f} ms median")
    backend.close()


if __name__ == "__main__":
    main()
