"""Opening the process's GPU for `ti.init(arch=ti.gpu)`.

`lang` reaches the back ends only through `runtime` (the layers of `docs/architecture.md`), so
the one question `ti.init` asks of the WebGPU back end, "is there an adapter?", is answered here.
"""

from __future__ import annotations

import logging
import warnings

from tistudio.backends.webgpu.device import GpuDevice, NoAdapterError, default_device


def open_gpu(fallback_to_cpu: bool) -> GpuDevice | None:
    """The process's WebGPU device, or None (with a warning) when there is no adapter and
    `fallback_to_cpu` (Taichi's behaviour); `ti.init(arch=ti.gpu, fallback_to_cpu=False)`
    makes a missing adapter an error instead."""
    try:
        device = default_device()
    except NoAdapterError as e:
        if not fallback_to_cpu:
            raise RuntimeError(f"ti.gpu: no WebGPU adapter ({e})") from None
        warnings.warn(f"no WebGPU adapter ({e}); falling back to ti.cpu", stacklevel=3)
        return None
    logging.getLogger("tistudio").info("[tistudio] Starting on arch=gpu (%s)", device.description)
    return device
