"""`WebGpuBackend`: compile final IR for the device, against one program's field memory.

It also serves the offline (disk) cache through the `Backend` protocol (`backends/protocol.py`):
what the GPU compiles to is WGSL text, so an entry stores every task's WGSL, bindings and
dispatch size plus the size of the global temporaries (`save_entry`), and a hit rebuilds the
executable from them (`load_entry`) without running the passes. Kernels that print or carry
debug checks are not stored: their host side needs the final IR. An AOT module's half of a
kernel (`aot_artifacts`) is made in `aot_artifacts.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tistudio.backends.protocol import AotArtifacts, CacheEntry
from tistudio.backends.webgpu import aot_artifacts
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.executable import CachedShaders, GpuExecutable
from tistudio.backends.webgpu.printing import GpuPrintBuffer
from tistudio.backends.webgpu.resources import ArgsLayout
from tistudio.backends.webgpu.shader import TaskShader
from tistudio.ir.config import CompileConfig
from tistudio.ir.statements import Print, Rand
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
        `cache_key` (the protocol's) names nothing here: WGSL has no global symbols."""
        args = self._args(kernel, any(isinstance(x, Rand) for x in kernel.walk()))
        if self._prints is None and any(isinstance(x, Print) for x in kernel.walk()):
            self._prints = GpuPrintBuffer(self.device)
        return GpuExecutable(
            kernel,
            self.device,
            self.memory,
            args,
            self._prints,
            fast_math=config.fast_math,
            random_seed=config.random_seed,
        )

    def _args(self, kernel: Kernel, draws: bool) -> ArgsLayout:
        args = ArgsLayout.of(kernel, draws)
        args.uniform = not args.fits(self.device.caps)  # too many for immediates, or none
        return args

    # --- the offline cache --------------------------------------------------------------

    def fingerprint(self) -> str:
        """What the WGSL depends on besides the kernel: the adapter and what it offers."""
        import wgpu

        caps = self.device.caps
        features = ",".join(sorted(caps.features))  # a frozenset's order varies by process
        return f"wgpu {wgpu.__version__}|{features}|{replace(caps, features=frozenset())!r}"

    def save_entry(self, executable: GpuExecutable, store: Callable[[CacheEntry], None]) -> None:
        """Store the tasks' WGSL as JSON, unless the kernel prints, carries debug checks or
        came from the cache itself (its host side needs the final IR)."""
        if executable.print_formats or executable.failure.checks or executable._cached:
            return
        meta = {
            "gtmp_size": executable.kernel.gtmp_size,
            "fast_math": executable.fast_math,
            "draws": executable.args.random is not None,
            "tasks": [shader.to_json() for shader, _, _ in executable.tasks],
        }
        store(CacheEntry(meta))

    def load_entry(
        self,
        entry: CacheEntry,
        kernel: Kernel,
        config: CompileConfig,
        final_ir: Callable[[], Kernel],
    ) -> GpuExecutable:
        """The executable of `save_entry`'s JSON for the frontend IR `kernel` (its parameters
        and return types); `final_ir()` runs the passes if other shaders are needed later.
        KeyError, TypeError or ValueError if the entry is damaged."""
        shaders = [TaskShader.from_json(task) for task in entry.meta["tasks"]]
        cached = CachedShaders(shaders, int(entry.meta["gtmp_size"]), final_ir)
        args = self._args(kernel, bool(entry.meta.get("draws", False)))
        fast_math = bool(entry.meta["fast_math"])
        return GpuExecutable(
            kernel, self.device, self.memory, args, None, cached, fast_math, config.random_seed
        )

    def wait_for_entry(self, cache_key: str) -> None:
        """Nothing to wait for: `save_entry` stores at once."""

    def wait_for_optimised(self) -> None:
        """Nothing to wait for: the GPU compiles each kernel once."""

    # --- AOT modules --------------------------------------------------------------------

    def aot_artifacts(
        self, kernel: Kernel, config: CompileConfig, stem: str, key: str
    ) -> AotArtifacts:
        """Each task's WGSL, bindings and dispatch size (`aot_artifacts.py`); `key` names
        nothing here: WGSL has no global symbols."""
        executable = self.compile(kernel, config)
        return aot_artifacts.aot_artifacts(executable, stem, self.device.caps.window_bytes)

    def aot_target(self) -> dict[str, Any]:
        caps = self.device.caps
        return {"workgroup_size": caps.workgroup_size, "max_groups": caps.max_groups}

    def aot_required_caps(self, files: dict[str, bytes]) -> list[str]:
        """The wgpu features the module's WGSL uses."""
        wgsl = [data.decode() for name, data in files.items() if name.endswith(".wgsl")]
        return aot_artifacts.required_wgpu_features(wgsl)

    def aot_bind(
        self, entry: dict[str, Any], files: dict[str, bytes], mark: str
    ) -> dict[str, bytes]:
        """Each task's shader with `mark` as its first line (a comment)."""
        return {t["wgsl"]: f"// {mark}\n".encode() + files[t["wgsl"]] for t in entry["tasks"]}
