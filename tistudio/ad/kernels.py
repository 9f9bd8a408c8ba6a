"""The autodiff twins of a kernel: `kernel.grad` (reverse mode) and the forward-mode kernel.

A twin is a `Kernel` of the same Python function whose instantiations are compiled with the
IR's `autodiff_mode` set, so the pipeline runs the `auto_diff` pass on them. It has its own
cache (primal, adjoint and forward instantiations never share an entry) and its own name
suffix, as in Taichi (`f_c3_0_reverse_grad`), and `compile_report` shows its passes.
"""

from __future__ import annotations

from typing import Any

from tistudio.lang.kernel import Kernel

SUFFIX = {"reverse": "_reverse_grad", "forward": "_forward_grad"}


class AutodiffKernel(Kernel):
    """The reverse-mode or forward-mode version of a `@ti.kernel`."""

    def __init__(self, primal: Kernel, mode: str) -> None:
        super().__init__(primal.fn)
        self.autodiff_mode = mode
        self.primal = primal

    def _compile(self, name: str, args: tuple, specs: list, program: Any, record: bool) -> Any:
        return super()._compile(
            name, args, specs, _ModeProgram(program, self.autodiff_mode), record
        )


class _ModeProgram:
    """The program, except that what it compiles is marked for autodiff mode `mode`."""

    def __init__(self, program: Any, mode: str) -> None:
        self._program, self._mode = program, mode

    def __getattr__(self, name: str) -> Any:
        return getattr(self._program, name)

    def compile(self, kernel: Any, record: bool = False, echo: Any = None, source: str = "") -> Any:
        kernel.autodiff_mode = self._mode
        kernel.name += SUFFIX[self._mode]
        source = f"{source}\n# autodiff: {self._mode}"  # the offline cache keys it apart
        return self._program.compile(kernel, record=record, echo=echo, source=source)


def twin(kernel: Kernel, mode: str) -> Kernel:
    """`kernel`'s autodiff version for `mode`, made once and kept on the kernel."""
    twins = kernel.__dict__.setdefault("_autodiff_twins", {})
    if mode not in twins:
        twins[mode] = AutodiffKernel(kernel, mode)
    return twins[mode]
