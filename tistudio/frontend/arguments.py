"""Binding a call's arguments to a kernel's or a `ti.func`'s parameters, as Taichi binds them.

Taichi fills the parameters from left to right with the positional arguments, then by name
with the keyword arguments, then with the defaults, and reports the first mistake it meets
in that order: too many arguments, a parameter given twice, a name that is no parameter, a
parameter left without a value. Its messages ("Parameter `a : i32` missing.") are what Taichi
programs' tests look for, so ours carry them, after saying which kernel or function is called.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

from tistudio.frontend.errors import TaichiArgumentError


def is_plain(sig: inspect.Signature) -> bool:
    """Parameters Taichi's binder knows: positional-or-keyword (or positional-only) ones."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return all(p.kind in kinds for p in sig.parameters.values())


def bind_arguments(
    what: str,
    sig: inspect.Signature,
    args: tuple | list,
    kwargs: dict[str, Any],
    resolve: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """The value of each parameter of `sig` for this call, in parameter order. `what` names
    the callee in the messages ("kernel 'foo'", "ti.func 'bar'"); `resolve` turns a string
    annotation (`from __future__ import annotations`) into the type it names, for them."""
    params = list(sig.parameters.values())
    if len(args) > len(params):
        expected = ", ".join(_describe(p, resolve) for p in params)
        given = ", ".join(map(str, args))
        raise TaichiArgumentError(
            f"{what} takes {len(params)} argument(s), {len(args)} given: Too many arguments. "
            f"Expected ({expected}), got ({given})."
        )
    values: dict[str, Any] = {p.name: p.default for p in params}
    for p, value in zip(params, args):
        values[p.name] = value
    for key, value in kwargs.items():
        if key not in values:
            names = ", ".join(p.name for p in params)
            raise TaichiArgumentError(
                f"{what} got an unexpected keyword argument '{key}' (its parameters are "
                f"{names or 'none'}): Unexpected argument '{key}'."
            )
        if [p.name for p in params].index(key) < len(args):
            raise TaichiArgumentError(
                f"{what} got multiple values for argument '{key}' (by position and by "
                f"name): Multiple values for argument '{key}'."
            )
        values[key] = value
    for p in params:
        if values[p.name] is inspect.Parameter.empty:
            raise TaichiArgumentError(
                f"{what} is missing a value for its parameter '{p.name}': "
                f"Parameter `{_describe(p, resolve)}` missing."
            )
    return values


def _describe(p: inspect.Parameter, resolve: Callable[[Any], Any] | None) -> str:
    """`a : i32` for an annotated parameter, `a` for one without, as Taichi prints them."""
    if p.annotation is inspect.Parameter.empty:
        return p.name
    ann = p.annotation
    if isinstance(ann, str) and resolve is not None:
        with contextlib.suppress(Exception):  # a name it cannot resolve is printed as written
            ann = resolve(ann)
    return f"{p.name} : {ann}"
