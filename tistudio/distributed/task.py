"""One task of a sweep, as a worker runs it: a kernel or graph on one parameter set.

The task takes the worker's cached module (`cache.py`), puts its fields back as loaded, runs
the kernel (parameters as keyword arguments) or the graph (parameters as its argument dict),
waits for the device, and returns the outputs asked for as NumPy arrays: the kernel's return
value (`"return"`), a field, or an ndarray argument after the run. Any failure of the kernel
becomes a `SweepTaskError` whose message holds the kernel's own error text, the parameter set
and the worker, so the error a notebook shows after Dask's retries says what went wrong where.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from distributed import get_worker

from tistudio.distributed.cache import NAME, ModuleCache, ModuleLoadError
from tistudio.distributed.shipped import ShippedModule

RETURN = "return"  # the output name of a kernel's return value


class SweepTaskError(RuntimeError):
    """A kernel or graph that raised on a worker; the message carries its error text."""


def run_task(
    params: dict[str, Any],
    index: int,
    *,
    shipped: ShippedModule,
    target: str,
    outputs: str | list[str] | None,
) -> Any:
    """Run `target` of `shipped` with `params` on this worker; the outputs (see docstring)."""
    worker = get_worker()
    plugin = worker.plugins.get(NAME)
    if not isinstance(plugin, ModuleCache):  # a worker that joined before the plugin did
        raise ModuleLoadError(f"worker {worker.address} has no {NAME} plugin")
    cached = plugin.module(shipped)
    args = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in params.items()}
    with cached.lock:
        try:
            cached.reset_fields()
            returned = _run(cached.loaded, target, args)
            cached.loaded.sync()
            return _outputs(cached.loaded, outputs, returned, args)
        except Exception as e:  # noqa: BLE001 - re-raised with what the notebook needs to know
            raise SweepTaskError(
                f"{target!r} of {shipped.name!r} failed for parameter set {index} "
                f"({_summary(params)}) on worker {worker.address}: {type(e).__name__}: {e}"
            ) from None


def _run(loaded: Any, target: str, args: dict[str, Any]) -> Any:
    if target in loaded.graph_names:
        loaded.get_graph(target).run(args)
        return None
    return loaded.get_kernel(target)(**args)


def _outputs(
    loaded: Any, outputs: str | list[str] | None, returned: Any, args: dict[str, Any]
) -> Any:
    if outputs is None:
        return returned
    names = [outputs] if isinstance(outputs, str) else list(outputs)
    values = {}
    for name in names:
        if name == RETURN:
            values[name] = returned
        elif isinstance(args.get(name), np.ndarray):
            values[name] = args[name]
        else:
            values[name] = loaded.fields[name].to_numpy()
    return values[outputs] if isinstance(outputs, str) else values


def _summary(params: dict[str, Any]) -> str:
    def short(value: Any) -> str:
        if isinstance(value, np.ndarray):
            return f"<{value.dtype} array {value.shape}>"
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."

    return ", ".join(f"{k}={short(v)}" for k, v in params.items())
