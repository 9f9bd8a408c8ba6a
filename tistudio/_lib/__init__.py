"""Taichi's `taichi._lib` package, as far as programs and Taichi's tests import it.

Taichi keeps its compiled core and a few platform helpers under `taichi._lib`; its GUI test imports
`taichi._lib.utils.get_os_name`, so the name has to exist here for those programs to run unchanged.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def __getattr__(name: str) -> ModuleType:
    """`ti._lib.core` and `ti._lib.utils` without importing them first, as Taichi's programs do."""
    if name in ("core", "utils"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
