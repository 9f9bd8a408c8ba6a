"""`ti.ad`: the user side of automatic differentiation.

`kernel.grad` (see `kernels.py`) is a kernel compiled through the `auto_diff` pass. `Tape`
records the kernels launched inside a `with` block and, on leaving it, sets `loss.grad` to 1 and
runs their adjoints in reverse order; `FwdMode` runs them in forward mode instead, carrying
`.dual` values from a seed. Bookkeeping follows Taichi 1.7: adjoint kernels accumulate into
`.grad` (so repeated `grad()` calls add up) and `Tape` clears every gradient when it starts.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from tistudio.ad.grad_check import GradChecker
from tistudio.ir.snode import SNode
from tistudio.lang import impl
from tistudio.lang.snode import lazy_grad

__all__ = [
    "FwdMode",
    "Tape",
    "clear_all_gradients",
    "grad_for",
    "grad_replaced",
    "lazy_grad",
    "no_grad",
]


class _Scope:
    """What `Kernel.__call__` consults while a Tape or FwdMode is open (`program.ad_scope`)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple]] = []
        self.replaced = 0  # > 0 inside a grad_replaced / no_grad function

    def _open(self) -> None:
        program = impl.get_program()
        if program.ad_scope is not None:
            raise RuntimeError("a ti.ad.Tape or ti.ad.FwdMode is already open")
        program.ad_scope = self

    def _close(self) -> None:
        impl.get_program().ad_scope = None

    def record(self, func: Any, args: tuple) -> None:
        if not self.replaced:
            self.calls.append((func, args))

    def intercept(self, kernel: Any, args: tuple) -> bool:
        """Called for every kernel launch: True if `run_instead` must run it."""
        if getattr(kernel, "autodiff_mode", "none") == "none":
            self.record(kernel, args)
        return False

    def run_instead(self, kernel: Any, args: tuple) -> Any:
        raise AssertionError("only FwdMode replaces kernels")


class Tape(_Scope):
    """`with ti.ad.Tape(loss=loss): f(); g()` then `x.grad` holds d loss / d x."""

    def __init__(
        self,
        loss: Any = None,
        clear_gradients: bool = True,
        validation: bool = False,
        grad_check: Any = None,
    ) -> None:
        super().__init__()
        self.loss, self.clear_gradients = loss, clear_gradients
        self.entered = self.evaluated = False
        self.checker = None
        if grad_check:
            if not isinstance(grad_check, list):
                raise TypeError(
                    "grad_check should be a list of fields that need to check gradients."
                )
            self.checker = GradChecker(loss, grad_check)
        self.validation = validation and impl.get_program().config.debug
        if validation and not self.validation:
            warnings.warn(
                "Debug mode is disabled, autodiff valid check will not work. Please specify "
                "`ti.init(debug=True)` to enable the check.",
                stacklevel=2,
            )

    def __enter__(self) -> Tape:
        if self.entered:
            raise RuntimeError("a Tape can be entered only once")
        self.entered = True
        if self.loss is not None:
            _check_loss(self.loss)
            if self.clear_gradients:
                clear_all_gradients()
            if self.validation:
                clear_all_gradients("checkbit")
            self.loss.fill(0.0)
        self._open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._close()
        if self.loss is not None and exc[0] is None:
            self.grad()

    def insert(self, func: Any, args: tuple) -> None:
        self.calls.append((func, args))

    def intercept(self, kernel: Any, args: tuple) -> bool:
        """Record the launch; with validation, run the checking version of the kernel."""
        super().intercept(kernel, args)
        return self.validation and getattr(kernel, "autodiff_mode", "none") == "none"

    def run_instead(self, kernel: Any, args: tuple) -> Any:
        return kernel.twin("validation")(*args)

    def grad(self) -> None:
        """Set `loss.grad` to 1 and run the recorded adjoints, last launch first."""
        if self.evaluated:
            raise RuntimeError("the gradients of a Tape can be evaluated only once")
        self.loss.grad.fill(1.0)
        for func, args in reversed(self.calls):
            if getattr(func, "grad", None) is not None:
                func.grad(*args)
        self.evaluated = True
        if self.checker is not None:
            self.checker.check(self.calls)


