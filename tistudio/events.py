"""What happened in the compiler and runtime, for whoever listens (the studio's widgets).

The core publishes; it never imports a listener. Publishing to a kind nobody listens to costs
one dictionary lookup, and callers on hot paths check `bus.wants(kind)` before even building the
payload. Kinds: "compiled", "pass_ran", "pass_done", "launched", "field_written".

The bus is the one module-level mutable object in the core, on purpose: a process has one
stream of events, and widgets must keep listening across `ti.init()`/`ti.reset()`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Listener = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


class EventBus:
    """A tiny publish/subscribe hub. Listener errors are caught: the studio must never break a
    kernel launch."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}
        self._lock = threading.Lock()
        self.errors: list[BaseException] = []
        # the kinds somebody listens to: a kernel launch checks this attribute alone while
        # nobody listens (a script, a test), ~100 ns cheaper than asking `wants` twice
        self.kinds: frozenset[str] = frozenset()

    def wants(self, kind: str) -> bool:
        return bool(self._listeners.get(kind))

    def subscribe(self, kind: str, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` for every event of `kind`; returns a function that stops it."""
        with self._lock:
            self._listeners.setdefault(kind, []).append(listener)
            self._update_kinds()

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners.get(kind, []):
                    self._listeners[kind].remove(listener)
                    self._update_kinds()

        return unsubscribe

    def _update_kinds(self) -> None:
        self.kinds = frozenset(kind for kind, listeners in self._listeners.items() if listeners)

    def publish(self, kind: str, **data: Any) -> None:
        listeners = self._listeners.get(kind)
        if not listeners:
            return
        event = Event(kind, data)
        for listener in list(listeners):
            try:
                listener(event)
            except Exception as e:  # noqa: BLE001 - a broken widget must not break the kernel
                self.errors.append(e)


bus = EventBus()
