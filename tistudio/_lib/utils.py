"""Platform helpers of Taichi's `taichi._lib.utils` that user programs and Taichi's tests use.

Only `get_os_name()` is here: Taichi's GUI test reads it to know how fast-GUI pixels are packed
(macOS adds an alpha byte).
"""

from __future__ import annotations

import platform


def get_os_name() -> str:
    """The operating system in Taichi's words: "osx", "linux" or "win"."""
    name = platform.system()
    if name == "Darwin":
        return "osx"
    if name == "Windows":
        return "win"
    if name == "Linux":
        return "linux"
    raise RuntimeError(f"Unknown system: {name}")
