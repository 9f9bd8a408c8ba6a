"""The persistent thread pool with a native core (Linux): Python threads that never come back.

Same interface and chunking as `thread_pool.ThreadPool`, but each worker thread calls the
native `tistudio_pool_worker` loop once (through ctypes, so without the GIL) and stays in it:
a launch wakes workers with an atomic generation counter instead of a lock round trip through
the interpreter, which takes launch overhead from several microseconds to about one. Kernel
launchers (`codegen.build_launcher`) call `tistudio_pool_run` directly from native code; its
address sits in the state block, so the pool is reachable from any kernel module.

Workers are added and stopped only while holding the pool's `busy` flag, so a launch never sees
the worker count change under it. A forked child has no worker threads: the pool forgets its
workers after `fork` and starts new ones on demand.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
import weakref
from typing import Any

from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.runtime_object import shipped_object

# Fewest iterations per chunk: a fork-join here costs ~0.7-1 us (measured on 2 cores, launches
# back to back), what ~4k iterations of a light vectorised loop body (saxpy) take on one core.
NATIVE_GRAIN = 4096

_WORKER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32)
_RUN = ctypes.CFUNCTYPE(
    None,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
)
_TRY_LOCK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)
_STATE_CALL = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Native:
    """The compiled runtime functions and the state block they share."""

    def __init__(self, engine: JitEngine, object_cache: Any = None) -> None:
        compiled = _compile_runtime(engine, object_cache)
        self.compiled = compiled  # keeps the engine, and with it the code, alive
        address = dict(zip(rt.RUNTIME_FUNCTIONS, compiled.addresses))
        self.worker = _WORKER(address[rt.WORKER])
        self.run = _RUN(address[rt.RUN])
        self.try_lock = _TRY_LOCK(address[rt.TRY_LOCK])
        self.unlock = _STATE_CALL(address[rt.UNLOCK])
        self.stop = _STATE_CALL(address[rt.STOP])
        self.state = (ctypes.c_int64 * (rt.STATE_BYTES // 8))()
        self.address = ctypes.addressof(self.state)
        ctypes.c_int64.from_buffer(self.state, rt.RUN_ADDRESS).value = address[rt.RUN]

    def i32(self, offset: int) -> ctypes.c_int32:
        return ctypes.c_int32.from_buffer(self.state, offset)

    def lock(self) -> None:
        while not self.try_lock(self.state):
            time.sleep(50e-6)  # another thread's launch holds the pool: rare, wait politely


class NativeThreadPool:
    """Fork-join over chunks of a range on persistent workers that run native code."""

    def __init__(
        self,
        num_threads: int,
        engine: JitEngine,
        grain: int = NATIVE_GRAIN,
        object_cache: Any = None,
    ) -> None:
        """`object_cache` (optional) has `load() -> bytes | None` and `store(bytes)` for the
        runtime's object code (`runtime.offline_cache.RuntimeSlot`)."""
        self.num_threads = max(1, num_threads)
        self.grain = max(1, grain)
        self._native = _Native(engine, object_cache)
        self._threads: list[threading.Thread] = []
        self._grow = threading.Lock()
        self.state_address = self._native.address
        weakref.finalize(self, _stop_workers, self._native, self._threads)
        _forget_workers_after_fork(self)

    @property
    def started_workers(self) -> int:
        return len(self._threads)

    def parallel_for(
        self,
        fn: Any,
        ctx: int,
        begin: int,
        end: int,
        threads: int | None = None,
        grain: int | None = None,
    ) -> None:
        """Run `fn(ctx, lo, hi)` over chunks of at least `grain` (default: the pool's)
        iterations covering `[begin, end)`; `fn` is a ctypes function pointer (or its
        address). Returns when all chunks are done."""
        threads = threads or self.num_threads
        grain = max(1, grain or self.grain)
        if end - begin >= 2 * grain:
            self.ensure_workers(threads - 1)
        address = fn if isinstance(fn, int) else ctypes.cast(fn, ctypes.c_void_p).value
        self._native.run(self._native.state, address, ctx, begin, end, threads, grain)

    def ensure_workers(self, count: int) -> None:
        """Start workers until there are `count` (at most `runtime_ir.MAX_WORKERS`)."""
        count = min(count, rt.MAX_WORKERS)
        if len(self._threads) >= count:
            return
        native = self._native
        with self._grow:
            native.lock()
            try:
                while len(self._threads) < count:
                    self._threads.append(_start_worker(native, len(self._threads)))
                    native.i32(rt.NUM_WORKERS).value = len(self._threads)
            finally:
                native.unlock(native.state)

    def close(self) -> None:
        """Stop the workers (a later parallel launch starts new ones)."""
        with self._grow:
            _stop_workers(self._native, self._threads)

    def _after_fork_in_child(self) -> None:
        self._threads.clear()
        self._grow = threading.Lock()
        for offset in (rt.NUM_WORKERS, rt.BUSY, rt.PENDING, rt.SLEEPERS, rt.CALLER_SLEEPING):
            self._native.i32(offset).value = 0


def _compile_runtime(engine: JitEngine, object_cache: Any) -> Any:
    """The runtime's code: the object shipped in the package (`runtime_object.py`), else the
    disk cache's copy, else compiled here (and stored in the cache)."""
    functions = list(rt.RUNTIME_FUNCTIONS)
    for found in (shipped_object(), object_cache.load() if object_cache is not None else None):
        if found is not None:
            try:
                return engine.load_object(found, functions)
            except RuntimeError:
                pass  # not this runtime's code after all: try the next, or compile it
    compiled = engine.compile(rt.build_runtime_module(), functions, 3)
    if object_cache is not None:
        object_cache.store(compiled.object_code)
    return compiled


def _start_worker(native: _Native, index: int) -> threading.Thread:
    ready = native.i32(rt.JOBS + rt.JOB_BYTES * index + rt.JOB_READY)
    ready.value = 0
    # pass the state buffer itself, so the call keeps it alive as long as the thread runs
    thread = threading.Thread(
        target=native.worker, args=(native.state, index), name=f"tistudio-cpu-{index}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30.0
    while not ready.value:  # the worker has read the generation it starts from
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"CPU worker thread {index} did not start")
        time.sleep(10e-6)
    return thread


def _stop_workers(native: _Native, threads: list[threading.Thread]) -> None:
    if not threads:
        return
    native.lock()
    try:
        native.stop(native.state)
        for thread in threads:
            thread.join(timeout=5.0)
        threads.clear()
        native.i32(rt.NUM_WORKERS).value = 0
        native.i32(rt.SHUTDOWN).value = 0
    finally:
        native.unlock(native.state)


def _forget_workers_after_fork(pool: NativeThreadPool) -> None:
    ref = weakref.ref(pool)

    def after_fork() -> None:
        alive = ref()
        if alive is not None:
            alive._after_fork_in_child()

    os.register_at_fork(after_in_child=after_fork)
