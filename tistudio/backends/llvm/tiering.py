"""Tiered compilation: a kernel runs first on code made in milliseconds, then on optimised code.

LLVM's O3 pipeline and code generator take ~35-40 ms for a 20-line kernel on these machines, most
of a further kernel's compile time; a first tier (`JitEngine.compile_quick`: a few cheap passes,
fast instruction selection) takes ~4 ms and runs the kernel's first launches. Its code is 3-30x
slower (no vectorisation, every value spilled: saxpy 9x, a sum 30x, Mandelbrot 3x), so only kernels
whose launch is light get it: `launcher.estimated_work` (iterations, inner loops included) at most
`QUICK_WORK_LIMIT`, where typical quick code loses about what O3 would cost. A heavier kernel,
or one whose range is known only at launch (ndarray shapes), is compiled at O3 before its first
launch, as without tiering. For the light ones, a background thread, the optimiser, runs the O3
compile in its own LLVM context (`OptimiserThreadState`) and hands the result to the executable,
which swaps its launch path between two launches. LLVM calls release the GIL, and the optimiser's
long ones skip llvmlite's global lock (`unlocked.py`), so the optimiser works while the user's
program runs Python or compiles its next kernel (on 2 cores, also while a kernel runs).

What waits for the optimised tier: the studio's LLVM IR and assembly, the disk cache (it stores
only optimised code, from the optimiser's thread), AOT export, and `wait_all` (at exit, so no
compile is cut off mid-call). Results of the two tiers are the same where the kernel's float
arithmetic is exact; under fast math (Taichi's default) a reduction the vectoriser reorders may
round differently in the last bits, as it may between Taichi's thread counts.

`CompileConfig.tiering` chooses, set by `ti.init(tiering=...)` or, without it, by
`TISTUDIO_TIERED` in the environment when `ti.init` runs: "optimised" (`TISTUDIO_TIERED=0`)
compiles every kernel at O3 before its first launch, as before; "quick" keeps kernels on the
first tier (tests run the same kernels on both tiers this way).
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
from collections.abc import Callable

import llvmlite.binding as llvm

from tistudio.backends.llvm.jit import CompiledModule, JitEngine, OptimiserThreadState

log = logging.getLogger("tistudio")

# Estimated iterations of a launch up to which its first launches run quick code: ~1 ns each at
# O3 and typically ~10 ns on the quick tier, so a launch at the limit loses about what O3 costs
# (~40 ms). The estimate counts a `while` as 256 trips, which is mostly pessimistic.
QUICK_WORK_LIMIT = 1 << 22


class OptimisedCode:
    """The optimised tier of one kernel, once the optimiser has made it: `wait` returns it."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._compiled: CompiledModule | None = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[CompiledModule], None]] = []
        self._finished = False
        self._lock = threading.Lock()

    def wait(self) -> CompiledModule:
        """The optimised code; raises what the optimiser raised if it failed."""
        self._done.wait()
        if self._error is not None:
            raise RuntimeError(f"the optimised compile failed: {self._error}") from self._error
        assert self._compiled is not None
        return self._compiled

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    def then(self, callback: Callable[[CompiledModule], None]) -> None:
        """Call `callback(compiled)` once the optimised code is there (now if it is), on the
        optimiser's thread or the caller's; never called if the compile failed. Callbacks run
        before `wait` returns."""
        with self._lock:
            if not self._finished:
                self._callbacks.append(callback)
                return
        if self._compiled is not None:
            _call_safely(callback, self._compiled)

    def _finish(self, compiled: CompiledModule | None, error: BaseException | None) -> None:
        with self._lock:
            self._compiled, self._error = compiled, error
            self._finished = True
            callbacks, self._callbacks = self._callbacks, []
        if compiled is not None:
            for callback in callbacks:
                _call_safely(callback, compiled)
        self._done.set()


def _call_safely(callback: Callable[[CompiledModule], None], compiled: CompiledModule) -> None:
    try:
        callback(compiled)
    except Exception:  # noqa: BLE001 — a failed swap or cache store must not kill the optimiser
        log.exception("[tistudio] after an optimised compile")


