"""Launch overhead and saxpy throughput of the CPU back end (not a test).

    python benchmarks/llvm_launch_overhead.py [--threads N]

Prints, for kernels written directly as final IR (no frontend involved):
  * the launch cost of a cached tiny kernel (a 16-iteration range_for, one scalar argument, two
    ndarray arguments): everything `CpuExecutable.launch` does, native call included;
  * the extra cost of a launch that forks and joins over the thread pool (native and Python);
  * saxpy `y = a*x + y` on 10M float32, on 1 and N threads, against NumPy.
Each figure is the minimum and the median of several repeats, in microseconds or milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from tistudio.backends.llvm import CpuBackend
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


def fork_join_us(native: bool, threads: int) -> float:
    """Extra cost of a launch that splits a 2-iteration loop over the pool (grain 1)."""
    backend = CpuBackend(threads, grain=1, native=native)
    split, inline = compile_saxpy(backend, 2, threads), compile_saxpy(backend, 2, 1)
    args = (2.0, np.ones(2, np.float32), np.zeros(2, np.float32))
    split.launch(args, ())
    cost = per_call_us(lambda: split.launch(args, ()), 20000)[0]
    cost -= per_call_us(lambda: inline.launch(args, ()), 20000)[0]
    backend.close()
    return cost


def saxpy_ms(backend: CpuBackend, threads: int, x: np.ndarray, y: np.ndarray) -> tuple:
    kernel = compile_saxpy(backend, len(x), threads)
    args = (2.0, x, y)
    lo, med = per_call_us(lambda: kernel.launch(args, ()), 5, repeats=9)
    return lo / 1e3, med / 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    threads = parser.parse_args().threads
    backend = CpuBackend(threads)
    print(f"threads: {threads}, native pool: {backend.native}, grain: {backend.grain}")

    tiny = compile_saxpy(backend, 16, threads)
    args = (2.0, np.ones(16, np.float32), np.zeros(16, np.float32))
    lo, med = per_call_us(lambda: tiny.launch(args, ()), 20000)
    print(f"cached tiny range_for launch (16 iterations, 3 args): {lo:.2f} us min, {med:.2f} med")
    for native in (True, False) if backend.native else (False,):
        name = "native" if native else "Python"
        print(f"fork-join over the {name} pool: {fork_join_us(native, threads):.2f} us (min)")

    n = 10_000_000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    for t in sorted({1, threads}):
        lo, med = saxpy_ms(backend, t, x, y)
        print(f"saxpy 10M f32, tistudio, {t} thread(s): {lo:.2f} ms min, {med:.2f} ms median")
    tmp = np.empty_like(x)

    def numpy_saxpy() -> None:
        np.multiply(x, np.float32(2.0), out=tmp)
        np.add(tmp, y, out=y)

    lo, med = per_call_us(numpy_saxpy, 5, repeats=9)
    print(f"saxpy 10M f32, numpy:                 {lo / 1e3:.2f} ms min, {med / 1e3:.2f} ms median")
    backend.close()


if __name__ == "__main__":
    main()
