"""Automatic differentiation (auto_diff): the kernel that `kernel.grad()` or `ti.ad.FwdMode` runs.

Reverse mode (`kernel.grad()`) turns the kernel into its adjoint: it runs the forward code again
for its values, then walks the statements backwards and, by the chain rule, adds each output's
gradient (`y.grad`) times a local derivative into the gradients of the inputs (`x.grad`). Each
parallel loop body (or a kernel with no loop) is differentiated on its own, and top-level loops
run in reverse order. Values that a reversed serial loop needs from every iteration are recorded
on autodiff stacks (`stack push` / `stack load top` / `stack pop`). Forward mode instead carries
a derivative (`x.dual`) next to every value, in program order. Validation mode (debug) checks
Taichi's global data access rule while the forward kernels run.
"""

from __future__ import annotations

from tistudio.ir.statements import RangeFor, StructFor
from tistudio.ir.stmt import Block, Kernel, Stmt
from tistudio.passes.autodiff import validation
from tistudio.passes.autodiff.common import forbid
from tistudio.passes.autodiff.forward import ForwardBlock
from tistudio.passes.autodiff.reverse import ReverseBlock
from tistudio.passes.context import PassContext
from tistudio.passes.util import is_pure


def run(kernel: Kernel, ctx: PassContext) -> bool:
    mode = kernel.autodiff_mode
    if mode == "none":
        return False
    if mode == "validation":  # a forward kernel under Tape(validation=True)
        validation.instrument(kernel)
        return True
    loops = [s for s in kernel.body if isinstance(s, (RangeFor, StructFor))]
    if not loops:  # a serial kernel is one independent block
        _differentiate(kernel.body, kernel, ctx)
        return True
    _check_simplicity(kernel, loops)
    for loop in loops:
        _differentiate(loop.body, kernel, ctx)
    if mode == "reverse":  # the last loop's gradients are needed first
        rest = [s for s in kernel.body if s not in loops]
        kernel.body.take_all()
        kernel.body.extend(rest + loops[::-1])
    return True


def _differentiate(block: Block, kernel: Kernel, ctx: PassContext) -> None:
    if kernel.autodiff_mode == "reverse":
        if ctx.config.debug:
            validation.check_overwrites(block)
        ReverseBlock(block, _grad_arguments(kernel)).run()
    else:
        ForwardBlock(block).run()


def _grad_arguments(kernel: Kernel) -> dict[int, int]:
    """ndarray parameter -> the parameter holding its `.grad` (`arr.grad`, added by the twin
    kernel after the declared parameters)."""
    index = {p.name: k for k, p in enumerate(kernel.params)}
    return {
        k: index[f"{p.name}.grad"] for k, p in enumerate(kernel.params) if f"{p.name}.grad" in index
    }


def _check_simplicity(kernel: Kernel, loops: list[Stmt]) -> None:
    """Taichi's kernel simplicity rule: a differentiated kernel is either only loops or has no
    loop at the top; we allow loop bounds and other pure values next to the loops."""
    for stmt in kernel.body:
        if stmt not in loops and not is_pure(stmt):
            forbid(
                stmt,
                "this kernel breaks the kernel simplicity rule of autodiff: its top level must "
                "be either only for-loops or no for-loop at all; move this statement into a "
                "loop or into another kernel",
            )
