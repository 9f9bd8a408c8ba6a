"""The `Backend` protocol: all that `runtime/` and the disk cache know about a back end.

A back end turns final IR into an `Executable` (`compile`), says what else its code depends on
(`fingerprint`: target, compiler versions, device features), and moves executables to and from
the disk cache as a `CacheEntry` (`save_entry`, `load_entry`), and makes a kernel's half of an
AOT module as `AotArtifacts` (`aot_artifacts`), with the module's target, required features and
binding markers (`aot_target`, `aot_required_caps`, `aot_bind`). The CPU back end
(`llvm/backend.py`) and the GPU back end (`webgpu/backend.py`) implement it; `runtime/`, the
disk cache and `aot/` hold one and never ask which. Typing is structural (`typing.Protocol`):
neither back end inherits from anything here, and a test checks both against it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from tistudio.ir.config import CompileConfig
from tistudio.ir.stmt import Kernel


@runtime_checkable
class Executable(Protocol):
    """One compiled kernel instantiation: `launch(args, roots)` runs it with its runtime
    arguments and the addresses of the field trees, and returns its return values."""

    def launch(self, args: Sequence[Any], roots: Sequence[int]) -> Any: ...


@dataclass
class CacheEntry:
    """What the disk cache keeps of an executable: JSON the back end rebuilds it from, and
    object code (empty where the code is text inside `meta`, as WGSL is)."""

    meta: dict[str, Any]
    code: bytes = b""


@dataclass
class AotArtifacts:
    """A kernel's back-end half of an AOT module: its code as files, and the keys of its
    metadata entry that only the back end knows. `aot/compile.py` owns the module format (the
    keys common to both arches) and merges these in; docs/aot-format.md lists them."""

    files: dict[str, bytes]  # artifact files, their names starting with the given stem
    trees: list[int]  # the SNode trees the code uses, in the order its loader binds them
    tasks: list[dict[str, Any]]  # per offloaded task, the back end's keys of its task entry
    entry: dict[str, Any]  # the back end's keys of the kernel entry ("cpu" or "gpu", ...)


@runtime_checkable
class Backend(Protocol):
    """A back end, as `Program` and the disk cache use it."""

    def compile(
        self, kernel: Kernel, config: CompileConfig, cache_key: str | None = None
    ) -> Executable:
        """Final IR -> executable. `cache_key` is the disk cache's key for it, or None: code
        that has global symbol names (the CPU's) is named after it, so that it loads into any
        later process; WGSL has no global names and needs none."""
        ...

    def fingerprint(self) -> str:
        """What compiled code depends on besides the kernel (part of the disk cache's key)."""
        ...

    def save_entry(self, executable: Executable, store: Callable[[CacheEntry], None]) -> None:
        """Call `store` with `executable`'s entry, now or later (the CPU's optimised tier);
        never, where the executable cannot be cached (it prints, it carries debug checks)."""
        ...

    def wait_for_entry(self, cache_key: str) -> None:
        """Return once the entry of a kernel this back end compiled under `cache_key` in this
        process has been stored, if it is still being made: a program started since then
        loads it instead of compiling the kernel again."""
        ...

    def load_entry(
        self,
        entry: CacheEntry,
        kernel: Kernel,
        config: CompileConfig,
        final_ir: Callable[[], Kernel],
    ) -> Executable:
        """The executable of a stored entry for the frontend IR `kernel` (its name,
        parameters and return types); `final_ir()` runs the passes, for a back end that finds
        later that it needs more than the entry kept. Raises if the entry is damaged."""
        ...

    def wait_for_optimised(self) -> None:
        """Return once every kernel compiled so far runs its final code (tiered compilation)."""
        ...

    def aot_artifacts(
        self, kernel: Kernel, config: CompileConfig, stem: str, key: str
    ) -> AotArtifacts:
        """The AOT artifacts of the final IR `kernel`, file names starting with `stem`. `key`
        hashes the final IR and `fingerprint()`; it names the code's global symbols, as
        `compile`'s `cache_key` does, so that a module gives the same bytes in every process.
        Raises ValueError for a kernel that a module cannot hold on this back end."""
        ...

    def aot_target(self) -> dict[str, Any]:
        """An AOT module's `target` entry: what its code was made for (docs/aot-format.md)."""
        ...

    def aot_required_caps(self, files: dict[str, bytes]) -> list[str]:
        """The device features that the module's artifact `files` need (sorted)."""
        ...

    def aot_bind(
        self, entry: dict[str, Any], files: dict[str, bytes], mark: str
    ) -> dict[str, bytes]:
        """The artifacts of the module's kernel `entry` from `files`, rewritten to carry the
        binding marker `mark` where the loader looks for it (`aot/binding.py`)."""
        ...
