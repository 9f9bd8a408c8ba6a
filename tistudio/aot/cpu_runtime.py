"""Running a CPU module: object code into a fresh MCJIT engine, fields in NumPy buffers.

Memory for the trees is allocated only once the loader has checked that the metadata is
bound to the code (`allocate`); each kernel's spec is checked against its entry, and the entry
against its code, before its object is loaded. Each loaded module gets its own `JitEngine`,
so two modules (or a module and the JIT kernels of the same program) never see each other's
symbols. Launching goes through the same
`CpuExecutable` as JIT kernels, built from the `KernelSpec` stored in the metadata, on the
process's one thread pool. Object code is specific to the target it was built for (triple and
CPU features), which the loader checks before anything runs.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

from tistudio.aot.format import AotModuleError
from tistudio.backends.llvm.backend import default_backend
from tistudio.backends.llvm.executable import CpuExecutable
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.spec import KernelSpec
from tistudio.ir.config import CompileConfig

_ALIGN = 64


class CpuModuleRuntime:
    """The memory and the JIT engine of one loaded CPU module."""

    def __init__(self, meta: dict, files: dict[str, bytes]) -> None:
        self.files = files
        self.backend = default_backend()
        self.jit = JitEngine()
        _check_target(meta.get("target", {}), self.jit)
        self.buffers: dict[int, np.ndarray] = {}
        self.tree_sizes: dict[int, int] = {}
        self.roots: list[int] = []

    def allocate(self, trees: list[dict]) -> None:
        """Zeroed, 64-byte aligned memory for each tree (ids 0, 1, 2 ..., checked)."""
        for tree in trees:
            try:
                raw = np.zeros(tree["size"] + _ALIGN, np.uint8)
            except MemoryError:
                message = f"tree {tree['id']} ({tree['size']} bytes): out of memory"
                raise AotModuleError(message) from None
            start = (-raw.ctypes.data) % _ALIGN
            self.buffers[tree["id"]] = raw[start : start + max(tree["size"], 1)]
            self.tree_sizes[tree["id"]] = tree["size"]
        self.roots = [self.buffers[t].ctypes.data for t in range(len(self.buffers))]

    def executable(self, entry: dict, verify: Callable[[], None]) -> CpuExecutable:
        """The kernel of `entry`, once its spec agrees with its entry and `verify` (the
        binding of the entry to its code, `binding.py`) passes."""
        cpu = entry["cpu"]
        try:
            spec = KernelSpec.from_json(cpu["spec"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            raise AotModuleError(f"kernel {entry['name']!r}: bad cpu.spec ({e!r})") from None
        _check_spec(entry, spec, self.tree_sizes)
        verify()
        name = cpu["object"]
        if name not in self.files:
            raise AotModuleError(f"kernel {entry['name']!r}: the module lacks {name!r}")
        check_object(self.files[name], name, self.jit.triple)
        try:
            compiled = self.jit.load_object(self.files[name], list(spec.functions))
        except (RuntimeError, ValueError, OSError) as e:  # an unresolved symbol, bad object code
            raise AotModuleError(f"kernel {entry['name']!r}: cannot load {name!r} ({e})") from None
        config = CompileConfig(
            cpu_max_num_threads=cpu["threads"], random_seed=entry.get("random_seed", 0)
        )
        return CpuExecutable(spec, config, compiled, self.backend.pool, self.backend.prints(spec))

    def tree_buffer(self, tree: int) -> np.ndarray:
        return self.buffers[tree]

    def before_host_read(self, tree: int) -> None:
        """CPU launches are synchronous: the host memory is always current."""

    def after_host_write(self, tree: int) -> None:
        """Kernels read the host memory itself: nothing to copy."""

    def sync(self) -> None:
        """Nothing runs in the background on the CPU."""


_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_MACHINES = {"x86_64": 62, "aarch64": 183}  # ELF e_machine of the triples we build for
_SHT_NOBITS = 8


def check_object(data: bytes, name: str, triple: str) -> None:
    """Refuse object code that is not a relocatable 64-bit little-endian ELF file for this
    machine, or whose sections lie outside the file: LLVM trusts its input and would crash.
    (The loader runs a module's native code: load only modules you trust.)"""
    problem = _elf_problem(data, _MACHINES.get(triple.split("-")[0]))
    if problem:
        raise AotModuleError(f"{name} is not object code for this machine: {problem}")


def _elf_problem(data: bytes, machine: int | None) -> str:
    if len(data) < _ELF_HEADER.size or data[:4] != b"\x7fELF":
        return "no ELF header"
    ident, kind, arch, _, _, _, shoff, _, _, _, _, shentsize, shnum, _ = _ELF_HEADER.unpack_from(
        data
    )
    if ident[4:6] != b"\x02\x01" or kind != 1:
        return "not a relocatable 64-bit little-endian object"
    if machine is not None and arch != machine:
        return f"machine {arch}, expected {machine}"
    if shentsize != _SECTION.size or shoff + shnum * shentsize > len(data):
        return "its section table lies outside the file"
    for index in range(shnum):
        fields = _SECTION.unpack_from(data, shoff + index * shentsize)
        sh_type, offset, size = fields[1], fields[4], fields[5]
        if sh_type != _SHT_NOBITS and offset + size > len(data):
            return f"section {index} lies outside the file"
    return ""


def _check_target(target: dict, jit: JitEngine) -> None:
    """The module's object code runs only where its triple and CPU features exist."""
    triple = target.get("triple")
    if triple != jit.triple:
        raise AotModuleError(f"the module was built for {triple!r}; this machine is {jit.triple}")
    have = set(jit.cpu_features.split(","))
    needed = [f for f in str(target.get("features", "")).split(",") if f.startswith("+")]
    missing = sorted(f[1:] for f in needed if f not in have)
    if missing:
        raise AotModuleError(
            f"the module was built for a CPU with {', '.join(missing[:6])}, which this "
            f"{jit.cpu_name} lacks; build it again on this machine"
        )


def _check_spec(entry: dict, spec: KernelSpec, trees: dict[int, int]) -> None:
    """The spec must agree with the kernel's metadata: the loader fills the argument buffer
    slots it lists and checks arguments by the entry's dtypes, so a spec that disagrees would
    write where it should not. (Whether the two are what the code was built with is the
    binding's check, which comes next.)"""
    layout = spec.layout
    params = [(p.name, p.kind, str(p.dtype), p.ndim) for p in spec.params]
    declared = [
        (a["name"], "ndarray" if a["ptype"] == 1 else "scalar", a["dtype"], a["ndim"])
        for a in entry["args"]
    ]
    slots = [p.slot for p in layout.params] + [s for p in layout.params for s in p.shape_slots]
    slots += list(layout.root_slots.values())
    ok = (
        params == declared
        and isinstance(layout.num_slots, int)
        and len(layout.params) == len(spec.params)
        and all(len(s.shape_slots) == p.ndim for s, p in zip(layout.params, spec.params))
        and sorted(layout.root_slots) == sorted(entry["trees"])
        and set(layout.root_slots) <= set(trees)
        and all(isinstance(s, int) and 0 <= s < layout.num_slots for s in slots)
        and len(set(slots)) == len(slots)
        and layout.num_slots <= 1 << 16
        and spec.gtmp_size == entry["gtmp_size"]
        and len(spec.functions) >= len(spec.tasks)
        and all(0 <= k < len(spec.params) for k, _ in spec.written_arrays)
    )
    if not ok:
        raise AotModuleError(f"kernel {entry['name']!r}: cpu.spec disagrees with its metadata")
