"""Rate limiting for live widget updates.

Kernels can run thousands of times a second; a widget needs at most a few dozen frames. A
`Throttle` runs its function at most once per interval and, when calls arrive faster, runs it
once more after the last call (from a timer thread), so the final state is always shown.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Throttle:
    """Calls `fn` at most once every `interval` seconds; the last call is never lost."""

    def __init__(self, fn: Callable[[], None], interval: float) -> None:
        self.fn = fn
        self.interval = interval
        self._last = 0.0
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.calls = 0  # how often `fn` actually ran (tests and the frame counter read it)

    def __call__(self) -> None:
        if self._timer is not None:
            return  # a trailing call is already on its way
        wait = self._last + self.interval - time.monotonic()
        if wait <= 0:
            self._run()
        else:
            timer = threading.Timer(wait, self._run_from_timer)
            timer.daemon = True
            self._timer = timer
            timer.start()

    def _run_from_timer(self) -> None:
        self._timer = None
        self._run()

    def _run(self) -> None:
        with self._lock:
            self._last = time.monotonic()
            self.calls += 1
            self.fn()

    def flush(self) -> None:
        """Run now if a trailing call is pending (e.g. when a cell ends)."""
        timer = self._timer
        if timer is not None:
            timer.cancel()
            self._timer = None
            self._run()

    def cancel(self) -> None:
        timer = self._timer
        if timer is not None:
            timer.cancel()
            self._timer = None
