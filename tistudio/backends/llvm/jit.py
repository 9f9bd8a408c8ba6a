"""LLVM module -> native code: parse, verify, optimise, emit an object file, load it into MCJIT.

One `JitEngine` holds the process's TargetMachines and one MCJIT engine. Every module is
optimised, turned into a relocatable object file and that object is loaded into the engine,
whose RuntimeDyld links it against the process (libm, libmvec, the thread pool). Going through
an object file costs nothing extra over MCJIT's own code generation, and the same bytes can go
to the disk cache: loading them back (`load_object`) takes about a millisecond where compiling
took tens.

Objects use the large code model with static relocations (`CODE_MODEL`, `RELOC_MODEL`): every
address is a 64-bit absolute that RuntimeDyld writes at load time. RuntimeDyld's memory manager
takes an object's code, constants and unwind tables from separate blocks, which drift apart as
a process maps and unmaps memory; with the small code model a RIP-relative load of a constant
could then be >2 GiB away, and RuntimeDyld's `isInt<32>(RealOffset)` assertion aborted the
process (about one full test run in two). llvmlite's own memory manager, which keeps an
object's sections together, refuses the thread pool's runtime object on x86-64 ("All memory
must be pre-allocated"). The cost: a constant's or function's address is a `movabs`, hoisted
out of loops. The TargetMachines get the
host's CPU name and features, so the loop and SLP vectorisers use AVX2/AVX-512 where the machine
has them.

Optimisation follows the kernel's size: a module with no loop at all (a serial task that stores
a few values) gets LLVM's O1 pipeline, which is a third of O3's cost and loses nothing without
loops to vectorise; every other module gets the requested level (O3 by default).

`compile_quick` is the first tier of tiered compilation (`tiering.py`): a few cheap passes
(SROA, instcombine, simplifycfg) and the code generator at optimisation level 0 (fast
instruction selection and register allocation) make usable code in ~4 ms where O3 takes ~40;
its functions get a `__quick` suffix, so that the optimised module of the same kernel, loaded
into the same engine later, defines its symbols without a clash. `compile` can run on another
thread than the engine's users when given an `OptimiserThreadState` (its own LLVM context and
TargetMachine): only loading the object into the engine takes the engine's lock, and its two
long calls (optimising, code generation) skip llvmlite's global lock (`unlocked.py`).
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from tistudio.backends.llvm import debug_lines, half, unlocked
from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.object_check import check_object
from tistudio.backends.llvm.vecmath import VectorLibrary

QUICK_SUFFIX = "__quick"  # the first tier's functions: see `JitEngine.compile_quick`
CODE_MODEL, RELOC_MODEL = "large", "static"  # see the module docstring


@dataclass
class OptimiserThreadState:
    """What a thread other than the engine's users needs to compile alone: its own LLVM context
    and its own TargetMachine, so that nothing it makes is shared with the user's thread.

    Its calls take llvmlite's global lock, except the pass pipeline and the code generator
    (`unlocked.py` says why that is safe and the thread's other calls are not)."""

    context: llvm.context.ContextRef
    machine: llvm.TargetMachine


@dataclass
class CompiledModule:
    """Native code of one kernel: function addresses, the object file they were loaded from
    (for the disk cache), and the LLVM IR for the studio ("" when loaded from the cache)."""

    llvm_ir: str  # as emitted, before optimisation
    optimized: str | Callable[[], str]  # the optimised IR, or what makes it on first access
    addresses: list[int]
    engine: JitEngine = field(repr=False)
    object_code: bytes = field(default=b"", repr=False)
    stage_ms: dict[str, float] = field(default_factory=dict)  # parse, optimise, codegen, load
    opt_level: int | None = None  # the O level of `compile`; None: the quick tier's passes
    _assembly: str | None = field(default=None, repr=False)

    @property
    def llvm_ir_optimized(self) -> str:
        """The module after optimisation. The quick tier's is made again when asked for (~2 ms):
        printing it while compiling cost ~0.3-0.5 ms of every kernel's first call."""
        if callable(self.optimized):
            self.optimized = self.optimized()
        return self.optimized

    @property
    def assembly(self) -> str:
        """Target assembly of the optimised module, produced on first access (~5 ms)."""
        if self._assembly is None:
            if not self.llvm_ir_optimized:
                return "(loaded from the offline cache: no assembly; recompile to see it)"
            self._assembly = self.engine.emit_assembly(self.llvm_ir_optimized)
        return self._assembly

    def located_assembly(
        self, lines: Sequence[int | None], ids: Sequence[int | None]
    ) -> tuple[str, list[int | None], list[int | None]] | None:
        """This code's assembly made again with a line table (`debug_lines`): the text, and
        per line of it the source line and final-IR statement; `lines` and `ids` give them per
        line of `llvm_ir`. None for code loaded from the offline cache (no IR)."""
        if not self.llvm_ir:
            return None
        located = debug_lines.with_lines(self.llvm_ir, lines, ids)
        return debug_lines.split_lines(self.engine.optimised_assembly(located, self.opt_level))


class JitEngine:
    """The process's TargetMachine and MCJIT engine. Owned by a `CpuBackend`.

    Code is made for the host's CPU and features unless `cpu_name` / `features` (LLVM's names:
    "haswell", "-f16c,-avx512f") say otherwise; features alone change the host CPU's. Code for a
    subset of the host's features runs here, so tests run the code that other x86-64 CPUs would
    get (`tests/backends/llvm/test_cpu_features.py`)."""

    def __init__(self, cpu_name: str | None = None, features: str | None = None) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        self.triple = llvm.get_process_triple()
        if cpu_name is None and features is None:
            features = llvm.get_host_cpu_features().flatten()
        self.cpu_name = cpu_name or llvm.get_host_cpu_name()
        self.cpu_features = features or ""  # a named CPU alone: that CPU's own features
        target = llvm.Target.from_triple(self.triple)
        self.target_machine = target.create_target_machine(
            cpu=self.cpu_name, features=self.cpu_features, opt=3, jit=True
        )
        # objects for RuntimeDyld (and the disk cache): see CODE_MODEL
        self.object_machine = self.object_target_machine(3)
        self.quick_machine = self.object_target_machine(0)  # the first tier's code generator
        self.data_layout = str(self.object_machine.target_data)
        self.vector_library = VectorLibrary.detect(self.cpu_features)
        empty = llvm.parse_assembly("")
        empty.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(empty, self.target_machine)
        self._lock = threading.Lock()  # MCJIT and the TargetMachine are not thread-safe
        if self.triple.startswith("x86_64") and "+f16c" not in self.cpu_features.split(","):
            # f16 code without F16C calls these, which the process may lack (`half.py`)
            self.compile(half.build_half_module(), half.FUNCTIONS, opt_level=1)

    def compile(
        self,
        module: ir.Module | str,
        functions: list[str],
        opt_level: int,
        thread_state: OptimiserThreadState | None = None,
    ) -> CompiledModule:
        """Optimise `module`, emit its object code and load it; return the addresses of
        `functions` (and the object code, for the disk cache). With a `thread_state`, parsing,
        optimising and code generation run in that state's LLVM context, outside the engine's
        lock."""
        clock = time.perf_counter
        start = clock()
        text = self.module_text(module)
        with self._lock if thread_state is None else contextlib.nullcontext():
            context = thread_state.context if thread_state else None
            machine = thread_state.machine if thread_state else self.object_machine
            parsed = llvm.parse_assembly(text, context)
            parsed.verify()
            parsed_at = clock()
            level = opt_level if _has_loops(text) else min(opt_level, 1)
            alone = thread_state is not None  # the long calls then skip llvmlite's lock
            self._optimise(parsed, level, machine, alone)
            optimised_at = clock()
            optimized = str(parsed)
            obj = unlocked.emit_object(machine, parsed) if alone else machine.emit_object(parsed)
            emitted_at = clock()
            parsed.close()  # in the thread (and context) that made it
        with self._lock:
            addresses = self._load(obj, functions)
        times = (start, parsed_at, optimised_at, emitted_at, clock())
        stages = ("llvm_parse", "llvm_optimise", "machine_code", "load")
        ms = _stage_ms(stages, times)
        return CompiledModule(text, optimized, addresses, self, obj, ms, opt_level=level)

    def compile_quick(
        self, module: ir.Module | str, functions: list[str], suffix: str = QUICK_SUFFIX
    ) -> CompiledModule:
        """The first tier: cheap passes and level-0 code generation (see the module docstring).
        The returned addresses are those of `functions` renamed with `suffix` (none where the
        quick code is the kernel's only code)."""
        clock = time.perf_counter
        start = clock()
        text = self.module_text(module)
        with self._lock:
            parsed = self._parse_renamed(text, functions, suffix)
            parsed_at = clock()
            self._quick_passes(parsed)
            optimised_at = clock()
            obj = self.quick_machine.emit_object(parsed)
            emitted_at = clock()
            parsed.close()
            addresses = self._load(obj, [name + suffix for name in functions])
        times = (start, parsed_at, optimised_at, emitted_at, clock())
        stages = ("llvm_parse", "llvm_quick_optimise", "quick_machine_code", "load")
        optimized = functools.partial(self._quick_text, text, functions, suffix)
        return CompiledModule(text, optimized, addresses, self, obj, _stage_ms(stages, times))

    def _quick_text(self, text: str, functions: list[str], suffix: str) -> str:
        """The quick tier's optimised IR of `text`, made again (the passes are deterministic)."""
        with self._lock:
            parsed = self._parse_renamed(text, functions, suffix)
            self._quick_passes(parsed)
            optimized = str(parsed)
            parsed.close()
        return optimized

    @staticmethod
    def _parse_renamed(text: str, functions: list[str], suffix: str) -> llvm.ModuleRef:
        """Parse `text` with `functions` renamed `<name><suffix>`, in the text: cheaper than
        renaming the parsed functions one LLVM call at a time (~0.2 ms)."""
        if suffix and functions:
            renamed = set(functions)

            def rename(m: re.Match) -> str:
                name = m.group(1) or m.group(2)
                return f'@"{name}{suffix}"' if name in renamed else m.group(0)

            text = _GLOBAL_NAME.sub(rename, text)
        parsed = llvm.parse_assembly(text)
        parsed.verify()
        return parsed

    def _quick_passes(self, parsed: llvm.ModuleRef) -> None:
        passes = llvm.create_new_module_pass_manager()
        passes.add_sroa_pass()
        passes.add_instruction_combine_pass()
        passes.add_simplify_cfg_pass()
        tuning = llvm.create_pipeline_tuning_options(speed_level=0)
        builder = llvm.create_pass_builder(self.quick_machine, tuning)
        passes.run(parsed, builder)
        for made in (passes, builder, tuning):
            made.close()

    def module_text(self, module: ir.Module | str) -> str:
        """The module's text for this target (an `llir.Module` gets the triple and layout)."""
        if isinstance(module, str):
            return module
        module.triple = self.triple
        module.data_layout = self.data_layout
        return str(module)

    def object_target_machine(self, opt: int = 3) -> llvm.TargetMachine:
        """A new TargetMachine for relocatable objects of this CPU (one per thread that emits)."""
        target = llvm.Target.from_triple(self.triple)
        return target.create_target_machine(
            cpu=self.cpu_name,
            features=self.cpu_features,
            opt=opt,
            reloc=RELOC_MODEL,
            codemodel=CODE_MODEL,
        )

    def load_object(self, obj: bytes, functions: list[str]) -> CompiledModule:
        """Load object code made by `compile` (in this or an earlier process, for this CPU).
        The bytes come from a file, so they are checked first (`object_check.py`): LLVM trusts
        them, and a malformed object would crash the process. `ObjectFileError` if they fail."""
        start = time.perf_counter()
        with self._lock:
            check_object(obj, self.triple, self._resolvable)
            addresses = self._load(obj, functions)
        ms = {"load": (time.perf_counter() - start) * 1e3}
        return CompiledModule("", "", addresses, self, obj, ms)

    def _resolvable(self, name: str) -> bool:
        """Whether the linker finds `name`: in the process (libm, libmvec, what this engine's
        process loaded) or in an object loaded into this engine (`half.py`'s functions)."""
        return bool(llvm.address_of_symbol(name) or self.engine.get_function_address(name))

    def _load(self, obj: bytes, functions: list[str]) -> list[int]:
        self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        self.engine.finalize_object()
        addresses = [self.engine.get_function_address(name) for name in functions]
        if not all(addresses):
            missing = [n for n, a in zip(functions, addresses) if not a]
            raise RuntimeError(f"object code lacks the functions {missing}")
        return addresses

    def _optimise(
        self, module: llvm.ModuleRef, opt_level: int, machine: llvm.TargetMachine, alone: bool
    ) -> None:
        """Run LLVM's O`opt_level` pipeline; `alone`: on the optimiser's thread, in its own
        context and TargetMachine, without llvmlite's global lock (`unlocked.py`)."""
        tuning = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        vectorise = opt_level >= 2
        tuning.loop_vectorization = vectorise
        tuning.slp_vectorization = vectorise
        tuning.loop_unrolling = vectorise
        tuning.loop_interleaving = vectorise
        builder = llvm.create_pass_builder(machine, tuning)
        passes = builder.getModulePassManager()
        if alone:
            unlocked.run_module_passes(passes, module, builder)
        else:
            passes.run(module, builder)
        for made in (passes, builder, tuning):
            made.close()

    def emit_assembly(self, llvm_ir: str) -> str:
        with self._lock:
            return self.object_machine.emit_assembly(llvm.parse_assembly(llvm_ir))

    def optimised_assembly(self, llvm_ir: str, opt_level: int | None) -> str:
        """The assembly of `llvm_ir` as emitted, optimised as `compile` (at `opt_level`) or
        `compile_quick` (None) optimised it: for `debug_lines`, the kernel's code again."""
        with self._lock:
            parsed = llvm.parse_assembly(llvm_ir)
            parsed.verify()
            if opt_level is None:
                self._quick_passes(parsed)
            else:
                self._optimise(parsed, opt_level, self.object_machine, False)
            assembly = self.object_machine.emit_assembly(parsed)
            parsed.close()
        return assembly


def _stage_ms(names: tuple[str, ...], times: tuple[float, ...]) -> dict[str, float]:
    """Milliseconds per stage from the clock readings between stages."""
    return {name: (end - begin) * 1e3 for name, begin, end in zip(names, times, times[1:])}


# a global's name where it is used or defined: `@name` or `@"name"` (one pattern for every
# module: a pattern made of each module's names cost ~0.4 ms to compile, per kernel)
_GLOBAL_NAME = re.compile(r'@(?:"([^"]*)"|([-\w$.]+))')
_LOOP = re.compile(r"\bphi\b|^while[.0-9]*:", re.MULTILINE)


def _has_loops(llvm_ir: str) -> bool:
    """Whether the emitted module may loop: a counted loop from codegen has a `phi` counter, a
    `while` a block named `while` (an atomic's retry loop has a `phi` too: counted as a loop)."""
    return _LOOP.search(llvm_ir) is not None
