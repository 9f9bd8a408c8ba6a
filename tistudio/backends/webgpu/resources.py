"""What a WGSL shader binds: storage-buffer views, their windows, and the immediates.

Every buffer of a kernel (one per SNode tree, one per ndarray parameter, the global temporaries
and the return slots) holds bytes; a shader sees it through typed *views*, one binding per
element type it needs (`tree0_f32: array<f32>`, `tree0_au32: array<atomic<u32>>`), all bound to
the same buffer. Pointers are byte offsets, so a view's index is the offset shifted by log2 of
its element size. A buffer larger than the adapter's binding limit is bound as several windows
of `window_bytes` each (`tree0_f32_w1` starts `window_bytes` in). Scalar arguments and ndarray
extents travel as immediates (`var<immediate> args: Args`), packed by `ArgsLayout.pack`; when
the adapter has no `immediates` feature or they exceed its `max-immediate-size`, the same struct
is a uniform buffer instead (`var<uniform> args: Args`, the last binding of the bind group).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tistudio.ir.statements import normalize_value
from tistudio.ir.stmt import Kernel
from tistudio.ir.types import PrimitiveType


@dataclass(frozen=True)
class Caps:
    """What the adapter offers that code generation depends on (frozen: it keys caches)."""

    features: frozenset[str] = frozenset()
    window_bytes: int = 128 << 20  # max-storage-buffer-binding-size, rounded down to 256
    max_immediate_size: int = 128
    max_storage_buffers: int = 8
    workgroup_size: int = 256
    max_groups: int = 65535  # workgroups of a range_for; larger ranges stride over the grid
    # (GpuDevice.open measures it on the card: calibrate.py)
    vectorize: bool = True  # vec4 access in simple elementwise loops (see vectorize.py)
    unroll: bool = True  # serial range-for loops four iterations per step (see unroll.py)
    jam: bool = True  # rows of a 2-D loop per invocation around its inner loop (jam_rows.py)
    small_group: int = 64  # workgroup size of a range_for of few workgroups (shader.py)
    grid_unroll: int = 1  # indices per step of a grid-stride loop (unroll.py; 1: no unroll)
    stream_unroll: int = 4  # vec4 steps per iteration of a vec4 loop that stores nothing
    contract: bool = True  # with fast_math: products may fuse into FMAs (emitter.py)
    description: str = "(no adapter)"

    def has(self, feature: str) -> bool:
        return feature in self.features


VIEW_ELEMENT = {
    "f16": "f16",
    "i32": "i32",
    "u32": "u32",
    "f32": "f32",
    "i64": "i64",
    "u64": "u64",
    "f64": "f64",
    "ai32": "atomic<i32>",
    "au32": "atomic<u32>",
    "af32": "atomic<f32>",
    "ai64": "atomic<i64>",
    "au64": "atomic<u64>",
    "v4f32": "vec4<f32>",  # four consecutive elements (see vectorize.py)
    "v4i32": "vec4<i32>",
    "v4u32": "vec4<u32>",
}
UNIFORM = "uniform"  # the view of the `args` uniform buffer (not a storage array)


def view_bytes(view: str) -> int:
    if view == "f16":
        return 2
    if view.startswith("v4"):
        return 16
    return 8 if view.endswith("64") else 4


@dataclass(frozen=True)
class Binding:
    """Binding `index` shows window `window` of buffer `resource` as `view`."""

    index: int
    resource: str  # "tree0", "arg1", "gtmp", "ret"
    view: str
    window: int
    writable: bool


@dataclass
class ShaderResources:
    """The views one task's shader uses; the emitter registers them as it writes code."""

    caps: Caps
    windows: dict[str, int] = field(default_factory=dict)  # resource -> number of windows
    views: dict[str, list[str]] = field(default_factory=dict)
    writable: set[str] = field(default_factory=set)
    # (resource, scalar view) -> the vec4 view a vec4 loop reads or writes it through
    # (vectorize.py): the task's scalar accesses of that type go through it too, so that
    # vectorising never binds a buffer through one more view (browsers forbid aliasing a
    # written buffer)
    vectors: dict[tuple[str, str], str] = field(default_factory=dict)

    def windows_of(self, resource: str) -> int:
        return self.windows.get(resource, 1)

    def vector_view(self, resource: str, view: str) -> str | None:
        """The vec4 view that scalar `view` of `resource` goes through, if any."""
        return self.vectors.get((resource, view))

    def use(self, resource: str, view: str, write: bool) -> str:
        """Register `view` of `resource` and return its name (of window 0 when windowed)."""
        views = self.views.setdefault(resource, [])
        if view not in views:
            views.append(view)
        if write:
            self.writable.add(resource)
        return view_name(resource, view, 0, self.windows_of(resource))

    def bindings(self) -> list[Binding]:
        out: list[Binding] = []
        for resource, views in self.views.items():
            for view in views:
                for window in range(self.windows_of(resource)):
                    out.append(Binding(len(out), resource, view, window, resource in self.writable))
        return out

    def declarations(self) -> list[str]:
        lines = []
        for b in self.bindings():
            access = "read_write" if b.writable else "read"
            name = view_name(b.resource, b.view, b.window, self.windows_of(b.resource))
            lines.append(
                f"@group(0) @binding({b.index}) var<storage, {access}> {name}: "
                f"array<{VIEW_ELEMENT[b.view]}>;"
            )
        return lines


