"""The portable persistent thread pool (pure Python), for parallel range-fors.

On Linux the back end uses `native_pool.NativeThreadPool`, which has the same interface and
chunking but a native core (~1 us per fork-join instead of ~10); this pool is the fallback
where Linux futexes are missing, and `CpuBackend(native=False)` selects it.

`parallel_for(fn, ctx, begin, end)` cuts `[begin, end)` into at most one chunk per thread, runs
chunk 0 on the calling thread and the others on the workers, and returns when all are done.
The task functions are ctypes `CFUNCTYPE`s, which release the GIL, so chunks run truly in
parallel. Loops shorter than two grains run inline on the caller with no pool round trip.

Workers are started once, on the first parallel launch, and shared by every kernel: two pools
on the same cores starve each other. Each worker sleeps on its own lock and signals completion
on another; that is two futex round trips per worker and launch, without the allocation and
bookkeeping of `queue.Queue` or a `ThreadPoolExecutor`. One launch uses the pool at a time; a
launch from another Python thread that finds the pool busy runs its loop inline instead of
waiting, which is correct (chunks are independent) and keeps both threads working.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

RangeTask = Callable[[int, int, int], None]  # fn(ctx, lo, hi)

# Fewest iterations per chunk: a loop shorter than two grains runs inline. A fork-join through
# this pool costs ~10-16 us (measured on 2 cores), what ~30k iterations of a light vectorised
# loop body take on one core; the native pool's costs ~1 us (`native_pool.NATIVE_GRAIN`).
MIN_GRAIN = 32768


class _Worker:
    """One worker thread and its two handshake locks (held = not signalled)."""

    def __init__(self, index: int) -> None:
        self.wake = threading.Lock()
        self.done = threading.Lock()
        self.wake.acquire()
        self.done.acquire()
        self.job: tuple[RangeTask, int, int, int] | None = None
        self.thread = threading.Thread(target=self._run, name=f"tistudio-cpu-{index}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        wake, done = self.wake, self.done
        while True:
            wake.acquire()
            job = self.job
            if job is None:
                return
            try:
                fn, ctx, lo, hi = job
                fn(ctx, lo, hi)
            finally:
                done.release()

    def stop(self) -> None:
        self.job = None
        self.wake.release()
        self.thread.join(timeout=1.0)


class ThreadPool:
    """Fork-join over chunks of a range; workers start lazily and grow to the threads asked."""

    def __init__(self, num_threads: int, grain: int = MIN_GRAIN) -> None:
        self.num_threads = max(1, num_threads)
        self.grain = max(1, grain)
        self._workers: list[_Worker] = []
        self._busy = threading.Lock()
        self._pid = os.getpid()

    def parallel_for(
        self,
        fn: RangeTask,
        ctx: int,
        begin: int,
        end: int,
        threads: int | None = None,
        grain: int | None = None,
    ) -> None:
        """Run `fn(ctx, lo, hi)` over chunks of at least `grain` (default: the pool's)
        iterations covering `[begin, end)`; return when all are done."""
        n = end - begin
        if n <= 0:
            return
        chunks = min(threads or self.num_threads, n // max(1, grain or self.grain))
        if chunks <= 1 or not self._busy.acquire(blocking=False):
            fn(ctx, begin, end)
            return
        try:
            self._fork_join(fn, ctx, begin, end, chunks)
        finally:
            self._busy.release()

    def _fork_join(self, fn: RangeTask, ctx: int, begin: int, end: int, chunks: int) -> None:
        workers = self._workers_for(chunks - 1)
        n = end - begin
        # chunk c is [begin + c*n//chunks, begin + (c+1)*n//chunks): balanced, never empty
        for c, worker in enumerate(workers, start=1):
            worker.job = (fn, ctx, begin + c * n // chunks, begin + (c + 1) * n // chunks)
            worker.wake.release()
        try:
            fn(ctx, begin, begin + n // chunks)
        finally:
            for worker in workers:
                worker.done.acquire()

    def ensure_workers(self, count: int) -> None:
        """Start workers until there are `count` (the pool also grows on demand)."""
        with self._busy:
            self._workers_for(count)

    def _workers_for(self, count: int) -> list[_Worker]:
        if self._pid != os.getpid():  # a forked child inherits no threads: start afresh
            self._workers, self._pid = [], os.getpid()
        while len(self._workers) < count:
            self._workers.append(_Worker(len(self._workers)))
        return self._workers[:count]

    @property
    def started_workers(self) -> int:
        return len(self._workers)

    def close(self) -> None:
        """Stop the workers (a later parallel launch starts new ones)."""
        with self._busy:
            workers, self._workers = self._workers, []
            for worker in workers:
                worker.stop()
