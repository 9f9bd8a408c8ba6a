"""`taichi.lang.misc`: what arches and extensions this machine runs, under Taichi's names.

Taichi's tests pick their arches with `get_host_arch_list()` and skip themselves when
`is_extension_supported(arch, ti.extension.X)` says no, so the answers must be honest: an
extension tistudio lacks is reported missing, and the test is skipped rather than failed.
"""

from __future__ import annotations

import warnings

from tistudio.arch import ARCHES, EXTENSIONS, Arch, Extension, arch_name, host_arch_name

extension = Extension


def get_host_arch_list() -> list[Arch]:
    """The host's CPU arch, as a one-element list (`[ti.x64]` on an x86-64 machine)."""
    return [Arch(host_arch_name())]


def _backend(arch: object) -> str | None:
    return ARCHES[arch_name(arch)]


def is_arch_supported(arch: object) -> bool:
    """Whether `ti.init(arch=arch)` runs on `arch` here rather than falling back to the CPU:
    the CPU always; an arch of the GPU back end when a WebGPU adapter exists."""
    backend = _backend(arch)
    if backend == "gpu":
        return _gpu_device() is not None
    return backend == "cpu"


def is_extension_supported(arch: object, ext: Extension) -> bool:
    """Whether tistudio supports extension `ext` on `arch` (False on an arch it cannot run).
    On the GPU, `data64` also needs the device's f64 and i64 shader features."""
    backend = _backend(arch)
    if backend is None or ext not in EXTENSIONS[backend]:
        return False
    if backend == "gpu" and ext is Extension.data64:
        device = _gpu_device()
        return device is not None and all(
            device.caps.has(feature) for feature in ("shader-f64", "shader-int64")
        )
    return True


def _gpu_device() -> object | None:
    """The process's WebGPU device, or None without an adapter (no warning: this is a query)."""
    # imported on demand: the WebGPU back end costs ~9 ms to import, and only GPU queries need it
    from tistudio.runtime.gpu_device import open_gpu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_gpu(fallback_to_cpu=True)
