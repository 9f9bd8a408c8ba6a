"""The names a kernel's signature text gives the fields and objects passed as templates.

`heat(u, v)` and `heat(v, u)` compile twice (a template field counts by identity), and the
cache view must say which field went where: `src=u: f32[128, 128]`, not the parameter's own
name. A field goes by the `name=` of `ti.field(..., name=...)` if it has one; else by the
variable that holds it where the kernel was called, if exactly one variable there does; else by
a short id that stays the same for the program's life (`field#3`, its SNode's id). Taichi
itself only names fields internally (`tmp0`) and shows no variable names.

The lookup walks the call stack, so it runs when a kernel compiles, never on a cached call.
A `Namer` belongs to one kernel under one program and remembers the names it gave, so that a
field keeps its name in every row and two different objects never share one.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import numpy as np

from tistudio.frontend.kernel_builder import ParamSpec


class Namer:
    """Names for the template objects of one kernel's calls (see the module docstring)."""

    def __init__(self) -> None:
        self._given: dict[int, tuple[Any, str]] = {}  # id -> (the object, its name)

    def labels(self, specs: list[ParamSpec], args: tuple) -> dict[int, str]:
        """Position -> name, for each template argument that is a field or an object."""
        out: dict[int, str] = {}
        namespaces: list[dict[str, Any]] | None = None
        for i, (spec, arg) in enumerate(zip(specs, args)):
            if spec.kind != "template" or not nameable(arg):
                continue
            label = self._known(arg) or _own_name(arg)
            if not label:
                if namespaces is None:
                    namespaces = caller_namespaces()
                label = self._unused(variable_name(arg, namespaces)) or self._short_id(arg)
            self._given[id(arg)] = (arg, label)
            out[i] = label
        return out

    def _known(self, arg: Any) -> str:
        known = self._given.get(id(arg))
        return known[1] if known is not None and known[0] is arg else ""

    def _unused(self, label: str) -> str:
        """`label`, unless another object already goes by it."""
        return "" if any(name == label for _, name in self._given.values()) else label

    def _short_id(self, arg: Any) -> str:
        if is_field(arg):
            return f"field#{arg._ti_place_snode.id}"
        kind = type(arg).__name__
        same = sum(1 for obj, _ in self._given.values() if type(obj) is type(arg))
        return f"{kind}#{same}"


def is_field(arg: Any) -> bool:
    """A field, vector field or struct field (an SNode handle has no dtype)."""
    return hasattr(arg, "_ti_place_snode") and hasattr(arg, "dtype")


def nameable(arg: Any) -> bool:
    """Template arguments that count by identity (`kernel_args.template_key`) and are worth a
    name: fields, and objects compared by identity (`@ti.data_oriented` instances, ...) whose
    `repr` is Python's default `<... object at 0x...>`; not numbers, strings, types, containers
    or objects with a `repr` of their own, which the signature text shows by `repr`."""
    if is_field(arg):
        return True
    if isinstance(arg, (list, tuple, dict, np.ndarray, type)):
        return False
    if type(arg).__repr__ is not object.__repr__:
        return False
    if getattr(type(arg), "_data_oriented", False):
        return True
    try:
        hash(arg)
    except TypeError:
        return True
    return type(arg).__eq__ is object.__eq__ and type(arg).__module__ != "builtins"


def _own_name(arg: Any) -> str:
    name = getattr(arg, "name", "") if is_field(arg) else ""
    return name if isinstance(name, str) else ""


def caller_namespaces() -> list[dict[str, Any]]:
    """The locals and globals of the innermost frame outside tistudio (the user's call)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _is_ours(frame):
        frame = frame.f_back
    if frame is None:
        return []
    return [frame.f_locals, frame.f_globals]


def _is_ours(frame: FrameType) -> bool:
    module = frame.f_globals.get("__name__", "")
    return isinstance(module, str) and (module == "tistudio" or module.startswith("tistudio."))


def variable_name(arg: Any, namespaces: list[dict[str, Any]]) -> str:
    """The one public variable of these namespaces that holds `arg`, or "" if none or several
    do (`a` and `u` holding the same field: neither name is reliably the user's)."""
    names = {
        name
        for namespace in namespaces
        for name, value in list(namespace.items())
        if value is arg and not name.startswith("_")
    }
    return names.pop() if len(names) == 1 else ""
