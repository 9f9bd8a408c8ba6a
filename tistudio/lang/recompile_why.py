"""Why a kernel compiled again: one sentence per cache miss.

A kernel compiles once per template signature (`Kernel._key`), so every compile after the first
was caused by some argument. When a kernel compiles, `describe` writes down what each parameter
brought (field `u: f32[128, 128]`, Python value `4`, ndarray of float32 in 1d); `explain`
then compares the new signature with each earlier one of the same kernel, takes the nearest
(fewest differing parameters; the latest of a tie) and names what differs and what the compile
cost. JAX's `jax_explain_cache_misses` does the same for `jit`. The words are also the
signature text the cache view shows (`ArgFacts.text`). Nothing here runs on a cache hit.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tistudio.frontend.kernel_builder import ParamSpec

SHOWN = 3  # differing parameters named in a sentence; the rest are counted ("and 2 more")


@dataclass(frozen=True)
class ArgFacts:
    """What one argument of one instantiation was, as far as the cache key cares.

    `kind` is "field", "object" (counted by identity), "value" (a Python value compiled in),
    "ndarray" or "runtime" (scalars, vectors, structs: passed at launch, never a recompile)."""

    param: str
    kind: str
    label: str = ""  # the field's or object's name, or the value's repr
    dtype: str = ""  # element type; an object's class
    shape: str = ""  # a field's "[128, 128]", an ndarray's "1d"
    elements: str = ""  # vector/matrix elements: " x [3]"
    grad: bool = False  # an ndarray whose `.grad` is passed too (reverse-mode kernels)

    @property
    def text(self) -> str:
        """This argument in a signature text: `src=u: f32[128, 128]`, `n=4`, `k: f32 (runtime)`."""
        named = self.param if self.label in ("", self.param) else f"{self.param}={self.label}"
        if self.kind == "field":
            return f"{named}: {self.dtype}{self.shape}{self.elements}"
        if self.kind == "object":
            return f"{named}: {self.dtype}"
        if self.kind == "value":
            return named
        if self.kind == "ndarray":
            grad = " with .grad" if self.grad else ""
            return f"{self.param}: ndarray[{self.dtype}, {self.shape}]{self.elements}{grad}"
        return f"{self.param}: {self.dtype} (runtime)"


class Earlier(Protocol):
    """An earlier instantiation (a `CacheEntry`): its cache key, facts and instance name."""

    signature: tuple
    facts: tuple[ArgFacts, ...]
    name: str


@dataclass(frozen=True)
class Reset:
    """`ti.init()` replaced the program a kernel had compiled under, dropping its cache."""

    dropped: int
    arch: str

    def words(self, arch: str) -> str:
        moved = f"; arch {self.arch} → {arch}" if arch != self.arch else ""
        plural = "" if self.dropped == 1 else "s"
        return f"{self.dropped} earlier instantiation{plural} dropped{moved}"


def describe(
    names: list[str],
    specs: list[ParamSpec],
    args: tuple,
    labels: dict[int, str],
    grads: tuple[int, ...] = (),
) -> tuple[ArgFacts, ...]:
    """The facts of each argument; `labels` names the fields and objects (`arg_names`), `grads`
    are the positions of the ndarrays whose `.grad` a reverse-mode kernel takes."""
    facts = [
        _facts(name, spec, arg, labels.get(i, ""))
        for i, (name, spec, arg) in enumerate(zip(names, specs, args))
    ]
    for i in grads:
        facts[i] = dataclasses.replace(facts[i], grad=True)
    return tuple(facts)


def _facts(name: str, spec: ParamSpec, arg: Any, label: str) -> ArgFacts:
    if spec.kind == "template" and hasattr(arg, "_ti_place_snode") and hasattr(arg, "dtype"):
        shape = list(getattr(arg, "shape", ()))
        elements = list(getattr(arg, "element_shape", ()) or ())
        more = f" x {elements}" if elements else ""
        return ArgFacts(name, "field", label, _dtype_text(arg.dtype), str(shape), more)
    if spec.kind == "template" and label:
        return ArgFacts(name, "object", label, type(arg).__name__)
    if spec.kind == "template":
        return ArgFacts(name, "value", repr(arg), type(arg).__name__)
    if spec.kind == "ndarray":
        arr = getattr(arg, "_ti_numpy_storage", arg)
        given = getattr(arg, "element_shape", None)
        edim = len(spec.element_shape)
        if given is not None:  # a ti.ndarray knows its elements
            elements = tuple(given)
        else:
            elements = tuple(arr.shape[arr.ndim - edim :]) if edim else ()
        more = f" x {list(elements)}" if elements else ""
        ndim = arr.ndim - len(elements)
        return ArgFacts(name, "ndarray", "", str(np.dtype(arr.dtype)), f"{ndim}d", more)
    return ArgFacts(name, "runtime", "", str(spec.dtype))


def _dtype_text(dtype: Any) -> str:
    """`f32`, or a struct field's members: `struct(a: f32, b: i32)`."""
    members = getattr(dtype, "members", None)
    if not isinstance(members, dict):
        return str(dtype)
    inner = ", ".join(f"{name}: {_dtype_text(t)}" for name, t in members.items())
    return f"struct({inner})"


