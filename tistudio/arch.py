"""Arch names (`ti.cpu`, `ti.vulkan`, ...), the back end each one selects, and the extensions
(`ti.extension.sparse`, ...) each back end supports.

Kept apart from `lang/impl.py`, which pulls in the compiler, so that code running a prebuilt
AOT module (`tistudio.aot.load(path, arch=ti.cpu)`) can name an arch without importing the
frontend or the passes. Taichi's arch names for hardware tistudio has no back end for (CUDA,
Metal, OpenGL, ...) are real `Arch` values too, so Taichi programs and tests that name them
import and compare; `ti.init` with one falls back to the CPU as Taichi does on a machine without
that hardware (`resolve`).
"""

from __future__ import annotations

import enum
import os
import warnings

# arch name -> the back end that runs it ("cpu", "gpu"), or None: no back end of tistudio does
ARCHES: dict[str, str | None] = {
    "cpu": "cpu",
    "x64": "cpu",
    "arm64": "cpu",
    "gpu": "gpu",
    "vulkan": "gpu",
    "webgpu": "gpu",
    "cuda": None,
    "metal": None,
    "opengl": None,
    "gles": None,
    "amdgpu": None,
    "dx11": None,
    "dx12": None,
}


def _key(name: str) -> str:
    """What an arch compares by: its back end, or its own name when nothing here runs it."""
    return ARCHES.get(name) or name


class Arch:
    """An arch name (`ti.cpu`, `ti.gpu`, ...). Arches equal when they select the same back end
    (`ti.x64 == ti.cpu`), and an arch equals that back end's name, so `current_cfg().arch ==
    ti.cpu` holds on the CPU."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Arch):
            return _key(self.name) == _key(other.name)
        if isinstance(other, str):
            return _key(self.name) == _key(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(_key(self.name))


def arch_name(arch: object) -> str:
    """The name of an `Arch`, an arch name or None (the CPU); ValueError for anything else."""
    name = getattr(arch, "name", arch) or "cpu"
    if not isinstance(name, str) or name not in ARCHES:
        raise ValueError(f"unknown arch {arch!r}; expected one of {', '.join(ARCHES)}")
    return name


def backend_of(arch: object) -> str:
    """`"cpu"` or `"gpu"` for an `Arch`, an arch name or None (the CPU); else ValueError."""
    name = arch_name(arch)
    backend = ARCHES[name]
    if backend is None:
        raise ValueError(f"arch {name} is not available here; use ti.cpu or ti.gpu")
    return backend


def resolve(arch: object, enable_fallback: bool = True) -> str:
    """The back end `ti.init(arch=...)` starts: an arch no back end here runs falls back to the
    CPU with a warning, as Taichi does without that hardware, or, with `enable_fallback=False`,
    is a RuntimeError. A list of arches (Taichi's `ti.gpu` is one) takes the first that runs."""
    if isinstance(arch, (list, tuple)):
        runnable = [a for a in arch if ARCHES.get(getattr(a, "name", a) or "cpu")]
        return resolve(runnable[0] if runnable else arch[0] if arch else None, enable_fallback)
    name = arch_name(arch)
    backend = ARCHES[name]
    if backend is not None:
        return backend
    message = f"arch={name} is not available here; use ti.cpu or ti.gpu"
    if not enable_fallback:
        raise RuntimeError(message)
    warnings.warn(f"{message}. Falling back to ti.cpu", stacklevel=3)
    return "cpu"


def host_arch_name() -> str:
    """The name of the CPU arch this machine runs (`x64` or `arm64`), Taichi's host arch."""
    machine = os.uname().machine.lower()
    return "arm64" if machine in ("arm64", "aarch64") else "x64"


class Extension(enum.Enum):
    """`ti.extension.*`: optional features an arch may lack, Taichi's names and numbers."""

    sparse = 0
    quant = 1
    mesh = 2
    quant_basic = 3
    data64 = 4
    adstack = 5
    bls = 6
    assertion = 7
    extfunc = 8


# What each back end supports. Sparse SNodes (pointer, bitmasked, dynamic) run on both (the
# GPU's pools fit one storage binding). Neither has meshes, block-local storage or external
# functions yet. Quantized types (`quant`, `quant_basic`) work on both; on the GPU only in
# 32-bit words (WGSL atomics are 32-bit). `assertion` means
# `assert` and bounds checks under `ti.init(debug=True)`. The GPU's `data64` (f64 and i64)
# further needs the device's shader-f64 and shader-int64 features (`lang/misc.py` asks).
EXTENSIONS: dict[str, frozenset[Extension]] = {
    "cpu": frozenset(
        {
            Extension.sparse,
            Extension.data64,
            Extension.adstack,
            Extension.assertion,
            Extension.quant,
            Extension.quant_basic,
        }
    ),
    "gpu": frozenset(
        {
            Extension.sparse,
            Extension.data64,
            Extension.adstack,
            Extension.assertion,
            Extension.quant,
            Extension.quant_basic,
        }
    ),
}
