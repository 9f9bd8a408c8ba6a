"""Tiered compilation (backends/llvm/tiering.py): quick code first, optimised code after it."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import tistudio as ti
from tests.backends.llvm.helpers import SAXPY, compile_text, kernel_text, ndarray, scalar
from tistudio.backends.llvm import CpuBackend, unlocked
from tistudio.backends.llvm.backend import default_backend
from tistudio.backends.llvm.jit import QUICK_SUFFIX
from tistudio.backends.llvm.launcher import estimated_work
from tistudio.backends.llvm.tiering import QUICK_WORK_LIMIT
from tistudio.ir import parse_ir

ROOT = Path(__file__).resolve().parents[3]

PARAMS = [scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)]


def _launch(ex, a: float) -> np.ndarray:
    x = np.arange(100000, dtype=np.float32)
    y = np.ones(100000, dtype=np.float32)
    ex.launch([a, x, y], [])
    return y


def test_a_kernel_runs_quick_code_then_moves_to_the_optimised_code(tiered_backend) -> None:
    ex = compile_text(tiered_backend, SAXPY, params=PARAMS)
    first = ex._state.run
    want = 2.0 * np.arange(100000, dtype=np.float32) + 1
    np.testing.assert_array_equal(_launch(ex, 2.0), want)  # on whichever code is current
    optimised = ex.optimised.wait()
    assert optimised is ex.compiled and ex._state.run is not first  # swapped
    assert callable(ex._first.optimized)  # the quick tier's IR is printed only when asked for
    assert f"task0_range_for{QUICK_SUFFIX}" in ex._first.llvm_ir_optimized
    assert QUICK_SUFFIX not in optimised.llvm_ir_optimized
    assert re.search(r"<(8|16) x float>", optimised.llvm_ir_optimized)  # vectorised
    assert "x float>" not in ex._first.llvm_ir_optimized  # the quick tier does not vectorise
    np.testing.assert_array_equal(_launch(ex, 2.0), want)
    assert set(ex.stage_ms) >= {"llvm_quick_optimise", "quick_machine_code"}


def test_many_kernels_queued_at_once_all_arrive(tiered_backend) -> None:
    kernels = [compile_text(tiered_backend, SAXPY, params=PARAMS) for _ in range(6)]
    for k, ex in enumerate(kernels):
        np.testing.assert_array_equal(_launch(ex, k), k * np.arange(100000, dtype=np.float32) + 1)
    tiered_backend.wait_for_optimised()
    assert all(ex.optimised.ready for ex in kernels)


def _loops_module(count: int) -> str:
    """LLVM IR of `count` functions with a vectorisable loop each: ~8 ms of O3 apiece."""
    return "\n".join(
        f"""define void @loop{k}(float* noalias %x, float* noalias %y, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  %px = getelementptr float, float* %x, i64 %i
  %py = getelementptr float, float* %y, i64 %i
  %a = load float, float* %px
  %b = load float, float* %py
  %c = fmul fast float %a, {k + 1}.0
  %d = fadd fast float %c, %b
  store float %d, float* %py
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}}"""
        for k in range(count)
    )


TINY = "define i32 @tiny(i32 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}"


def test_the_optimisers_long_calls_do_not_hold_up_a_quick_compile(tiered_backend) -> None:
    """While the optimiser runs LLVM's O3 pipeline or code generator on one kernel, the user's
    thread compiles its next kernel's quick code at once: those two calls skip llvmlite's
    global lock (unlocked.py). Holding it, they made the quick compile wait for the rest of the
    call (12-15 ms of a second kernel's ~45 ms first call in a fresh process, as
    `benchmarks/cases/compile_next.py` measures; here only the order of events is checked).

    llvmlite announces every taking of its lock (`register_lock_callback`): no taking may
    come from inside the optimiser's long calls, and the quick compile must take it while the
    optimiser is inside one (`CALL_LOCK` held)."""
    default_backend().wait_for_optimised()  # no other optimiser inside a long call
    optimiser = tiered_backend.optimiser
    taken: list[tuple[int, bool, str | None]] = []  # (thread, CALL_LOCK held, long call)

    def on_take() -> None:
        names = {f.f_code for f in _frames(sys._getframe(1))}
        inside = next((c.co_name for c in LONG_CALLS if c in names), None)
        taken.append((threading.get_ident(), unlocked.CALL_LOCK.locked(), inside))

    def on_release() -> None:
        pass

    count = 60  # ~0.5 s of O3 and as much code generation on an idle machine
    functions = [f"loop{k}" for k in range(count)]
    llvm.ffi.register_lock_callback(on_take, on_release)
    try:
        optimised = optimiser.submit(_loops_module(count), functions, 3)
        deadline = time.monotonic() + 600  # generous: a hung optimiser is all it catches
        while not unlocked.CALL_LOCK.locked():  # wait until the optimiser is inside a long call
            assert not optimised.ready and time.monotonic() < deadline
            time.sleep(0.001)
        quick = tiered_backend.jit.compile_quick(TINY, ["tiny"])
        result = optimised.wait()
    finally:
        llvm.ffi.unregister_lock_callback(on_take, on_release)
    assert len(quick.addresses) == 1 and all(result.addresses)
    assert {"llvm_optimise", "machine_code"} <= set(result.stage_ms)
    worker = optimiser._thread.ident
    within = [(call, held) for thread, held, call in taken if thread == worker and call]
    # emit_object takes llvmlite's lock for its output buffers, after the long call
    assert all(call == "emit_object" and not held for call, held in within), within
    mine = threading.get_ident()
    assert any(held for thread, held, _ in taken if thread == mine), "never beside a long call"


# the optimiser's two long calls (unlocked.py): llvmlite's lock is never taken inside them
LONG_CALLS = (unlocked.run_module_passes.__code__, unlocked.emit_object.__code__)


def _frames(frame):
    while frame is not None:
        yield frame
        frame = frame.f_back


def test_tiering_off_compiles_optimised_code_before_the_first_launch() -> None:
    backend = CpuBackend(num_threads=2, tiering="optimised")
    ex = compile_text(backend, SAXPY, params=PARAMS)
    assert ex.optimised is None and "x float>" in ex.llvm_ir_optimized
    assert "llvm_optimise" in ex.stage_ms
    backend.close()


def test_quick_only_code_has_the_kernels_own_names(backend) -> None:
    """`TISTUDIO_TIERED=quick` (and opt_level 0): the quick code is all there is, under the
    names the disk cache's spec lists."""
    quick = CpuBackend(num_threads=2, tiering="quick")
    ex = compile_text(quick, SAXPY, params=PARAMS)
    assert ex.optimised is None and QUICK_SUFFIX not in ex.llvm_ir_optimized
    np.testing.assert_array_equal(_launch(ex, 3.0), 3 * np.arange(100000, dtype=np.float32) + 1)
    quick.close()


