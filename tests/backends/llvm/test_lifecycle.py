"""The pool's life: it survives `fork` (the child gets no worker threads and must not wait for
them) and lets the interpreter exit while its workers sleep in native code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray
from tistudio.backends.llvm import CpuBackend
from tistudio.ir.config import CompileConfig

ROOT = Path(__file__).resolve().parents[3]

COUNT = """
$0 = offloaded range_for(0, 1000) body {
  <i32> $1 = loop $0 index 0
  <*i32> $2 = external_ptr arg 0, [$1]
  <i32> $3 = const 1
  <i32> $4 = atomic add($2, $3)
}
"""


def _wait(pid: int, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return -9


@pytest.mark.parametrize("native", [True, False])
def test_a_forked_child_runs_parallel_kernels(native):
    cpu = CpuBackend(num_threads=2, grain=1, native=native)
    ex = compile_text(
        cpu, COUNT, params=[ndarray("c", "i32", 1)], config=CompileConfig(cpu_max_num_threads=2)
    )
    counts = np.zeros(1000, np.int32)
    ex.launch([counts], [])  # the parent's workers are running now
    assert cpu.pool.started_workers == 1
    pid = os.fork()
    if pid == 0:  # the child: no worker threads were inherited
        try:
            ex.launch([counts], [])
            ok = bool((counts == 2).all()) and cpu.pool.started_workers == 1
        finally:
            os._exit(0 if ok else 3)
    assert _wait(pid, 20) == 0
    ex.launch([counts], [])  # the parent's pool still works
    assert (counts == 2).all()
    cpu.close()


def test_the_interpreter_exits_while_workers_wait():
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        from tests.backends.llvm.helpers import compile_text, ndarray
        from tistudio.backends.llvm import CpuBackend
        from tistudio.ir.config import CompileConfig
        cpu = CpuBackend(num_threads=3, grain=1)
        ex = compile_text(cpu, {COUNT!r}, params=[ndarray("c", "i32", 1)],
                          config=CompileConfig(cpu_max_num_threads=3))
        counts = np.zeros(1000, np.int32)
        ex.launch([counts], [])
        assert (counts == 1).all() and cpu.pool.started_workers == 2
        print("done")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"


def test_a_fork_waits_for_an_optimiser_loading_code_while_another_optimiser_exists():
    """The first of two optimisers' threads holds its engine's lock (as when it loads code)
    and then needs llvmlite's lock: a fork must wait for it, not take llvmlite's lock first
    for the second optimiser and then wait for the first one's engine lock (a deadlock)."""
    script = textwrap.dedent(
        f"""
        import os, sys, threading, time
        sys.path.insert(0, {str(ROOT)!r})
        import llvmlite.binding as llvm
        from tistudio.backends.llvm.jit import JitEngine
        from tistudio.backends.llvm.tiering import Optimiser
        first, second = Optimiser(JitEngine()), Optimiser(JitEngine())
        holding = threading.Event()

        def load_code():
            with first.jit._lock:
                holding.set()
                time.sleep(0.5)  # the fork starts meanwhile
                llvm.parse_assembly("")  # an LLVM call: takes llvmlite's lock

        thread = threading.Thread(target=load_code)
        thread.start()
        holding.wait()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        thread.join()
        print("forked")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "forked"