Job = tuple[str, list[str], int, OptimisedCode]  # module text, functions, opt level, result


class Optimiser:
    """One background thread compiling kernels at full optimisation, in submission order.

    A fork (multiprocessing, a notebook's `!` commands do not) copies the queue but not the
    thread: the parent waits for the thread's LLVM call in progress before forking (`_before_fork`),
    and the child starts its own thread and compiles again what was queued or under way."""

    def __init__(self, jit: JitEngine) -> None:
        self.jit = jit
        self._queue: collections.deque[Job] = collections.deque()
        self._current: Job | None = None
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._start()
        atexit.register(self.wait_all)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(
                before=self._before_fork,
                after_in_parent=self._release_after_fork,
                after_in_child=self._after_fork_in_child,
            )

    def submit(self, llvm_ir: str, functions: list[str], opt_level: int) -> OptimisedCode:
        """Queue the O`opt_level` compile of a module's text; its result arrives later."""
        code = OptimisedCode()
        with self._changed:
            self._queue.append((llvm_ir, list(functions), opt_level, code))
            self._changed.notify_all()
        return code

    def wait_all(self) -> None:
        """Return once every submitted compile has finished."""
        with self._changed:
            self._changed.wait_for(lambda: not self._queue and self._current is None)

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="tistudio-optimiser", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        state = OptimiserThreadState(llvm.create_context(), self.jit.object_target_machine(3))
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._queue))
                job = self._current = self._queue.popleft()
            text, functions, opt_level, code = job
            compiled, error = None, None
            try:
                compiled = self.jit.compile(text, functions, opt_level, thread_state=state)
            except Exception as e:  # noqa: BLE001 — reported to whoever waits for this code
                log.warning("[tistudio] optimised compile failed, quick code stays: %s", e)
                error = e
            code._finish(compiled, error)
            with self._changed:
                self._current = None
                self._changed.notify_all()

    def _before_fork(self) -> None:
        """Hold the engine's lock around a fork: a child forked while this thread held it
        (loading code) would wait for it forever. llvmlite's lock is taken after every
        optimiser's engine lock, once (`_hold_llvmlite_lock`)."""
        self.jit._lock.acquire()

    def _release_after_fork(self) -> None:
        self.jit._lock.release()

    def _after_fork_in_child(self) -> None:
        self._release_after_fork()
        self._changed = threading.Condition()
        if self._current is not None:
            self._queue.appendleft(self._current)
            self._current = None
        for *_, code in self._queue:
            code._lock = threading.Lock()  # the parent's thread may have held it
        self._start()


def _hold_llvmlite_lock() -> None:
    """Before a fork, after every optimiser's `_before_fork`: wait for the LLVM call in
    progress in any thread, so that no child starts inside one. Taken once and last: an
    optimiser's thread holds its engine's lock while it waits for llvmlite's (`JitEngine._load`),
    so a fork that took llvmlite's lock for one optimiser and then waited for the engine lock of
    another deadlocked (test_lifecycle's fork test, 1 run in 5 with several backends alive).
    (`unlocked.py` does the same for the calls that skip llvmlite's lock.)"""
    llvm.ffi.lib._lock.__enter__()


def _release_llvmlite_lock() -> None:
    llvm.ffi.lib._lock.__exit__(None, None, None)


if hasattr(os, "register_at_fork"):
    # registered at import, before any optimiser's handlers: Python runs the handlers `before`
    # a fork in the reverse order of registration, so this one runs after all of theirs
    os.register_at_fork(
        before=_hold_llvmlite_lock,
        after_in_parent=_release_llvmlite_lock,
        after_in_child=_release_llvmlite_lock,
    )


def compile_tiered(
    jit: JitEngine, optimiser: Optimiser, text: str, functions: list[str], opt_level: int
) -> tuple[CompiledModule, OptimisedCode]:
    """Quick code for the module `text` now, and its optimised code from the optimiser later."""
    quick = jit.compile_quick(text, functions)
    return quick, optimiser.submit(text, functions, opt_level)
