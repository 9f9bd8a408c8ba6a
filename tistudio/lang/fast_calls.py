"""The fast path of a kernel call: find the compiled instance and launch it in a few steps.

A call's full template key (`Kernel._key`) inspects every argument; a cached tiny kernel cannot
afford that (Taichi's own launch costs 15-40 us, ours is meant to cost ~1-2 us). Calls whose
template arguments are all fields and whose arrays are NumPy arrays or ti.ndarrays are
therefore filed a second time, under a cheap key (`fast_key_function`), with a launch function
that takes the call's own arguments (`fast_hit`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tistudio.frontend.kernel_builder import ParamSpec
from tistudio.lang import kernel_args as args_

# launch(the call's arguments, SNode tree addresses) -> the kernel's returns
Launch = Callable[[tuple, Sequence[int]], tuple]
# (cache entry, its launch, the runtime arguments of a call, for the "launched" event)
FastHit = tuple[Any, Launch, Callable[[tuple], Any]]


def picker(positions: tuple[int, ...]) -> Callable[[tuple], tuple]:
    """`args -> tuple(args[i] for i in positions)`, as one C call."""
    if len(positions) == 1:
        index = positions[0]
        return lambda args: (args[index],)
    return operator.itemgetter(*positions) if positions else lambda args: ()


def fast_key_function(specs: list[ParamSpec]) -> Callable[[tuple], tuple] | None:
    """A cheap key for calls whose template arguments are all fields: the template objects
    themselves (fields hash and compare by identity, as the full key does), plus, per ndarray
    argument, a NumPy array's dtype and dimensions (its element axes, where the parameter
    declares them), or the type, dtype, dimensions and element shape of anything else. None for
    kernels with other argument kinds.

    With ndarray parameters the key is written out as Python for them (`_numpy_key`) where
    every array is a NumPy array: the loop over the parameters cost ~0.3 us of a ~2 us call."""
    if any(s.kind not in ("template", "scalar", "ndarray") for s in specs):
        return None
    templates = tuple(i for i, s in enumerate(specs) if s.kind == "template")
    arrays = tuple((i, len(s.element_shape)) for i, s in enumerate(specs) if s.kind == "ndarray")
    pick = picker(templates)
    if not arrays:
        return pick
    ndarray = np.ndarray

    def key(args: tuple) -> tuple:
        parts = []
        for i, element_axes in arrays:
            a = args[i]
            if type(a) is ndarray:
                parts.append(a.dtype)
                parts.append(a.shape[a.ndim - element_axes :] if element_axes else a.ndim)
            else:
                parts.append(
                    (
                        type(a),
                        getattr(a, "dtype", None),
                        getattr(a, "ndim", None),
                        getattr(a, "element_shape", None),
                    )
                )
        return pick(args) + tuple(parts)

    return _numpy_key(templates, arrays, key)


def _numpy_key(
    templates: tuple[int, ...],
    arrays: tuple[tuple[int, int], ...],
    general: Callable[[tuple], tuple],
) -> Callable[[tuple], tuple]:
    """`general`, written out for the kernel's parameters where every array is a NumPy array
    (the same key, computed without a loop), calling `general` for anything else."""
    names = [f"a{i}" for i, _ in arrays]
    parts = [f"args[{i}]" for i in templates]
    for name, (_, element_axes) in zip(names, arrays):
        dims = f"{name}.shape[{name}.ndim - {element_axes}:]" if element_axes else f"{name}.ndim"
        parts += [f"{name}.dtype", dims]
    source = "\n".join(
        [
            "def key(args):",
            *(f"    {name} = args[{i}]" for name, (i, _) in zip(names, arrays)),
            "    if " + " and ".join(f"type({name}) is ndarray" for name in names) + ":",
            f"        return ({', '.join(parts)},)",
            "    return general(args)",
            "",
        ]
    )
    env: dict[str, Any] = {"ndarray": np.ndarray, "general": general}
    exec(compile(source, "<kernel call key>", "exec"), env)  # noqa: S102
    return env["key"]


def fast_hit(entry: Any, specs: list[ParamSpec], args: tuple) -> FastHit | None:
    """What the fast path needs for `entry` (a `CacheEntry`) when every template argument of
    `args` is a field and every array a NumPy array or a ti.ndarray, else None: the entry, its
    launch, and how to pick the runtime arguments from such a call (the arguments themselves for
    fields, scalars and NumPy arrays, whose layout the executable checks; unwrapped for
    ti.ndarrays)."""
    kinds = [s.kind for s in specs]
    if not all(hasattr(a, "_ti_place_snode") for a, k in zip(args, kinds) if k == "template"):
        return None
    arrays = [a for a, k in zip(args, kinds) if k == "ndarray"]
    if not all(type(a) is np.ndarray or hasattr(a, "_ti_numpy_storage") for a in arrays):
        return None
    if entry.pick is not None:
        pick, positional = entry.pick, True
    elif entry.flat_args and all(type(a) is np.ndarray for a in arrays):
        pick, positional = picker(entry.runtime_positions), True
    else:
        pick, positional = functools.partial(_unwrapped_args, entry, specs), False
    return entry, _launch(entry, pick, positional), pick


def _launch(entry: Any, pick: Callable[[tuple], Any], positional: bool) -> Launch:
    """How the fast path launches `entry` with a call's arguments: the executable's own launch
    function for them where it makes one (the CPU's, when `pick` only selects arguments by
    position), else its `launch` of what `pick` makes of them."""
    make = getattr(entry.instance, "launcher", None)
    if positional and make is not None:
        return make(entry.runtime_positions)
    launch = entry.instance.launch
    return lambda args, roots: launch(pick(args), roots)


def _unwrapped_args(entry: Any, specs: list[ParamSpec], args: tuple) -> Any:
    return args_.runtime_args(entry, args, specs)
