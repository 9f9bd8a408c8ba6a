"""Start the CPU back end in the background during `ti.init`, as Taichi's `ti.init` loads its
runtime: importing the passes, llvmlite and the LLVM back end, creating the JIT engine, loading
the thread pool's runtime and starting its workers take 50-70 ms that would otherwise land on the
first kernel. The work runs on a daemon thread while the user's program declares fields and
kernels (LLVM calls release the GIL); the first compile joins it before touching the back end, so
the two threads never initialise the back end at the same time (both may import a pass module at
once, which Python's per-module import locks serialise). Once the process's back end is up, later
`ti.init()` calls start nothing.
"""

from __future__ import annotations

import importlib
import inspect
import threading
import time
from collections.abc import Sequence
from typing import Any

_lock = threading.Lock()
_thread: threading.Thread | None = None
_done = False
_waited = 0.0  # seconds callers of `wait` spent blocked, in all


def start(offline_cache: Any = None, threads: int = 1, preload: Sequence[str] = ()) -> None:
    """Begin warming the process's CPU back end, unless it is warm or warming already; with
    the program's `offline_cache`, the pool's runtime is looked up there too. The pool's
    worker threads for `threads` (the program's `cpu_max_num_threads`) start here too: a
    thread's start is ~1 ms here, and several landed on the first parallel launch. `preload`
    names modules of higher layers to import on the way (`lang` passes `tistudio.lang.ops`,
    which the first kernel using `ti.max` & co. imports): names, so runtime imports no `lang`."""
    global _thread
    with _lock:
        if _done or _thread is not None:
            return
        _thread = threading.Thread(
            target=_warm,
            args=(offline_cache, threads, tuple(preload)),
            name="tistudio-warm-up",
            daemon=True,
        )
        _thread.start()


def wait() -> None:
    """Return once a warm-up started by `start` has finished (at once if there is none)."""
    global _waited
    thread = _thread
    if thread is not None and thread is not threading.current_thread() and thread.is_alive():
        start = time.perf_counter()
        thread.join()
        _waited += time.perf_counter() - start


def waited() -> float:
    """Seconds that callers of `wait` have spent blocked so far: a kernel's compile subtracts
    its share, so that the cache view's compile time is the compile's and the back end's start
    shows on its own (a cell run straight after `ti.init` waits for it)."""
    return _waited


def _warm(offline_cache: Any, threads: int, preload: tuple[str, ...]) -> None:
    global _done
    try:
        for name in preload:
            importlib.import_module(name)
        import tistudio.passes.pipeline  # noqa: F401 — the passes, imported by the first compile

        # reading a kernel's source tokenizes it; tokenize compiles its regexes on first use
        inspect.getsourcelines(_warm)
        from tistudio.backends.llvm.backend import default_backend
        from tistudio.runtime.offline_cache import RuntimeSlot

        backend = default_backend()
        if offline_cache is not None and backend.runtime_cache is None:
            backend.runtime_cache = RuntimeSlot(offline_cache, backend)
        pool = backend.pool  # creates the JIT engine and loads the pool's runtime
        if hasattr(pool, "ensure_workers"):  # the native pool's threads, asleep until a launch
            pool.ensure_workers(threads - 1)
        backend.optimiser  # noqa: B018 — the thread that makes kernels' optimised code
        _done = True
    except Exception:  # noqa: BLE001 — the first compile does this again and reports it
        pass