def view_name(resource: str, view: str, window: int, windows: int) -> str:
    return f"{resource}_{view}" if windows == 1 else f"{resource}_{view}_w{window}"


# --- immediates -----------------------------------------------------------------------------

# (WGSL member type, struct format) of each parameter type in the Args struct
_ARG_FORMAT = {
    "i8": ("i32", "i"),
    "i16": ("i32", "i"),
    "i32": ("i32", "i"),
    "u1": ("u32", "I"),
    "u8": ("u32", "I"),
    "u16": ("u32", "I"),
    "u32": ("u32", "I"),
    "i64": ("i64", "q"),
    "u64": ("u64", "Q"),
    "f16": ("f32", "f"),  # the shader converts it (immediates have no 16-bit member)
    "f32": ("f32", "f"),
    "f64": ("f64", "d"),
}


@dataclass
class ArgsLayout:
    """The `Args` struct of a kernel's immediates: scalar parameters, then ndarray extents,
    then the launch's `ti.random` key for a kernel that draws (`random.py`)."""

    members: list[tuple[str, str, int]] = field(default_factory=list)  # (name, type, offset)
    scalars: dict[int, str] = field(default_factory=dict)  # arg id -> member name
    shapes: dict[tuple[int, int], str] = field(default_factory=dict)  # (arg id, axis) -> name
    random: str | None = None  # the member holding the launch's random key, if it draws
    size: int = 0
    uniform: bool = False  # bound as a uniform buffer, not immediates (see the module doc)
    _format: str = "<"
    _packers: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, kernel: Kernel, draws: bool = False) -> ArgsLayout:
        """The layout of `kernel`'s parameters; `draws`: it calls `ti.random`."""
        layout = cls()
        for arg_id, param in enumerate(kernel.params):
            if param.kind == "scalar":
                dtype = param.dtype
                if not isinstance(dtype, PrimitiveType) or dtype.name not in _ARG_FORMAT:
                    raise TypeError(f"parameter {param.name!r}: {dtype} is not supported on gpu")
                wgsl, fmt = _ARG_FORMAT[dtype.name]
                layout.scalars[arg_id] = layout._add(f"a{arg_id}", wgsl, fmt)
                layout._packers.append((arg_id, None, _scalar_packer(param.name, dtype)))
            else:
                for axis in range(param.ndim):
                    member = layout._add(f"a{arg_id}_shape{axis}", "i32", "i")
                    layout.shapes[arg_id, axis] = member
                    layout._packers.append((arg_id, axis, None))
        if draws:
            layout.random = layout._add("rand_key", "u32", "I")
        align = max((8 if t.endswith("64") else 4 for _, t, _ in layout.members), default=4)
        padded = -(-layout.size // align) * align
        layout._format += "x" * (padded - layout.size)
        layout.size = padded
        return layout

    def _add(self, name: str, wgsl: str, fmt: str) -> str:
        nbytes = 8 if wgsl.endswith("64") else 4
        offset = -(-self.size // nbytes) * nbytes
        self._format += "x" * (offset - self.size) + fmt
        self.members.append((name, wgsl, offset))
        self.size = offset + nbytes
        return name

    def fits(self, caps: Caps) -> bool:
        """Whether the arguments can travel as immediates on this adapter."""
        return not self.size or (caps.has("immediates") and self.size <= caps.max_immediate_size)

    def declaration(self, binding: int = 0) -> list[str]:
        """The `Args` struct and its variable (`binding`: its index when a uniform buffer)."""
        if not self.members:
            return []
        fields = ", ".join(f"{name}: {t}" for name, t, _ in self.members)
        if self.uniform:
            var = f"@group(0) @binding({binding}) var<uniform> args: Args;"
        else:
            var = "var<immediate> args: Args;"
        return [f"struct Args {{ {fields} }}", var]

    def pack(self, args: list[Any], random_key: int = 0) -> bytes:
        """The immediates' bytes; `random_key`: the launch's key, for a kernel that draws."""
        values = []
        for arg_id, axis, packer in self._packers:
            if axis is None:
                values.append(packer(args[arg_id]))
            else:
                values.append(args[arg_id].shape[axis])
        if self.random is not None:
            values.append(random_key)
        return struct.pack(self._format, *values)


def _scalar_packer(name: str, dtype: PrimitiveType) -> Any:
    """A Python value -> what `struct` packs for it, wrapping integers as Taichi does. An f16
    travels as an f32 already rounded to f16 here, as the CPU back end stores it: NVIDIA's
    driver skipped the shader's `f16(args.a0)` before a cast to u32 (1e10 gave 1e10 mod 2^32
    where the CPU's f16 is inf and the cast saturates)."""
    if dtype.name == "f16":
        return _as_f16
    if dtype.is_float:
        return float
    if dtype.kind == "bool":
        return lambda value: int(bool(value))

    def pack_int(value: Any) -> int:
        try:
            index = value.__index__()
        except (AttributeError, TypeError):
            raise TypeError(
                f"argument {name!r} must be an integer for {dtype}, not {type(value).__name__}"
            ) from None
        return normalize_value(index, dtype)  # type: ignore[return-value]

    return pack_int


def _as_f16(value: Any) -> float:
    with np.errstate(over="ignore"):
        return float(np.float16(value))