def explain(
    kernel: str,
    key: tuple,
    facts: tuple[ArgFacts, ...],
    earlier: Sequence[Earlier],
    compile_ms: float,
    arch: str,
    reset: Reset | None = None,
) -> str:
    """The sentence for a miss: what differs from the nearest earlier instantiation, and what
    compiling cost; for the first, that it was the first call (since `ti.init()`, if a reset
    dropped earlier ones)."""
    cost = f"compiled in {compile_ms:.1f} ms"
    if not earlier:
        if reset is not None:
            return f"first call since ti.init() reset the cache ({reset.words(arch)}); {cost}"
        return f"first call of {kernel}; {cost}"
    candidates = [(_differing(e.signature, key, len(facts)), e) for e in reversed(earlier)]
    positions, nearest = min(candidates, key=lambda pair: len(pair[0]))
    parts = [_difference(i, nearest, key, facts) for i in positions[:SHOWN]]
    if len(positions) > SHOWN:
        parts.append(f"and {len(positions) - SHOWN} more")
    if not parts:  # the same key cannot miss; say so rather than nothing
        parts = ["no argument differs"]
    return f"{'; '.join(parts)} (nearest earlier: {nearest.name}); {cost}"


def headline(why: str) -> str:
    """The sentence of `explain` without its details, for a table cell: `src is field v, was
    u; dst is field u, was v`, `first call of heat`."""
    head = why.split(" (nearest earlier:")[0].split("; compiled in")[0]
    return re.sub(r"\s\([^()]*\)", "", head)


def _differing(old: tuple, new: tuple, params: int) -> list[int]:
    """Positions whose key parts differ; `params` stands for the key's tail (the ndarrays that
    bring a `.grad`, for autodiff kernels)."""
    out = [i for i in range(params) if old[i] != new[i]]
    if old[params:] != new[params:]:
        out.append(params)
    return out


def _difference(i: int, nearest: Earlier, key: tuple, facts: tuple[ArgFacts, ...]) -> str:
    if i == len(facts):
        names = [f.param for f in facts]
        now, was = _grads(key, names), _grads(nearest.signature, names)
        return f"ndarrays with a .grad: {now}, was {was}"
    old, new = nearest.facts[i], facts[i]
    if old.kind != new.kind:
        return f"{new.param} is {_what(new)}, was {_what(old)}"
    if new.kind == "field":
        return _field_difference(old, new)
    if new.kind == "object":
        return f"{new.param} is {new.label}, was {old.label} (objects count by identity)"
    if new.kind == "value":
        return f"template value {new.param} is {new.label}, was {old.label}"
    changed = _changes(old, new) or [f"{new.param} differs"]
    return f"ndarray {new.param}: {', '.join(changed)}"


def _field_difference(old: ArgFacts, new: ArgFacts) -> str:
    if old.label == new.label:
        head = f"{new.param} is another field named {new.label}"
    else:
        head = f"{new.param} is field {new.label}, was {old.label}"
    changes = _changes(old, new)
    if changes:
        return f"{head} ({', '.join(changes)})"
    return f"{head} (both {new.dtype}{new.shape}{new.elements}: fields count by identity)"


def _changes(old: ArgFacts, new: ArgFacts) -> list[str]:
    """`dtype f32 → f64`, `shape [8] → [16]`, ... for the facets that differ."""
    facets = (("dtype", old.dtype, new.dtype), ("shape", old.shape, new.shape))
    facets += (("elements", old.elements.strip(" x"), new.elements.strip(" x")),)
    return [f"{what} {a or 'none'} → {b or 'none'}" for what, a, b in facets if a != b]


def _what(facts: ArgFacts) -> str:
    if facts.kind == "field":
        return f"field {facts.label}"
    if facts.kind == "ndarray":
        return "an ndarray"
    return facts.label


def _grads(key: tuple, names: list[str]) -> str:
    positions = [p for p in key[len(names) + 1 :] if isinstance(p, int)]
    return ", ".join(names[p] for p in positions) or "none"
