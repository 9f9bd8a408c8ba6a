"""tistudio: the Taichi language compiled by a compiler written in Python, with a studio.

`import tistudio as ti` gives Taichi 1.7's API: `ti.init`, `ti.field`, `@ti.kernel`,
`@ti.func`, `ti.template()`, `ti.types.ndarray`, math and atomic functions, `ti.static`,
`ti.ndrange`, `ti.grouped`, `ti.loop_config`.
"""

from __future__ import annotations

from tistudio.frontend.errors import (
    TaichiCompilationError,
    TaichiNameError,
    TaichiRuntimeError,
    TaichiSyntaxError,
    TaichiTypeError,
)
from tistudio.lang import math
from tistudio.lang.field import Field, field
from tistudio.lang.impl import Arch, init, reset, sync
from tistudio.lang.kernel import func, kernel
from tistudio.lang.matrix import Matrix, Vector
from tistudio.lang.matrix_field import MatrixField
from tistudio.lang.ndarray import Ndarray, ndarray
from tistudio.lang.ops import (
    abs,
    acos,
    asin,
    atan2,
    atomic_add,
    atomic_and,
    atomic_max,
    atomic_min,
    atomic_mul,
    atomic_or,
    atomic_sub,
    atomic_xor,
    bit_cast,
    bit_shr,
    cast,
    ceil,
    cos,
    exp,
    floor,
    grouped,
    log,
    loop_config,
    max,
    min,
    ndrange,
    pow,
    raw_div,
    raw_mod,
    round,
    rsqrt,
    select,
    sin,
    sqrt,
    static,
    static_assert,
    static_print,
    tan,
    tanh,
)
from tistudio.lang.snode import axes, i, ij, ijk, ijkl, ik, j, jk, k, l, root
from tistudio.lang.struct import Struct, StructField, dataclass
from tistudio.lang.types import (
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    template,
    types,
    u1,
    u8,
    u16,
    u32,
    u64,
)

__version__ = "0.1.0"

cpu = Arch("cpu")
x64 = Arch("x64")
arm64 = Arch("arm64")
gpu = Arch("gpu")
vulkan = Arch("vulkan")
webgpu = Arch("webgpu")
cuda = Arch("cuda")
metal = Arch("metal")
opengl = Arch("opengl")

float32, float64, int32, int64 = f32, f64, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64
int8, int16 = i8, i16


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext tistudio`: registers `%%ti_kernel`. The studio (IPython, ipywidgets,
    matplotlib) is imported here, never by `import tistudio`."""
    from tistudio.studio.magic import load_ipython_extension as load_studio

    load_studio(ipython)


__all__ = [name for name in dir() if not name.startswith("_") and name != "load_ipython_extension"]
