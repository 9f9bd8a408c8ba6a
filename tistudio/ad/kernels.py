"""The autodiff twins of a kernel, for callers that think in `ti.ad` terms (the studio, `Tape`).

A twin is the same `@ti.kernel` compiled in another autodiff mode (`lang/autodiff_mode.py`);
`Kernel.twin` makes and keeps it. These two functions name that for `ti.ad`'s readers.
"""

from __future__ import annotations

from tistudio.lang.kernel import Kernel


def twin(kernel: Kernel, mode: str) -> Kernel:
    """`kernel`'s autodiff version for `mode` ("reverse", "forward" or "validation")."""
    return kernel.twin(mode)


def twins_of(kernel: Kernel) -> list[Kernel]:
    """The autodiff versions of `kernel` made so far (`kernel.grad`, ...)."""
    return kernel.twins()
