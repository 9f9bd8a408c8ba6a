"""Autodiff as a compile mode of a `@ti.kernel`: what a kernel's mode changes, in one place.

`f.grad` (reverse mode), the forward-mode kernel `ti.ad.FwdMode` runs and the checking kernel
of `ti.ad.Tape(validation=True)` are `Kernel`s of `f`'s Python function whose `autodiff_mode`
is not "none". The mode goes into their template key and into the IR they compile (so the
pipeline runs the `auto_diff` pass, and the disk cache keys them apart from `f`); their
instances carry Taichi's names (`f_c3_0_reverse_grad`). In reverse mode, a `ti.ndarray`
argument that has a `.grad` passes it as one more ndarray parameter, named `<name>.grad`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tistudio.frontend.kernel_builder import ParamSpec
from tistudio.ir.stmt import Kernel as KernelIR

MODES = ("none", "reverse", "forward", "validation")
SUFFIX = {"reverse": "_reverse_grad", "forward": "_forward_grad", "validation": "_validate_grad"}
LABEL = {"reverse": ".grad", "forward": ".forward_mode", "validation": ".validation"}


def instance_name(name: str, mode: str) -> str:
    """The name of an instance compiled in `mode` (`f_c3_0` -> `f_c3_0_reverse_grad`)."""
    return name + SUFFIX.get(mode, "")


def grad_positions(mode: str, specs: list[ParamSpec], args: tuple) -> tuple[int, ...]:
    """The ndarray parameters whose arguments bring a `.grad` (reverse mode only)."""
    if mode != "reverse":
        return ()
    return tuple(
        i for i, (s, a) in enumerate(zip(specs, args)) if s.kind == "ndarray" and _grad_of(a)
    )


def mark(ir: KernelIR, mode: str, specs: list[ParamSpec], positions: tuple[int, ...]) -> None:
    """Set `ir`'s mode and append a parameter for the `.grad` of each ndarray at `positions`."""
    ir.autodiff_mode = mode
    for name in (specs[i].name for i in positions):
        param = next(p for p in ir.params if p.name == name)
        ir.params.append(dataclasses.replace(param, name=f"{name}.grad"))


def grad_arrays(args: tuple, positions: tuple[int, ...]) -> list[Any]:
    """The NumPy storage of the `.grad` of the arguments at `positions`, in order."""
    return [args[i].grad._ti_numpy_storage for i in positions]


def _grad_of(arg: Any) -> Any:
    """The `.grad` of a `ti.ndarray` argument, or None (fields and NumPy arrays: None)."""
    return getattr(arg, "grad", None) if hasattr(arg, "_ti_numpy_storage") else None
