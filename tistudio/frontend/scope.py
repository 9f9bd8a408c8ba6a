"""Lexical scopes of a kernel or func body: Taichi scopes variables by block, like C.

A name bound inside an `if` or `for` body is gone after it. Names bind either to a runtime
variable (`Identifier`) or to a compile-time Python value. Lookups fall through to the function's
closure, globals and builtins, which are compile-time constants as in Taichi.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

_MISSING = object()


class Scope:
    """A chain of block scopes over one function's globals and closure."""

    def __init__(self, global_vars: Mapping[str, Any]) -> None:
        self.frames: list[dict[str, Any]] = [{}]
        self.global_vars = global_vars

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def bind(self, name: str, value: Any) -> None:
        self.frames[-1][name] = value

    def lookup_local(self, name: str) -> Any:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return _MISSING

    def lookup(self, name: str) -> Any:
        value = self.lookup_local(name)
        if value is not _MISSING:
            return value
        if name in self.global_vars:
            return self.global_vars[name]
        return getattr(builtins, name, _MISSING)


MISSING = _MISSING