def _stages_of_a_light_kernel(**init) -> dict[str, float]:  # noqa: ANN003
    ti.init(arch=ti.cpu, offline_cache=False, **init)
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill(a: ti.f32):
        for i in y:
            y[i] = a * i

    fill(2.0)
    assert y.to_numpy()[3] == 6.0
    stages = fill.instances()[0].result.executable.stage_ms
    ti.reset()
    return stages


def test_ti_init_chooses_the_tier(monkeypatch) -> None:  # noqa: ANN001
    """`ti.init(tiering=...)` decides, and without it `TISTUDIO_TIERED` as `ti.init` reads it
    (not when the shared back end was made): a light kernel's code is quick or O3 by it."""
    monkeypatch.delenv("TISTUDIO_TIERED", raising=False)
    assert "llvm_quick_optimise" in _stages_of_a_light_kernel(tiering="quick")
    optimised = _stages_of_a_light_kernel(tiering="optimised")
    assert "llvm_optimise" in optimised and "llvm_quick_optimise" not in optimised
    assert "llvm_quick_optimise" in _stages_of_a_light_kernel()  # tiered: quick code first
    monkeypatch.setenv("TISTUDIO_TIERED", "0")
    assert "llvm_quick_optimise" not in _stages_of_a_light_kernel()
    assert "llvm_quick_optimise" in _stages_of_a_light_kernel(tiering="tiered")
    with pytest.raises(ValueError, match="tiering='fast': use one of 'tiered', 'optimised'"):
        ti.init(arch=ti.cpu, tiering="fast")


