"""tistudio: the Taichi language compiled by a compiler written in Python, with a studio.

`import tistudio as ti` gives Taichi 1.7's API: `ti.init`, `ti.field`, `@ti.kernel`,
`@ti.func`, `ti.template()`, `ti.types.ndarray`, math and atomic functions, `ti.static`,
`ti.ndrange`, `ti.grouped`, `ti.loop_config`, and AOT modules (`ti.aot`, `ti.graph`).

Arch names and dtypes are imported here; every other name is imported on first use (PEP 562
`__getattr__`), so that a program which only runs a prebuilt AOT module
(`tistudio.aot.load`) never imports the frontend or the passes.
"""

from __future__ import annotations

import importlib
from typing import Any

from tistudio.arch import Arch
from tistudio.arch import Extension as extension
from tistudio.lang.types import (
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u1,
    u8,
    u16,
    u32,
    u64,
)

__version__ = "0.2.0"

cpu = Arch("cpu")
x64 = Arch("x64")
arm64 = Arch("arm64")
gpu = Arch("gpu")
vulkan = Arch("vulkan")
webgpu = Arch("webgpu")
# Taichi's arches that no back end here runs: `ti.init` with one falls back to the CPU
cuda = Arch("cuda")
metal = Arch("metal")
opengl = Arch("opengl")
gles = Arch("gles")
amdgpu = Arch("amdgpu")
dx11 = Arch("dx11")
dx12 = Arch("dx12")

float32, float64, int32, int64 = f32, f64, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64
int8, int16 = i8, i16

# module -> the names `ti.<name>` takes from it, imported on first use
_LAZY_NAMES = {
    "tistudio.frontend.errors": "TaichiAssertionError TaichiCompilationError TaichiNameError "
    "TaichiRuntimeError TaichiRuntimeTypeError TaichiSyntaxError TaichiTypeError",
    "tistudio.lang.bitpacked": "BitpackedFields",
    "tistudio.lang.data_oriented": "data_oriented",
    "tistudio.lang.colors": "hex_to_rgb rgb_to_hex",
    "tistudio.lang.field": "Field field",
    "tistudio.lang.impl": "init reset",
    "tistudio.runtime.sync": "sync",
    "tistudio.ui.gui": "GUI",
    "tistudio.lang.kernel": "func kernel",
    "tistudio.lang.linalg": "eig polar_decompose svd sym_eig",
    "tistudio.lang.matrix": "Matrix Vector",
    "tistudio.lang.matrix_field": "MatrixField",
    "tistudio.lang.ndarray": "MatrixNdarray Ndarray ScalarNdarray VectorNdarray ndarray",
    "tistudio.lang.ops": "abs acos asin atan2 atomic_add atomic_and atomic_max atomic_min "
    "atomic_mul atomic_or atomic_sub atomic_xor bit_cast bit_shr cache_read_only cast ceil cos exp "
    "floor frexp grouped log loop_config max min ndrange one pow randn random raw_div raw_mod "
    "round rsqrt select sin sqrt static static_assert static_print tan tanh zero",
    "tistudio.lang.real_func": "real_func ref",
    "tistudio.lang.snode": "axes i ij ijk ijkl ik j jk k l root",
    "tistudio.lang.sparse": "activate append deactivate deactivate_all_snodes get_addr is_active "
    "length no_activate rescale_index sparse",
    "tistudio.lang.struct": "Struct StructField dataclass",
    "tistudio.lang.types": "template types",
}
_LAZY = {name: module for module, names in _LAZY_NAMES.items() for name in names.split()}
_SUBMODULES = {
    "math": "tistudio.lang.math",
    "aot": "tistudio.aot",
    "graph": "tistudio.graph",
    "tools": "tistudio.ui.tools",
    "_lib": "tistudio._lib",
    "ui": "tistudio.ui",
    "ad": "tistudio.ad",
    "simt": "tistudio.lang.simt",
}


def __getattr__(name: str) -> Any:
    """Import `ti.<name>` on first use and keep it, so later lookups cost nothing extra."""
    if name in _SUBMODULES:
        value = importlib.import_module(_SUBMODULES[name])
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'tistudio' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext tistudio`: registers `%%ti_kernel`. The studio (IPython, ipywidgets,
    matplotlib) is imported here, never by `import tistudio`."""
    from tistudio.studio.magic import load_ipython_extension as load_studio

    load_studio(ipython)


_PRIVATE = {"annotations", "importlib", "Any", "load_ipython_extension"}
__all__ = sorted(
    {n for n in globals() if not n.startswith("_") and n not in _PRIVATE}
    | set(_LAZY)
    | set(_SUBMODULES)
)
