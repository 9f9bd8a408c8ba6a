"""The one place that says which passes run, in which order, for which arch.

`compile_to_final_ir` takes the frontend IR of one kernel instantiation to the final IR the back
ends consume (see docs/compiler-contract.md), and checks that it is (`ir/final_ir.py`). With
recording on (always in the studio, or with `ti.init(print_ir=True)`), every pass that ran
leaves a `PassRecord`: its name, its docstring for students, how long it took, the IR after it
and its statement count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from tistudio.events import bus
from tistudio.frontend.errors import TaichiCompilationError
from tistudio.ir.final_ir import check_final_ir
from tistudio.ir.lineage import StmtIds, print_with_ids
from tistudio.ir.statements import GetAddr, GlobalPtr, Offloaded
from tistudio.ir.stmt import Kernel
from tistudio.ir.verifier import verify
from tistudio.passes import (
    auto_diff,
    demote_atomics,
    demote_dense_struct_fors,
    demote_operations,
    demote_sparse_struct_fors,
    determine_ad_stack_size,
    insert_debug_checks,
    jam,
    jam_rows,
    lower_access,
    lower_ast,
    lower_quant,
    make_thread_local,
    offload,
    pad_ndrange,
    privatize_fields,
    scalarize,
    split_reductions,
    type_check,
    unroll,
    vectorize,
)
from tistudio.passes.context import PassContext
from tistudio.passes.deferred import PassMark
from tistudio.passes.simplify import SIMPLIFY_PASSES, fixed_point_steps

# Each back end's passes on the loops as lower_ast wrote them, before anything simplifies them
LOWERING_PASSES: dict[str, tuple[ModuleType, ...]] = {
    "gpu": (pad_ndrange,),  # a flat ndrange's rows in whole groups of four, for vec4 access
}
# Each back end's last passes: they choose how a task's loops meet the hardware. The GPU's
# split_reductions rewrites a task's IR into workgroup form (as ti.simt.block code reads); the
# others record their choice in the task's schedule (ir/schedule.py), which the back end's
# emitter prints, so after them the IR does not change: the schedule names its statements.
BACKEND_PASSES: dict[str, tuple[ModuleType, ...]] = {
    "cpu": (jam,),  # unroll-and-jam around a long inner loop: more memory streams per core
    # sums over lanes; rows of a 2-D loop around one inner loop; vec4s; loops unrolled 4x
    "gpu": (split_reductions, jam_rows, vectorize, unroll),
}


# Passes on tasks or on the kernel as a whole, which do not run on its IR functions
# (`ir/calls.py`): a function's body runs inside whichever task calls it.
KERNEL_ONLY: frozenset[ModuleType] = frozenset(
    {offload, make_thread_local, privatize_fields, auto_diff, determine_ad_stack_size}
    | {m for passes in (*LOWERING_PASSES.values(), *BACKEND_PASSES.values()) for m in passes}
)


@dataclass(frozen=True)
class PassRecord:
    """What one pass did to one kernel instantiation."""

    name: str
    doc: str
    ms: float
    ir_text: str
    stmt_count: int
    changed: bool = True
    lines: tuple[int | None, ...] = ()  # per line of ir_text: the user's source line, if known
    stmt_ids: tuple[int | None, ...] = ()  # per line of ir_text: its statement's id (lineage)


def _doc(module: ModuleType) -> str:
    return (module.__doc__ or "").strip()


def _short_name(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[-1]


class PassRunner:
    """Runs passes on one kernel, verifying and recording as the config asks."""

    def __init__(
        self,
        kernel: Kernel,
        ctx: PassContext,
        record: bool,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        self.publish = bus.wants("pass_ran")
        self.kernel, self.ctx, self.echo = kernel, ctx, echo
        self.record = record or self.publish
        self.records: list[PassRecord] = []
        self.verify = ctx.config.verify_passes or ctx.config.debug
        self.timings: dict[str, float] = {}  # ms per pass or simplify group, and rounds
        self.ids = StmtIds()  # stable statement ids across the recorded passes (ir/lineage.py)
        self.marks: list[PassMark] | None = None  # texts printed later (passes/deferred.py)
        self.announce = bus.wants("pass_done")  # the studio's progress: names only, no text

    def snapshot(self, name: str, doc: str, ms: float, changed: bool = True) -> None:
        if self.marks is not None:
            self.marks.append(PassMark(name, doc, ms, self.kernel.stmt_count(), changed))
        if self.announce:
            bus.publish("pass_done", kernel_name=self.kernel.name, name=name)
        if not (self.record or self.echo):
            return
        text, lines, ids = print_with_ids(self.kernel, self.ids)
        if self.record:
            count = self.kernel.stmt_count()
            record = PassRecord(name, doc, ms, text, count, changed, tuple(lines), tuple(ids))
            self.records.append(record)
            if self.publish:
                bus.publish("pass_ran", kernel_name=self.kernel.name, record=record)
        if self.echo:
            self.echo(f"[{self.kernel.name}] {name}:\n{text}")

    def run(self, module: ModuleType, label: str = "", typed: bool = True) -> bool:
        start = time.perf_counter()
        changed = self.apply(module)
        ms = (time.perf_counter() - start) * 1e3
        name = label or _short_name(module)
        self.timings[name] = self.timings.get(name, 0.0) + ms
        if self.verify:
            self.verify_all(name, typed)
        self.snapshot(name, _doc(module), ms, changed)
        return changed

    def apply(self, module: ModuleType) -> bool:
        """Run `module` on the kernel, then on each of its IR functions (unless KERNEL_ONLY)."""
        changed = bool(module.run(self.kernel, self.ctx))
        if module not in KERNEL_ONLY:
            for function in self.kernel.functions:
                changed |= bool(module.run(function, self.ctx))
        return changed

    def verify_all(self, name: str, typed: bool = True) -> None:
        for kernel in (self.kernel, *self.kernel.functions):
            verify(kernel, after=name, typed=typed)

    def simplify(self, label: str) -> None:
        """Run the simplify passes in turn until each has run once without a change since the
        last change (the fixed point: no round that only confirms it)."""
        start = time.perf_counter()
        steps = fixed_point_steps(
            lambda module: self.run_quiet(module, f"{_short_name(module)} ({label})")
        )
        self.timings[label] = (time.perf_counter() - start) * 1e3
        self.timings[f"{label} rounds"] = -(-steps // len(SIMPLIFY_PASSES))

    def run_quiet(self, module: ModuleType, name: str) -> bool:
        """Run a simplify sub-pass; it is recorded only if it changed something."""
        start = time.perf_counter()
        changed = self.apply(module)
        ms = (time.perf_counter() - start) * 1e3
        if changed:  # a sub-pass that changed nothing left the IR verified last time as it was
            if self.verify:
                self.verify_all(name)
            self.snapshot(name, _doc(module), ms)
        return changed


def kernel_uses_quant(kernel: Kernel) -> bool:
    """Whether `kernel` accesses a quantized field (only then does `lower_quant` run)."""
    return any(isinstance(s, GlobalPtr) and s.snode.quant for s in kernel.walk())


def kernel_uses_sparse(kernel: Kernel) -> bool:
    """Whether `kernel` loops over a sparse SNode path (only then does
    `demote_sparse_struct_fors` run)."""
    return any(
        isinstance(s, Offloaded) and s.snode is not None and not s.snode.is_path_all_dense()
        for s in kernel.body
    )


def _demote_struct_fors(runner: PassRunner, kernel: Kernel) -> None:
    runner.run(demote_dense_struct_fors)
    if kernel_uses_sparse(kernel):  # loops over the active cells only
        runner.run(demote_sparse_struct_fors)


def compile_to_final_ir(
    kernel: Kernel,
    ctx: PassContext,
    record: bool = False,
    echo: Callable[[str], None] | None = None,
    timings: dict[str, float] | None = None,
    marks: list[PassMark] | None = None,
    quiet: bool = False,
) -> list[PassRecord]:
    """Run the whole pipeline on `kernel` (frontend IR in, final IR out); return the records.
    `timings`, if given, receives ms per pass and per simplify group (and its rounds); `marks`
    a `PassMark` per pass that a record would show (no text printed). `quiet` publishes no
    events and verifies nothing (the rerun that prints deferred records, `passes/deferred.py`)."""
    _check_functions(kernel, ctx)
    runner = PassRunner(kernel, ctx, record, echo)
    if timings is not None:
        runner.timings = timings
    runner.marks = marks
    # quiet: a replay of a compile that ran (and was verified): no events, no verifying
    runner.publish, runner.announce, runner.verify = (
        flag and not quiet for flag in (runner.publish, runner.announce, runner.verify)
    )
    runner.snapshot("initial IR", "The frontend IR built from the Python AST.", 0.0)
    runner.run(lower_ast, typed=False)
    _check_sparse(kernel, ctx)
    for module in LOWERING_PASSES.get(ctx.config.arch, ()):
        runner.run(module, typed=False)
    runner.run(type_check)
    runner.run(scalarize)
    runner.simplify("simplify I")
    if kernel.autodiff_mode != "none":  # kernel.grad() or ti.ad.FwdMode
        runner.run(auto_diff)
        runner.simplify("simplify (autodiff)")
    if ctx.config.debug:  # bounds and division-by-zero checks (Taichi's check_out_of_bound)
        runner.run(insert_debug_checks)
    runner.run(offload)
    # No simplify group between here and lower_access: the two that ran after offload and
    # after make_thread_local (as Taichi's full_simplify calls do) changed the final IR of none
    # of 777 kernel compiles (the benchmarks' kernels and those of tests/differential, lang, ad,
    # passes, runtime, frontend, programs and ir) beyond where one constant sat, and they cost
    # ~4 ms of a 20-line kernel's ~30 ms compile. The last group cleans up after the passes in
    # between as well as after lower_access.
    runner.run(demote_atomics)
    _demote_struct_fors(runner, kernel)
    # per-thread copies assume that the task reaches the field only where it can see; a call
    # may reach it anywhere (ir/calls.py)
    if ctx.config.make_thread_local and not kernel.functions:
        runner.run(make_thread_local)
        if ctx.config.arch == "cpu":  # GPU threads are too many for a private copy each
            runner.run(privatize_fields)
        runner.run(demote_atomics, "demote_atomics II")
    if kernel_uses_quant(kernel):  # quantized fields: bit operations on their words
        runner.run(lower_quant)
    runner.run(lower_access)
    runner.run(demote_operations)
    runner.simplify("simplify II")
    if kernel.autodiff_mode == "reverse":
        runner.run(determine_ad_stack_size)
    for module in BACKEND_PASSES.get(ctx.config.arch, ()):
        runner.run(module)
    check_final_ir(kernel)  # always: a statement a pass missed is our bug, not the back end's
    return runner.records


def _check_functions(kernel: Kernel, ctx: PassContext) -> None:
    """IR functions run on the CPU only, and autodiff does not go through them."""
    if ctx.config.arch == "gpu":  # WGSL forbids recursion
        refuse_functions(kernel, "the GPU cannot run recursion (WGSL forbids it); run on ti.cpu")
    if kernel.autodiff_mode != "none":
        refuse_functions(kernel, "autodiff cannot differentiate through a recursive call")


def _check_sparse(kernel: Kernel, ctx: PassContext) -> None:
    """`ti.get_addr` gives an address in the CPU's memory: on the GPU it is refused at compile
    time. (Sparse SNodes themselves run on both: backends/webgpu/sparse.py.)"""
    if ctx.config.arch != "gpu":
        return
    for stmt in kernel.walk():
        if isinstance(stmt, GetAddr):
            raise TaichiCompilationError(
                "ti.get_addr() gives an address in the CPU's memory: not supported on the GPU",
                stmt.loc,
            )


def refuse_functions(kernel: Kernel, why: str) -> None:
    """A kernel with IR functions (recursive real functions) where they cannot go: the error
    names the first function and the line of its `def`."""
    if kernel.functions:
        function = kernel.functions[0]
        name = function.name.rsplit("_", 1)[0]  # as the user wrote it: sum_0 is `sum`
        raise TaichiCompilationError(
            f"kernel {kernel.name!r} calls the ti.real_func {name!r}, which calls itself: {why}",
            getattr(function, "loc", None),
        )
