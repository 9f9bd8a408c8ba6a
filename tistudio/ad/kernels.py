"""The autodiff twins of a kernel: `kernel.grad` (reverse mode) and the forward-mode kernel.

A twin is a `Kernel` of the same Python function whose instantiations are compiled with the
IR's `autodiff_mode` set, so the pipeline runs the `auto_diff` pass on them. It has its own
cache (primal, adjoint and forward instantiations never share an entry) and its own name
suffix, as in Taichi (`f_c3_0_reverse_grad`), and `compile_report` shows its passes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tistudio.lang.kernel import Kernel

SUFFIX = {"reverse": "_reverse_grad", "forward": "_forward_grad", "validation": "_validate_grad"}
LABEL = {"reverse": ".grad", "forward": ".forward_mode", "validation": ".validation"}


class AutodiffKernel(Kernel):
    """The reverse-mode or forward-mode version of a `@ti.kernel`, shown as `f.grad`."""

    def __init__(self, primal: Kernel, mode: str) -> None:
        super().__init__(primal.fn)
        self.autodiff_mode = mode
        self.primal = primal
        self.__name__ = primal.__name__ + LABEL[mode]
        self._grad_arrays: list[Any] = []  # of the current call's ndarray arguments

    def _taichi_name(self, name: str) -> str:
        """`f.grad_c3_0` -> `f_c3_0_reverse_grad`, as Taichi names the adjoint instance."""
        if name.startswith(self.__name__):
            name = self.primal.__name__ + name[len(self.__name__) :]
        suffix = SUFFIX[self.autodiff_mode]
        return name if name.endswith(suffix) else name + suffix

    # --- ndarrays with gradients: `arr.grad` travels as one more ndarray argument ----------

    def _with_grad(self, args: tuple, specs: list) -> list[str]:
        """Names of the ndarray parameters whose arguments have `.grad` (reverse mode)."""
        if self.autodiff_mode != "reverse":
            return []
        return [s.name for s, a in zip(specs, args) if s.kind == "ndarray" and _grad_of(a)]

    def _key(self, args: tuple, specs: list) -> tuple:
        return (*super()._key(args, specs), *self._with_grad(args, specs))

    def _reset_for(self, program: Any) -> None:
        super()._reset_for(program)
        self._fast_key = None  # the full key: it knows which ndarrays bring a gradient

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = self._bind(args, kwargs)
        self._grad_arrays = [_grad_of(a)._ti_numpy_storage for a in args if _grad_of(a)]
        return super().__call__(*args)

    def _compile(self, name: str, args: tuple, specs: list, program: Any, record: bool) -> Any:
        name = self._taichi_name(name)
        mode = _ModeProgram(program, self.autodiff_mode, self._with_grad(args, specs))
        return super()._compile(name, args, specs, mode, record)

    def _instantiate(self, key: tuple, args: tuple, specs: list, program: Any) -> Any:
        entry = super()._instantiate(key, args, specs, program)
        entry.name = self._taichi_name(entry.name)
        if self._with_grad(args, specs):
            entry.instance = _GradArguments(entry.instance, self)
        return entry


def _grad_of(arg: Any) -> Any:
    """The `.grad` of a `ti.ndarray` argument, or None (fields and NumPy arrays: None)."""
    return getattr(arg, "grad", None) if hasattr(arg, "_ti_numpy_storage") else None


class _GradArguments:
    """A compiled adjoint whose launches also pass the `.grad` arrays of its ndarray args."""

    def __init__(self, instance: Any, kernel: AutodiffKernel) -> None:
        self._instance, self._kernel = instance, kernel

    def __getattr__(self, name: str) -> Any:
        return getattr(self._instance, name)

    def launch(self, runtime_args: Any, roots: Any) -> Any:
        return self._instance.launch([*runtime_args, *self._kernel._grad_arrays], roots)


class _ModeProgram:
    """The program, except that what it compiles is marked for autodiff mode `mode`."""

    def __init__(self, program: Any, mode: str, with_grad: list[str]) -> None:
        self._program, self._mode, self._with_grad = program, mode, with_grad

    def __getattr__(self, name: str) -> Any:
        return getattr(self._program, name)

    def compile(self, kernel: Any, *args: Any, **kwargs: Any) -> Any:
        """`Program.compile(kernel, record, echo, source, ...)` for the twin's IR."""
        kernel.autodiff_mode = self._mode
        for name in self._with_grad:  # arr.grad: a parameter after the declared ones
            param = next(p for p in kernel.params if p.name == name)
            kernel.params.append(dataclasses.replace(param, name=f"{name}.grad"))
        mark = f"\n# autodiff: {self._mode}"  # in `source`, so the offline cache keys it apart
        if len(args) >= 3:
            args = (*args[:2], args[2] + mark, *args[3:])
        else:
            kwargs["source"] = kwargs.get("source", "") + mark
        return self._program.compile(kernel, *args, **kwargs)


def twin(kernel: Kernel, mode: str) -> Kernel:
    """`kernel`'s autodiff version for `mode`, made once and kept on the kernel."""
    twins = kernel.__dict__.setdefault("_autodiff_twins", {})
    if mode not in twins:
        twins[mode] = AutodiffKernel(kernel, mode)
    return twins[mode]


def twins_of(kernel: Kernel) -> list[Kernel]:
    """The autodiff versions of `kernel` made so far (`kernel.grad`, ...), for the studio."""
    return list(kernel.__dict__.get("_autodiff_twins", {}).values())
