"""Which launches keep Python's GIL: only short kernels (`launcher.bounded_work` at most
`SHORT_WORK_LIMIT` iterations) that the pool never splits; every other launch lets it go, so
other Python threads run while the kernel does."""

from __future__ import annotations

import ctypes
import math
import threading
import time

import numpy as np

import tistudio as ti
from tests.backends.llvm.helpers import SAXPY, compile_text, kernel_text, ndarray, scalar
from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm.launcher import SHORT_WORK_LIMIT, bounded_work
from tistudio.ir import parse_ir
from tistudio.ir.config import CompileConfig

NESTED = """
$0 = offloaded serial body {
  <i32> $1 = const 0
  <i32> $2 = const 10
  $3 : for in range($1, $2) reversed=false serialize=false {
    <i32> $5 = const 0
  }
}
$6 = offloaded range_for(0, 30) body {
  <i32> $7 = const 0
  <i32> $8 = const 7
  $9 : for in range($7, $8) reversed=false serialize=false {
    <i32> $11 = const 0
  }
}
"""

SAXPY_PARAMS = [scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)]


def _keeps_gil(executable) -> bool:  # noqa: ANN001
    """Whether the executable's native launcher is called without letting the GIL go (its
    run is `partial(launcher, ctx)`, or `partial(_start_workers, pool, n, that)`)."""
    run = executable._state.run
    while not isinstance(run.func, ctypes._CFuncPtr):
        run = run.args[-1]
    return bool(run.func._flags_ & ctypes._FUNCFLAG_PYTHONAPI)


def test_bounded_work_counts_every_loop_and_is_infinite_for_unknown_trips() -> None:
    assert bounded_work(parse_ir(kernel_text(NESTED))) == 10 + 30 * 7
    dynamic = "$0 = offloaded range_for(tmp(offset=0B), tmp(offset=4B)) body {\n}"
    assert bounded_work(parse_ir(kernel_text(dynamic))) == math.inf
    inner_dynamic = NESTED.replace("<i32> $8 = const 7", "<i32> $8 = argload[0]")
    assert bounded_work(parse_ir(kernel_text(inner_dynamic))) == math.inf


def test_only_short_unsplit_launches_keep_the_gil() -> None:
    small = SAXPY.replace("range_for(0, 100000)", "range_for(0, 16)")
    large = SAXPY.replace("range_for(0, 100000)", f"range_for(0, {SHORT_WORK_LIMIT + 1})")
    x, y = np.ones(SHORT_WORK_LIMIT + 1, np.float32), np.zeros(SHORT_WORK_LIMIT + 1, np.float32)
    cpu, splitting = CpuBackend(num_threads=2), CpuBackend(num_threads=2, grain=1)
    try:
        short = compile_text(cpu, small, params=SAXPY_PARAMS)
        long = compile_text(cpu, large, params=SAXPY_PARAMS)
        split = compile_text(
            splitting, small, params=SAXPY_PARAMS, config=CompileConfig(cpu_max_num_threads=2)
        )
        assert short.spec.short and _keeps_gil(short)
        assert not long.spec.short and not _keeps_gil(long)
        # a launch that forks over the pool's workers never keeps the GIL: a worker started
        # just before it may still need the GIL to reach its native loop
        assert split.spec.short and not _keeps_gil(split)
        for ex in (short, long, split):
            y[:] = 0
            ex.launch([2.0, x, y], [])
            n = 16 if ex is not long else SHORT_WORK_LIMIT + 1
            assert y[:n].tolist() == [2.0] * n and not y[n:].any()
    finally:
        cpu.close()
        splitting.close()


def test_a_waiting_kernel_lets_another_python_thread_run() -> None:
    """The kernel says it started (flag[1]) and polls flag[0], which another Python thread sets
    once it sees the kernel started: the kernel sees it only if its launch let the GIL go (with
    the GIL kept, it gives up after `patience` polls)."""
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def wait_for(flag: ti.types.ndarray(dtype=ti.i32, ndim=1), patience: ti.i32) -> ti.i32:
        ti.atomic_add(flag[1], 1)
        seen = 0
        polls = 0
        while seen == 0 and polls < patience:
            seen = ti.atomic_add(flag[0], 0)
            polls += 1
        return seen

    flag = np.zeros(2, np.int32)
    assert wait_for(flag, 10) == 0  # compiled; nobody sets the flag
    flag[1] = 0

    def set_flag_once_the_kernel_runs() -> None:
        while flag[1] == 0:
            time.sleep(1e-4)
        flag[0] = 1

    setter = threading.Thread(target=set_flag_once_the_kernel_runs)
    setter.start()
    assert wait_for(flag, 200_000_000) == 1
    setter.join()
