"""`CpuBackend`: what the CPU back end shares between kernels, and `compile_kernel`.

The runtime's `Program` creates one `CpuBackend` and passes it to `compile_kernel`; it owns the
JIT engine (one TargetMachine and one MCJIT engine for the process, created on first compile)
and the one thread pool (whose workers start on the first parallel launch). `default_backend()`
is a cached factory for callers without a `Program` (tests, the AOT loader): a process has one
set of cores, and two pools on them starve each other, so sharing one is the right default.
`CpuBackend` implements the `Backend` protocol (`backends/protocol.py`): compiling, the disk
cache's entries, and a kernel's AOT artifacts (its object code, LLVM IR and spec).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import llvmlite
import llvmlite.binding as llvm

from tistudio.backends.llvm.codegen import build_module
from tistudio.backends.llvm.context import ContextLayout
from tistudio.backends.llvm.executable import CpuExecutable
from tistudio.backends.llvm.jit import CODE_MODEL, RELOC_MODEL, CompiledModule, JitEngine
from tistudio.backends.llvm.launcher import build_launcher, estimated_work
from tistudio.backends.llvm.native_pool import NATIVE_GRAIN, NativeThreadPool
from tistudio.backends.llvm.runtime_ir import native_pool_supported
from tistudio.backends.llvm.spec import KernelSpec
from tistudio.backends.llvm.thread_pool import MIN_GRAIN, ThreadPool
from tistudio.backends.llvm.tiering import (
    QUICK_WORK_LIMIT,
    OptimisedCode,
    Optimiser,
    compile_tiered,
)
from tistudio.backends.print_buffer import PrintBuffer
from tistudio.backends.protocol import AotArtifacts, CacheEntry
from tistudio.ir.config import CompileConfig
from tistudio.ir.stmt import Kernel


class CpuBackend:
    """The CPU back end's shared state: a JIT engine and one thread pool, both made on first
    use. The pool is the native one (`native_pool.py`) where Linux futexes exist, else the
    pure-Python `thread_pool.ThreadPool`; `native=False` forces the latter. `cpu_name` and
    `cpu_features` make code for another x86-64 CPU than the host (see `JitEngine`)."""

    def __init__(
        self,
        num_threads: int | None = None,
        grain: int | None = None,
        native: bool = True,
        *,
        cpu_name: str | None = None,
        cpu_features: str | None = None,
        tiering: str | None = None,
    ) -> None:
        self.num_threads = num_threads or os.cpu_count() or 1
        self.native = native and native_pool_supported()
        self.grain = grain or (NATIVE_GRAIN if self.native else MIN_GRAIN)
        self._target = (cpu_name, cpu_features)
        self._jit: JitEngine | None = None
        self._pool: ThreadPool | NativeThreadPool | None = None
        self._lock = threading.RLock()
        self._kernel_ids = itertools.count()
        self._fingerprint: str | None = None
        # where the pool's runtime object code is cached (`runtime.offline_cache.RuntimeSlot`)
        self.runtime_cache: Any = None
        self._prints: PrintBuffer | None = None
        # a tier for every kernel whatever the config says (tests of one tier's code); None:
        # `CompileConfig.tiering`, which ti.init sets
        self.tiering = tiering
        self._optimiser: Optimiser | None = None
        # disk-cache keys of kernels whose optimised code (their cache entry) is being made
        self._making: dict[str, OptimisedCode] = {}

    @property
    def jit(self) -> JitEngine:
        with self._lock:
            if self._jit is None:
                self._jit = JitEngine(*self._target)
            return self._jit

    @property
    def pool(self) -> ThreadPool | NativeThreadPool:
        with self._lock:
            if self._pool is None:
                if self.native:
                    self._pool = NativeThreadPool(
                        self.num_threads, self.jit, self.grain, self.runtime_cache
                    )
                else:
                    self._pool = ThreadPool(self.num_threads, self.grain)
            return self._pool

    def compile(
        self, kernel: Kernel, config: CompileConfig, cache_key: str | None = None
    ) -> CpuExecutable:
        """Final IR of `kernel` -> a launchable `CpuExecutable`. With a `cache_key` (the disk
        cache's key), symbol names derive from it, so that object code saved under that key
        can be loaded into any later process without clashing with other kernels."""
        layout = ContextLayout.of(kernel)
        unique = cache_key[:16] if cache_key else str(next(self._kernel_ids))
        prefix = f"{re.sub(r'[^0-9A-Za-z_]', '_', kernel.name)}_{unique}"
        jit, pool = self.jit, self.pool  # started first: not part of this kernel's time
        start = time.perf_counter()
        module, functions = build_module(kernel, config, layout, prefix, jit.vector_library)
        if isinstance(pool, NativeThreadPool):
            threads = config.cpu_max_num_threads
            functions.append(build_launcher(module, kernel, functions, threads, pool.grain))
        text = jit.module_text(module)
        module.release()
        codegen_ms = (time.perf_counter() - start) * 1e3
        optimised = None
        tiering = self.tiering or config.tiering
        if tiering == "quick" or config.opt_level == 0:
            compiled = jit.compile_quick(text, functions, suffix="")
        elif tiering == "tiered" and estimated_work(kernel) <= QUICK_WORK_LIMIT:
            compiled, optimised = compile_tiered(
                jit, self.optimiser, text, functions, config.opt_level
            )
            if cache_key is not None:
                with self._lock:
                    self._making[cache_key] = optimised
        else:
            compiled = jit.compile(text, functions, config.opt_level)
        compiled.stage_ms = {"llvm_codegen": codegen_ms, **compiled.stage_ms}
        spec = KernelSpec.of(kernel, layout, functions, pool.grain)
        return CpuExecutable(spec, config, compiled, pool, self.prints(spec), optimised)

    @property
    def optimiser(self) -> Optimiser:
        """The background thread that makes kernels' optimised tier (`tiering.py`)."""
        with self._lock:
            if self._optimiser is None:
                self._optimiser = Optimiser(self.jit)
            return self._optimiser

    def wait_for_optimised(self) -> None:
        """Return once every kernel compiled so far runs its optimised code."""
        if self._optimiser is not None:
            self._optimiser.wait_all()

    # --- the disk cache (`backends/protocol.py`) ----------------------------------------

    def save_entry(self, executable: CpuExecutable, store: Callable[[CacheEntry], None]) -> None:
        """Store the spec and the object code; a tiered kernel's optimised code once the
        optimiser has made it (`wait_for_entry` waits for that)."""
        spec = executable.spec.to_json()
        optimised = executable.optimised
        if optimised is None:
            store(CacheEntry(spec, executable.compiled.object_code))
            return

        def store_optimised(compiled: CompiledModule) -> None:
            store(CacheEntry(spec, compiled.object_code))
            self._forget(optimised)

        optimised.then(store_optimised)

    def wait_for_entry(self, cache_key: str) -> None:
        """Wait for the optimised code compiled under `cache_key`, if it is being made."""
        with self._lock:
            optimised = self._making.get(cache_key)
        if optimised is not None:
            try:
                optimised.wait()  # the entry is stored before `wait` returns
            except RuntimeError:  # the optimiser failed: nothing will be stored
                self._forget(optimised)

    def _forget(self, optimised: OptimisedCode) -> None:
        with self._lock:
            for key in [k for k, v in self._making.items() if v is optimised]:
                del self._making[key]

    def load_entry(
        self,
        entry: CacheEntry,
        kernel: Kernel,
        config: CompileConfig,
        final_ir: Callable[[], Kernel],
    ) -> CpuExecutable:
        """A `CpuExecutable` from the spec and object code `save_entry` stored (the final IR
        is never needed: the object code is the whole kernel)."""
        spec = replace(KernelSpec.from_json(entry.meta), name=kernel.name)
        compiled = self.jit.load_object(entry.code, list(spec.functions))
        return CpuExecutable(spec, config, compiled, self.pool, self.prints(spec))

    # --- AOT modules (`backends/protocol.py`) --------------------------------------------

    def aot_artifacts(
        self, kernel: Kernel, config: CompileConfig, stem: str, key: str
    ) -> AotArtifacts:
        """The object code and the optimised LLVM IR of `kernel`, its symbols named after
        `key`, and the `KernelSpec` a loader makes the executable from (docs/aot-format.md)."""
        executable = self.compile(kernel, config, cache_key=key)
        spec = executable.spec
        files = {
            f"{stem}.o": executable.compiled.object_code,
            f"{stem}.ll": executable.llvm_ir_optimized.encode(),
        }
        part = {
            "object": f"{stem}.o",
            "llvm_ir": f"{stem}.ll",
            "launcher": spec.functions[-1] if spec.has_launcher else None,
            "threads": config.cpu_max_num_threads,
            "spec": spec.to_json(),
        }
        tasks = [{"function": function} for function in spec.functions[: len(spec.tasks)]]
        return AotArtifacts(files, sorted(spec.layout.root_slots), tasks, {"cpu": part})

    def aot_target(self) -> dict[str, Any]:
        jit = self.jit
        return {
            "triple": jit.triple,
            "cpu": jit.cpu_name,
            "features": jit.cpu_features,
            "native_pool": self.native,
            "vector_library": str(jit.vector_library),
        }

    def aot_required_caps(self, files: dict[str, bytes]) -> list[str]:
        return []  # the target entry says what the object code needs

    def aot_bind(
        self, entry: dict[str, Any], files: dict[str, bytes], mark: str
    ) -> dict[str, bytes]:
        """The kernel's optimised LLVM IR with `mark` added as a constant (defined, so that it
        stays), and its object code made again from that text, without optimising it."""
        cpu = entry["cpu"]
        symbol = f"{cpu['spec']['functions'][0]}_binding"
        data = mark.encode() + b"\0"
        text = files[cpu["llvm_ir"]].decode()
        text += f'\n@"{symbol}" = constant [{len(data)} x i8] c"{mark}\\00", align 1\n'
        context = llvm.create_context()  # not the engine's: nothing here touches its modules
        parsed = llvm.parse_assembly(text, context)
        parsed.verify()
        obj = self.jit.object_target_machine(3).emit_object(parsed)
        parsed.close()
        return {cpu["llvm_ir"]: text.encode(), cpu["object"]: obj}

    def prints(self, spec: KernelSpec) -> PrintBuffer | None:
        """The print buffer that kernels of this back end share, made for the first kernel
        that prints (4 MiB)."""
        if not spec.print_formats:
            return None
        with self._lock:
            if self._prints is None:
                self._prints = PrintBuffer()
            return self._prints

    def fingerprint(self) -> str:
        """What compiled code depends on besides the kernel: target, CPU, LLVM, pool kind."""
        if self._fingerprint is not None:
            return self._fingerprint
        jit = self.jit
        self._fingerprint = "|".join(
            (
                jit.triple,
                jit.cpu_name,
                jit.cpu_features,
                llvm_version(),
                f"native={self.native}",
                f"grain={self.grain}",
                f"libmvec={jit.vector_library}",
                f"quick={self.tiering == 'quick'}",  # the config's tier is in the cache key
                f"code={CODE_MODEL}/{RELOC_MODEL}",
            )
        )
        return self._fingerprint

    def close(self) -> None:
        """Stop the pool's workers (compiled kernels stay valid; the pool restarts on demand)."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()


@functools.cache
def default_backend() -> CpuBackend:
    """The process-wide backend for callers that do not own one (see the module docstring)."""
    return CpuBackend()


def compile_kernel(
    kernel: Kernel, config: CompileConfig, backend: CpuBackend | None = None
) -> CpuExecutable:
    """Compile the final IR of `kernel` for this CPU (with `backend`, or the default one)."""
    return (backend or default_backend()).compile(kernel, config)


def llvm_version() -> str:
    return f"llvmlite {llvmlite.__version__}, LLVM {'.'.join(map(str, llvm.llvm_version_info))}"
