"""Autodiff timings, tistudio against Taichi 1.7.4 on the CPU: `python -m benchmarks.autodiff`.

For two kernels (a reduction `loss += sin(x)*x` over 2**20 elements, and 2**16 elements each
pushed through a 16-step serial loop carrying a local, which needs autodiff stacks), prints the
first `kernel.grad()` call (compile + run) and the median of later calls, plus a whole Tape
iteration (clear gradients, forward, adjoint).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np


def _median_ms(fn, repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure(ti) -> dict[str, float]:
    ti.init(arch=ti.cpu)
    n, m = 1 << 20, 1 << 16
    x = ti.field(ti.f32, shape=n, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    u = ti.field(ti.f32, shape=m, needs_grad=True)
    v = ti.field(ti.f32, shape=m, needs_grad=True)

    @ti.kernel
    def reduce():
        for i in x:
            loss[None] += ti.sin(x[i]) * x[i]

    @ti.kernel
    def carried():
        for i in u:
            w = u[i]
            for _ in range(16):
                w = ti.sin(w) * 0.9 + w * 0.2
            v[i] = w

    x.from_numpy(np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32))
    u.from_numpy(np.random.default_rng(1).uniform(-1, 1, m).astype(np.float32))
    out = {}
    for name, kernel, seed in (("reduce", reduce, loss), ("carried", carried, v)):
        kernel()
        seed.grad.fill(1.0)
        start = time.perf_counter()
        kernel.grad()
        ti.sync()
        out[f"{name} first grad() ms"] = (time.perf_counter() - start) * 1e3
        out[f"{name} grad() ms"] = _median_ms(lambda k=kernel: (k.grad(), ti.sync()))

    def iteration() -> None:
        with ti.ad.Tape(loss=loss):
            reduce()
        ti.sync()

    iteration()
    out["Tape iteration (reduce) ms"] = _median_ms(iteration)
    ti.reset()
    return out


def main() -> None:
    import taichi

    import tistudio

    results = {"tistudio": measure(tistudio), "taichi": measure(taichi)}
    width = max(len(k) for k in results["tistudio"])
    print(f"{'':{width}}  {'tistudio':>10}  {'taichi':>10}")
    for key in results["tistudio"]:
        a, b = results["tistudio"][key], results["taichi"][key]
        print(f"{key:{width}}  {a:10.2f}  {b:10.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
