"""The Python half of a CPU kernel's launch, written out for each kernel as Python source.

A launch of a cached tiny kernel is mostly Python: store each argument in the argument
buffer, take the kernel's lock, call the native launcher, read the return values. Done by
generic code (a loop over setter functions, `with lock:`) that cost ~1.2 us on these machines;
written out for the kernel's own parameters (`cell0.value = args[2]`, explicit `acquire()`
and `release()`), ~0.5 us. So each executable's launch function is generated here and compiled
with `exec` (~0.1 ms, once per kind of parameter list), as `dataclasses` writes `__init__`.
The function keeps its source in `__source__` for whoever wants to read it.

`positions` says where each of the kernel's runtime arguments is in the `args` the function
gets: `range(n)` for the runtime arguments themselves (`CpuExecutable.launch`), or their
places among the arguments of the Python call (`Kernel.__call__`, where fields are not
runtime arguments).
"""

from __future__ import annotations

import functools
import threading
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

LaunchFunction = Callable[[Sequence[Any], Sequence[int]], tuple]


@dataclass(frozen=True)
class ArgumentStore:
    """How one runtime argument reaches the argument buffer: `cell.value = arg` for a plain
    scalar (a ctypes object over its slot), else `store(arg)`. `store` always works and raises
    the error that names the parameter; the generated code calls it for a scalar only when the
    plain assignment failed, to say why. An array's store may skip what it wrote last time:
    with `reuse` (whose `last()` is the last array stored and `shape` its shape), the generated
    code checks that itself and calls `store` only for another array or shape."""

    store: Callable[[Any], None]
    cell: Any = None
    reuse: Any = None


def launch_function(
    name: str,
    positions: Sequence[int],
    stores: Sequence[ArgumentStore],
    getters: Sequence[Callable[[], Any]],
    state: Any,
    lock: threading.Lock,
    writes_roots: bool,
) -> LaunchFunction:
    """`launch(args, roots)` for kernel `name`: store `args[positions[k]]` with `stores[k]`,
    write the SNode tree addresses when `roots` is a list not written yet (`writes_roots`:
    `state.write_roots`), call `state.run()` and return each getter's value, all under `lock`.
    `state.run` is read at each launch because the optimised tier replaces it."""
    assert len(positions) == len(stores)
    env: dict[str, Any] = {
        "acquire": lock.acquire,
        "release": lock.release,
        "state": state,
        "explain": _explainer(positions, stores),
    }
    lines = []
    for k, (position, store) in enumerate(zip(positions, stores)):
        if store.cell is not None:
            env[f"cell{k}"] = store.cell
            lines.append(f"cell{k}.value = args[{position}]")
        elif store.reuse is not None:
            env[f"store{k}"], env[f"reuse{k}"] = store.store, store.reuse
            lines.append(f"a{k} = args[{position}]")
            lines.append(f"if reuse{k}.last() is not a{k} or a{k}.shape != reuse{k}.shape:")
            lines.append(f"    store{k}(a{k})")
        else:
            env[f"store{k}"] = store.store
            lines.append(f"store{k}(args[{position}])")
    for k, getter in enumerate(getters):
        env[f"get{k}"] = getter
    body = []
    if lines:  # a failed plain store is explained by the setter that names the parameter
        body += ["try:", *_indented(lines), "except TypeError:", "    explain(args)", "    raise"]
    if writes_roots:  # a program's tree addresses never change once written
        body += ["if roots is not state.roots_written:", "    state.write_roots(roots)"]
    returns = "".join(f"get{k}(), " for k in range(len(getters)))
    body += ["state.run()", f"return ({returns})"]
    source = "\n".join(
        ["def launch(args, roots):", "    acquire()", "    try:", *_indented(body, 2)]
        + ["    finally:", "        release()", ""]
    )
    exec(_compiled(source), env)  # noqa: S102
    launch = env["launch"]
    launch.__source__ = source
    launch.__qualname__ = f"launch_{name}"
    return launch


def _explainer(
    positions: Sequence[int], stores: Sequence[ArgumentStore]
) -> Callable[[Sequence[Any]], None]:
    """Store every argument again through the setters that raise a named error."""
    pairs = list(zip(positions, stores))

    def explain(args: Sequence[Any]) -> None:
        for position, store in pairs:
            store.store(args[position])

    return explain


@functools.lru_cache(maxsize=256)
def _compiled(source: str) -> types.CodeType:
    """The code of `source`: kernels with parameters of the same kinds at the same places
    share it (compiling it costs ~0.1 ms; running it, with a kernel's own names, ~1 us)."""
    return compile(source, "<kernel launch>", "exec")


def _indented(lines: list[str], levels: int = 1) -> list[str]:
    return [" " * (4 * levels) + line for line in lines]
