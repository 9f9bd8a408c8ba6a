"""`WebGpuBackend`: compile final IR for the device, against one program's field memory.

It also serves the offline (disk) cache (`runtime/offline_cache.py`): what the GPU compiles to
is WGSL text, so an entry stores every task's WGSL, bindings and dispatch size plus the size of
the global temporaries (`cache_entry`), and a hit rebuilds the executable from them
(`load_cached`) without running the passes. Kernels that print or carry debug checks are not
stored: their host side needs the final IR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.executable import CachedShaders, GpuExecutable
from tistudio.backends.webgpu.printing import GpuPrintBuffer
from tistudio.backends.webgpu.resources import ArgsLayout
from tistudio.backends.webgpu.shader import TaskShader
from tistudio.ir.config import CompileConfig
from tistudio.ir.statements import Print
from tistudio.ir.stmt import Kernel


class WebGpuBackend:
    """Compiles kernels of one `Program` for `device`; `memory` holds that program's trees
    (see `tistudio.runtime.gpu_memory.GpuMemory`)."""

    def __init__(self, device: GpuDevice, memory: Any) -> None:
        self.device, self.memory = device, memory
        self._prints: GpuPrintBuffer | None = None  # made for the first kernel that prints

    def compile(
        self, kernel: Kernel, config: CompileConfig, cache_key: str | None = None
    ) -> GpuExecutable:
        """Final IR of `kernel` -> a launchable `GpuExecutable` (pipelines created here).
        `cache_key` is the CPU back end's (its symbol names); WGSL has no global names."""
        args = self._args(kernel)
        if self._prints is None and any(isinstance(x, Print) for x in kernel.walk()):
            self._prints = GpuPrintBuffer(self.device)
        return GpuExecutable(
            kernel, self.device, self.memory, args, self._prints, fast_math=config.fast_math
        )

    def _args(self, kernel: Kernel) -> ArgsLayout:
        args = ArgsLayout.of(kernel)
        args.uniform = not args.fits(self.device.caps)  # too many for immediates, or none
        return args

    # --- the offline cache --------------------------------------------------------------

    def fingerprint(self) -> str:
        """What the WGSL depends on besides the kernel: the adapter and what it offers."""
        import wgpu

        caps = self.device.caps
        features = ",".join(sorted(caps.features))  # a frozenset's order varies by process
        return f"wgpu {wgpu.__version__}|{features}|{replace(caps, features=frozenset())!r}"

    def cache_entry(self, executable: GpuExecutable) -> dict | None:
        """The JSON the cache stores for `executable`, or None if it cannot be stored."""
        if executable.print_formats or executable.failure.checks or executable._cached:
            return None
        return {
            "gtmp_size": executable.kernel.gtmp_size,
            "fast_math": executable.fast_math,
            "tasks": [shader.to_json() for shader, _, _ in executable.tasks],
        }

    def load_cached(
        self, entry: dict, kernel: Kernel, final_ir: Callable[[], Kernel]
    ) -> GpuExecutable:
        """The executable of `cache_entry`'s JSON for the frontend IR `kernel` (its parameters
        and return types); `final_ir()` runs the passes if other shaders are needed later.
        KeyError, TypeError or ValueError if the entry is damaged."""
        shaders = [TaskShader.from_json(task) for task in entry["tasks"]]
        cached = CachedShaders(shaders, int(entry["gtmp_size"]), final_ir)
        args = self._args(kernel)
        fast_math = bool(entry["fast_math"])
        return GpuExecutable(kernel, self.device, self.memory, args, None, cached, fast_math)