EXIT_SCRIPT = """
import tistudio as ti

ti.init(arch=ti.cpu, offline_cache=False)
x = ti.field(ti.f32, shape=4096)


def make(k):
    @ti.kernel
    def step(a: ti.f32):
        for i in x:
            x[i] = ti.sin(x[i] * a + k) + ti.exp(-x[i] * x[i])

    return step


for k in range(8):
    make(k)(1.5)
print("done", float(x.to_numpy().sum()) != 0.0)
"""


def test_the_process_exits_cleanly_while_the_optimiser_is_busy(tmp_path: Path) -> None:
    """Eight kernels leave eight optimised compiles queued when the script ends: the exit waits
    for them (LLVM torn down under a running compile would crash the process)."""
    script = tmp_path / "kernels.py"
    script.write_text(textwrap.dedent(EXIT_SCRIPT))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TISTUDIO_TIERED": "1"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done True"
    assert "Traceback" not in done.stderr and "optimised compile failed" not in done.stderr


FORK_SCRIPT = """
import multiprocessing
import numpy as np
import tistudio as ti

ti.init(arch=ti.cpu, offline_cache=False)
x = ti.field(ti.f32, shape=4096)


@ti.kernel
def fill(a: ti.f32):
    for i in x:
        x[i] = a * i


def child(queue):
    fill(3.0)  # compiled in the parent; its optimised code may have been under way at the fork

    @ti.kernel
    def twice():
        for i in x:
            x[i] = 2 * x[i]

    twice()
    executable = twice.instances()[0].result.executable
    executable.optimised.wait()  # the child's own optimiser thread makes it
    queue.put(float(x.to_numpy()[10]))


fill(1.0)
queue = multiprocessing.get_context("fork").Queue()
process = multiprocessing.get_context("fork").Process(target=child, args=(queue,))
process.start()
print(queue.get(timeout=60))
process.join(60)
print(process.exitcode)
"""


def test_a_forked_child_gets_optimised_code_too(tmp_path: Path) -> None:
    script = tmp_path / "fork.py"
    script.write_text(FORK_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TISTUDIO_TIERED": "1"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["60.0", "0"]


def test_a_heavy_launch_is_compiled_at_o3_before_it_runs(tiered_backend) -> None:
    """Quick code is 3-30x slower: a launch estimated above `QUICK_WORK_LIMIT` iterations, or
    one whose range is known only at launch, gets the optimised code from its first launch."""
    heavy = SAXPY.replace("range_for(0, 100000)", f"range_for(0, {2 * QUICK_WORK_LIMIT})")
    params = [scalar("a", "f32"), ndarray("x", "f32", 1), ndarray("y", "f32", 1)]
    ex = compile_text(tiered_backend, heavy, params=params)
    assert ex.optimised is None and re.search(r"<(8|16) x float>", ex.llvm_ir_optimized)
    assert "llvm_optimise" in ex.stage_ms  # O3 ran in the compile, before any launch
    x = np.arange(2 * QUICK_WORK_LIMIT, dtype=np.float32)
    y = np.ones_like(x)
    ex.launch([2.0, x, y], [])  # the O3 code runs: every element of the heavy range is written
    np.testing.assert_array_equal(y, 2 * x + 1)
    light = compile_text(tiered_backend, SAXPY, params=params)
    assert light.optimised is not None
    assert estimated_work(parse_ir(kernel_text(heavy))) == 2 * QUICK_WORK_LIMIT
    dynamic = "$0 = offloaded range_for(tmp(offset=0B), tmp(offset=4B)) body {\n}"
    assert estimated_work(parse_ir(kernel_text(dynamic))) == math.inf
