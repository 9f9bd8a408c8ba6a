"""The Taichi language as users write it: `ti.init`, fields, kernels, funcs and friends.

Submodules are imported on first attribute access (`ti.lang.impl.current_cfg()` works even
before anything imported `tistudio.lang.impl`), because `import tistudio` imports them lazily.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

_SUBMODULES = frozenset(m.name for m in pkgutil.iter_modules(__path__))


def __getattr__(name: str) -> Any:
    if name not in _SUBMODULES:
        raise AttributeError(f"module 'tistudio.lang' has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
