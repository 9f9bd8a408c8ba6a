"""The CPU back end: final IR -> LLVM IR (`llir`) -> native code (llvmlite), and a parallel runtime.

`compile_kernel(kernel, config)` returns a `CpuExecutable`; `launch(args, roots)` runs it. See
`context.py` for the argument buffer every task receives and `codegen.py` for the task ABI.

The package imports none of its modules itself: the names below load on first use (PEP 562).
`ti.init` imports the back end on a warm-up thread (`runtime/warm_up.py`); had this file
imported `backend` (which imports `executable`, which imports `jit`), a program importing
`tistudio.backends.llvm.jit` meanwhile held `jit`'s import lock while waiting for the package,
and the warm-up thread held the package while waiting for `jit`: Python broke that deadlock by
handing one thread a partly initialised module (ImportError, 21 of 40 tries). It also keeps
llvmlite unloaded by `import tistudio.backends.llvm`.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CpuBackend": "backend",
    "compile_kernel": "backend",
    "default_backend": "backend",
    "CpuExecutable": "executable",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
