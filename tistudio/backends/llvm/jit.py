"""LLVM module -> native code: parse, verify, optimise at O3 and load into MCJIT.

One `JitEngine` holds the process's TargetMachine and one MCJIT engine; every kernel's module is
added to that engine. (MCJIT takes ownership of the TargetMachine it is built with, so "one
TargetMachine per process" means one engine per process; a new engine per kernel would also cost
a new TargetMachine, ~5 ms.) The TargetMachine gets the host's CPU name and features, so the
loop and SLP vectorisers use AVX2/AVX-512 where the machine has them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import llvmlite.binding as llvm
from llvmlite import ir

from tistudio.backends.llvm.vecmath import VectorLibrary


@dataclass
class CompiledModule:
    """Native code of one kernel: function addresses, and the LLVM IR for the studio."""

    llvm_ir: str  # as emitted, before optimisation
    llvm_ir_optimized: str
    addresses: list[int]
    engine: JitEngine = field(repr=False)
    _assembly: str | None = field(default=None, repr=False)

    @property
    def assembly(self) -> str:
        """Target assembly of the optimised module, produced on first access (~5 ms)."""
        if self._assembly is None:
            self._assembly = self.engine.emit_assembly(self.llvm_ir_optimized)
        return self._assembly


class JitEngine:
    """The process's TargetMachine and MCJIT engine. Owned by a `CpuBackend`."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        self.triple = llvm.get_process_triple()
        self.cpu_name = llvm.get_host_cpu_name()
        self.cpu_features = llvm.get_host_cpu_features().flatten()
        target = llvm.Target.from_triple(self.triple)
        self.target_machine = target.create_target_machine(
            cpu=self.cpu_name, features=self.cpu_features, opt=3, jit=True
        )
        self.data_layout = str(self.target_machine.target_data)
        self.vector_library = VectorLibrary.detect(self.cpu_features)
        empty = llvm.parse_assembly("")
        empty.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(empty, self.target_machine)
        self._lock = threading.Lock()  # MCJIT and the TargetMachine are not thread-safe

    def compile(self, module: ir.Module, functions: list[str], opt_level: int) -> CompiledModule:
        """Optimise `module` and load it; return the addresses of `functions`."""
        module.triple = self.triple
        module.data_layout = self.data_layout
        text = str(module)
        with self._lock:  # LLVM's global context is not thread-safe: parse under the lock too
            parsed = llvm.parse_assembly(text)
            parsed.verify()
            self._optimise(parsed, opt_level)
            optimized = str(parsed)
            self.engine.add_module(parsed)
            self.engine.finalize_object()
            addresses = [self.engine.get_function_address(name) for name in functions]
        return CompiledModule(text, optimized, addresses, self)

    def _optimise(self, module: llvm.ModuleRef, opt_level: int) -> None:
        tuning = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        vectorise = opt_level >= 2
        tuning.loop_vectorization = vectorise
        tuning.slp_vectorization = vectorise
        tuning.loop_unrolling = vectorise
        tuning.loop_interleaving = vectorise
        builder = llvm.create_pass_builder(self.target_machine, tuning)
        builder.getModulePassManager().run(module, builder)

    def emit_assembly(self, llvm_ir: str) -> str:
        with self._lock:
            return self.target_machine.emit_assembly(llvm.parse_assembly(llvm_ir))
