"""`ti.ad.Tape(loss, grad_check=[x, ...])`: Taichi's check of gradients by finite differences.

When the Tape has run the adjoints, each listed field is moved along a random direction `t` by
+-eps, the recorded kernels run again from the field values saved when the Tape was made, and
the directional derivative (L(x + eps t) - L(x - eps t)) / 2 eps must match `sum(x.grad * t)`
within 1% for some eps in 2^-3 ... 2^-29, as in Taichi 1.7. The fields are restored and the
kernels run once more at the end, so the program is left as the Tape left it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.ir.types import f64
from tistudio.lang import impl


def _primal_fields() -> list[Any]:
    fields = impl.get_program().fields_by_snode
    return [f for f in fields.values() if f._primal is None]


class GradChecker:
    """Saves every field when the Tape is made; `check(calls)` after the adjoints have run."""

    def __init__(self, loss: Any, to_check: list[Any]) -> None:
        impl.get_program().materialize()
        self.loss, self.to_check = loss, to_check
        self.fields = _primal_fields()
        self.backups = [f.to_numpy() for f in self.fields]
        self.rng = np.random.default_rng()

    def _replay(self, calls: list, x: Any = None, shift: np.ndarray | None = None) -> float:
        for f, saved in zip(self.fields, self.backups):
            f.from_numpy(saved)
        if x is not None:
            x.from_numpy(x.to_numpy() + shift)
        for func, args in calls:
            func(*args)
        return float(self.loss[None])

    def _passes(self, x: Any, calls: list) -> bool:
        errors = []
        for eps in 2.0 ** np.arange(-3, -30, -2):
            tangent = self.rng.random(x.grad.to_numpy().shape)
            numerical = (
                (self._replay(calls, x, eps * tangent) - self._replay(calls, x, -eps * tangent))
                * 0.5
                / eps
            )
            autodiff = float(np.sum(x.grad.to_numpy() * tangent))
            err = abs(autodiff - numerical)
            errors.append(err / (abs(autodiff) + (1e-20 if numerical == 0 else 0.0)))
            if err * 100 <= abs(autodiff):
                return True
        print(
            "variable",
            self.to_check.index(x),
            "has relative error",
            min(errors),
            ", expected relative error 0.01",
        )
        return False

    def check(self, calls: list) -> None:
        if self.loss.dtype != f64:
            raise AssertionError("Only f64 is supported when checking grad.")
        results = []
        for i, x in enumerate(self.to_check):
            ok = x is self.loss or self._passes(x, calls)
            if ok and x is not self.loss:
                print("variable", i, "passes grad check")
            results.append(ok)
        self._replay(calls)
        assert all(results), "Grad check failed: Not all variables pass grad check"
