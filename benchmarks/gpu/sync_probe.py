"""Where a launch followed by `ti.sync()` spends its time on the GPU (bench.py's launch case).

    python benchmarks/gpu/sync_probe.py      # one JSON row per step, microseconds

bench.py's launch case (1024 elements) costs a small kernel's launch and a sync. This probe
times the steps of that path one at a time, 300 times each after warm-up, and prints the median
and the best: recording the launch (`bump()`, nothing submitted), `flush` (end the pass, finish
the encoder, submit), the wait until the queue is idle by spinning on wgpu-native's
non-blocking poll (`GpuDevice.idle`) and by its blocking poll, an empty submission, and the
whole launch + sync.
"""

from __future__ import annotations

import json
import statistics
import time

import tistudio as ti

REPS = 300


def timed(step, before=None) -> list[float]:
    """Microseconds of `step()` per repetition, `before()` run untimed ahead of each."""
    out = []
    for _ in range(REPS):
        if before is not None:
            before()
        start = time.perf_counter()
        step()
        out.append((time.perf_counter() - start) * 1e6)
    return out


def main() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    adapter = ti.lang.impl.current_adapter()
    gpu = ti.lang.impl.get_program().gpu.device
    small = ti.field(ti.i32, shape=1024)

    @ti.kernel
    def bump():
        for i in small:
            small[i] += 1

    for _ in range(50):
        bump()
        ti.sync()

    def spin():
        while not gpu.idle():
            pass

    def empty_submit():
        encoder = gpu.device.create_command_encoder()
        encoder.begin_compute_pass().end()
        gpu.queue.submit([encoder.finish()])

    steps = {
        "record the launch (bump(), not submitted)": (bump, ti.sync),
        "flush: end pass, finish, submit": (gpu.flush, bump),
        "wait: spin on the non-blocking poll": (spin, lambda: (bump(), gpu.flush())),
        "wait: wgpu-native's blocking poll": (
            gpu.device._poll_wait,
            lambda: (bump(), gpu.flush()),
        ),
        "empty submission (encoder, empty pass, submit)": (empty_submit, ti.sync),
        "launch + ti.sync() (spinning)": (lambda: (bump(), ti.sync()), None),
    }
    for label, (step, before) in steps.items():
        ti.sync()
        times = timed(step, before)
        ti.sync()
        row = {"adapter": adapter, "probe": "sync", "step": label}
        row.update(median_us=round(statistics.median(times), 1), best_us=round(min(times), 1))
        print(json.dumps(row), flush=True)
    gpu.spin_s = 0.0
    times = timed(lambda: (bump(), ti.sync()))
    row = {"adapter": adapter, "probe": "sync", "step": "launch + ti.sync() (blocking)"}
    row.update(median_us=round(statistics.median(times), 1), best_us=round(min(times), 1))
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
