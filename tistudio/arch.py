"""Arch names (`ti.cpu`, `ti.vulkan`, ...) and the back end each one selects.

Kept apart from `lang/impl.py`, which pulls in the compiler, so that code running a prebuilt
AOT module (`tistudio.aot.load(path, arch=ti.cpu)`) can name an arch without importing the
frontend or the passes.
"""

from __future__ import annotations

ARCHES = {
    "cpu": "cpu",
    "x64": "cpu",
    "arm64": "cpu",
    "gpu": "gpu",
    "vulkan": "gpu",
    "webgpu": "gpu",
    "cuda": "gpu",
    "metal": "gpu",
    "opengl": "gpu",
}


class Arch:
    """An arch name (`ti.cpu`, `ti.gpu`, ...)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Arch) and ARCHES[self.name] == ARCHES[other.name]

    def __hash__(self) -> int:
        return hash(ARCHES[self.name])


def backend_of(arch: object) -> str:
    """`"cpu"` or `"gpu"` for an `Arch`, an arch name or None (the CPU); else ValueError."""
    name = getattr(arch, "name", arch) or "cpu"
    if not isinstance(name, str) or name not in ARCHES:
        raise ValueError(f"unknown arch {arch!r}; expected one of {', '.join(ARCHES)}")
    return ARCHES[name]