class FwdMode(_Scope):
    """`with ti.ad.FwdMode(loss=y, param=x, seed=[...]): f()` then `y.dual` holds the
    derivative of `y` along `seed` (a Jacobian-vector product)."""

    def __init__(self, loss: Any, param: Any, seed: Any = None, clear_gradients: bool = True):
        super().__init__()
        self.loss = loss if isinstance(loss, list) else [loss]
        self.param, self.seed, self.clear_gradients = param, seed, clear_gradients

    def __enter__(self) -> FwdMode:
        impl.get_program().materialize()
        size = int(np.prod(self.param.shape)) if self.param.shape else 1
        if not self.seed:
            if size != 1:
                raise RuntimeError(
                    "`seed` is not set for non 0-D field, please specify. `seed` is a list "
                    "giving, per element of `param`, the weight of its derivative"
                )
            self.seed = [1.0]
        elif len(self.seed) != size:
            raise ValueError(f"`seed` has {len(self.seed)} values, `param` has {size}")
        if self.clear_gradients:
            clear_all_gradients("dual")
        self._set_seed(self.seed)
        self._open()
        return self

    def _set_seed(self, seed: list) -> None:
        dual = self.param.dual
        if len(seed) == 1:
            dual[None if not self.param.shape else 0] = float(seed[0])
        else:
            dual.from_numpy(np.array(seed, dtype=np.float32).reshape(self.param.shape))

    def __exit__(self, *exc: Any) -> None:
        self._close()
        if len(self.seed) == 1:
            self._set_seed([0.0])
        else:
            self.param.dual.fill(0)

    def intercept(self, kernel: Any, args: tuple) -> bool:
        return getattr(kernel, "autodiff_mode", "none") == "none" and not self.replaced

    def run_instead(self, kernel: Any, args: tuple) -> Any:
        return kernel.twin("forward")(*args)


def _check_loss(loss: Any) -> None:
    impl.get_program().materialize()
    if hasattr(loss, "_ti_numpy_storage"):  # a ti.ndarray of one element
        if loss._ti_numpy_storage.size != 1:
            raise RuntimeError("The loss of `Tape` must be an ndarray with only one element")
        if loss.grad is None:
            raise RuntimeError(
                "Gradients of loss are not allocated, please set needs_grad=True for all "
                "ndarrays that are required by autodiff."
            )
        return
    if not hasattr(loss, "_ti_place_snode") or len(loss.shape) != 0:
        raise RuntimeError("The loss of `Tape` must be a 0-D field, i.e. scalar")
    if loss.grad is None or loss.grad._snode is None:
        raise RuntimeError(
            "Gradients of loss are not allocated, please use ti.field(..., needs_grad=True)"
            " for all fields that are required by autodiff."
        )


def _places(program: Any) -> list[SNode]:
    out: list[SNode] = []

    def visit(node: SNode) -> None:
        for child in node.children:
            out.append(child) if child.type == "place" else visit(child)

    for tree in program.trees:
        visit(tree.root)
    return out


def clear_all_gradients(kind: str = "adjoint") -> None:
    """Zero every `.grad` field (`kind="dual"`: every `.dual` field) of the program."""
    program = impl.get_program()
    program.materialize()
    fields = program.fields_by_snode
    for place in _places(program):
        other = getattr(place, kind)
        if other is not None and other.id in fields:
            fields[other.id].fill(0)


def _replaced(func: Callable[..., Any], grad: Any) -> Callable[..., Any]:
    @functools.wraps(func)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        scope = impl.get_program().ad_scope
        if scope is None:
            return func(*args, **kwargs)
        scope.record(decorated, args)
        scope.replaced += 1
        try:
            return func(*args, **kwargs)
        finally:
            scope.replaced -= 1

    decorated.grad = grad  # type: ignore[attr-defined]
    decorated.autodiff_mode = "none"  # type: ignore[attr-defined]
    return decorated


def grad_replaced(func: Callable[..., Any]) -> Callable[..., Any]:
    """Let `Tape` call the function given by `@ti.ad.grad_for(func)` instead of the adjoints
    of the kernels `func` launches."""
    return _replaced(func, None)


def grad_for(primal: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the gradient of `primal` (a `grad_replaced`)."""
    if not hasattr(primal, "grad"):
        raise RuntimeError(
            f"Primal function `{primal.__name__}` must be decorated by ti.ad.grad_replaced"
        )
    if primal.grad is not None:  # type: ignore[attr-defined]
        raise RuntimeError(
            "Primal function must be a **python** function instead of a taichi kernel. Please "
            "wrap the taichi kernel in a @ti.ad.grad_replaced decorated python function instead."
        )

    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        primal.grad = func  # type: ignore[attr-defined]
        return func

    return decorator


def no_grad(func: Callable[..., Any]) -> Callable[..., Any]:
    """A function whose kernels `Tape` does not differentiate (its gradient is nothing)."""
    return _replaced(func, lambda *args, **kwargs: None)
