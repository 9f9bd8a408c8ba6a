"""Ahead-of-time modules (`ti.aot`): build them, archive them, run them without the compiler.

`Module` compiles kernels, fields and graphs into a module folder or `.tcm` archive
(docs/aot-format.md); `export`/`export_as` mark kernels for `python -m tistudio.aot build`;
`start_recording`/`stop_recording` log compile and launch actions as YAML; `GfxRuntime140`
reads a module's metadata; `load` runs a module with NumPy arrays. `load` and `GfxRuntime140`
import neither the frontend nor the passes, and `Module` is imported on first use, so a
program that only runs modules never loads the compiler.
"""

from __future__ import annotations

import importlib
from typing import Any

from tistudio.aot.exports import export, export_as
from tistudio.aot.format import AotModuleError
from tistudio.aot.gfx import GfxRuntime140
from tistudio.aot.loader import load
from tistudio.aot.record import start_recording, stop_recording

_LAZY = {"Module": "tistudio.aot.module", "KernelTemplate": "tistudio.aot.module"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tistudio.aot' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "AotModuleError",
    "GfxRuntime140",
    "KernelTemplate",
    "Module",
    "export",
    "export_as",
    "load",
    "start_recording",
    "stop_recording",
]
