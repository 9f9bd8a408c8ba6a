"""`ti.sync()`: wait for every launched kernel, without importing the compiler.

A process that only runs AOT modules (`tistudio.aot.load`) never imports the frontend or the
passes, and `ti.sync` must not make it (it did, through `lang.impl`, which holds `Program`).
CPU launches are synchronous; GPU launches of the current program and of loaded modules are
recorded on the process's one device (`default_device`), so waiting for that device waits for
them all. No device opened yet means no GPU launch to wait for.
"""

from __future__ import annotations

import sys


def sync() -> None:
    """Wait for launched kernels (`ti.sync`)."""
    device = sys.modules.get("tistudio.backends.webgpu.device")
    if device is not None and device.default_device.cache_info().currsize:
        device.default_device().sync()
