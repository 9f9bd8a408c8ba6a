"""The names of Taichi's compiled core (`taichi._lib.core`) that programs and tests read.

Taichi's examples pick their arch with `ti._lib.core.with_vulkan()`, its tests catch
`ti._lib.core.TaichiRuntimeError` and size loops with `get_max_num_indices()`. Here they answer
for tistudio: "Vulkan" is the WebGPU back end (wgpu), there is no CUDA or Metal back end.
"""

from __future__ import annotations

import importlib.util

from tistudio.frontend.errors import TaichiRuntimeError

GGUI_AVAILABLE = True  # ti.ui renders through wgpu, offscreen
MAX_NUM_INDICES = 12  # Taichi's taichi_max_num_indices


def with_vulkan() -> bool:
    """True where the WebGPU back end (which runs on Vulkan, Metal or D3D12) is installed."""
    return importlib.util.find_spec("wgpu") is not None


def with_cuda() -> bool:
    return False


def with_metal() -> bool:
    return False


def with_opengl() -> bool:
    return False


def get_max_num_indices() -> int:
    """How many axes a field may have, as in Taichi."""
    return MAX_NUM_INDICES


__all__ = [
    "GGUI_AVAILABLE",
    "TaichiRuntimeError",
    "get_max_num_indices",
    "with_cuda",
    "with_metal",
    "with_opengl",
    "with_vulkan",
]
