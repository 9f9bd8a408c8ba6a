"""`sweep` and `submit_sweep`: one Dask task per parameter set, results in their order.

`submit_sweep` checks the names against the module's metadata on the client (a typo fails at
once, not on a worker), registers the cache plugin (idempotent), scatters the archive to
every worker once, and maps the parameter sets to futures: `retries` reruns a task whose
kernel raised, and Dask itself reschedules the tasks of a worker that died. A GPU module's
tasks ask for the resource `{"GPU": 1}` (see the package docstring); `resources=` overrides
that. `sweep` waits for the futures, with Dask's progress bar when it runs in a notebook, and
gathers them; the first failed task raises its error (`SweepTaskError`, `ModuleLoadError`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from distributed import Client, Future, progress

from tistudio.distributed.cache import ModuleCache
from tistudio.distributed.shipped import ShippedModule, ship
from tistudio.distributed.task import RETURN, run_task

GPU = {"GPU": 1}


def submit_sweep(
    client: Client,
    module: Any,
    name: str,
    params: Sequence[dict[str, Any]],
    *,
    outputs: str | list[str] | None = None,
    resources: dict[str, float] | None = None,
    retries: int = 2,
) -> list[Future]:
    """One future per parameter set: `name` (a kernel or graph of `module`: a `.tcm` path, a
    module folder or a `ti.aot.Module`) run with it on a worker. `outputs`: None for the
    kernel's return value, or a name (`"return"`, a field, an ndarray argument) or a list of
    names (a dict each)."""
    shipped = ship(module)
    params = [dict(p) for p in params]
    _check_names(shipped, name, params, outputs)
    if resources is None and shipped.arch == "gpu":
        resources = GPU
    if resources:
        _warn_if_no_worker_has(client, resources)
    client.register_plugin(ModuleCache())
    [data] = client.scatter([shipped], broadcast=True, hash=False)
    return client.map(
        run_task,
        params,
        range(len(params)),
        shipped=data,
        target=name,
        outputs=outputs,
        resources=resources,
        retries=retries,
        pure=False,
    )


def sweep(
    client: Client,
    module: Any,
    name: str,
    params: Sequence[dict[str, Any]],
    *,
    outputs: str | list[str] | None = None,
    resources: dict[str, float] | None = None,
    retries: int = 2,
    show_progress: bool | None = None,
) -> list[Any]:
    """Run `name` once per parameter set on `client`'s workers and return the results in the
    order of `params` (see `submit_sweep`). `show_progress`: Dask's progress bar; by default
    only in a Jupyter kernel."""
    futures = submit_sweep(
        client, module, name, params, outputs=outputs, resources=resources, retries=retries
    )
    if show_progress is None:
        show_progress = _in_jupyter_kernel()
    if show_progress and futures:
        progress(futures)
    return client.gather(futures)


def _check_names(
    shipped: ShippedModule, name: str, params: list[dict], outputs: str | list[str] | None
) -> None:
    if name not in shipped.kernels and name not in shipped.graphs:
        raise KeyError(
            f"{shipped.name!r} has no kernel or graph {name!r}; kernels: "
            f"{list(shipped.kernels)}, graphs: {list(shipped.graphs)}"
        )
    names = [outputs] if isinstance(outputs, str) else list(outputs or [])
    given = {k for p in params for k, v in p.items() if isinstance(v, np.ndarray)}
    arrays = set(shipped.array_args.get(name, ())) | given
    for output in names:
        if output != RETURN and output not in shipped.fields and output not in arrays:
            raise KeyError(
                f"output {output!r} is neither 'return', a field of {shipped.name!r} "
                f"({list(shipped.fields)}) nor an ndarray argument of {name!r}"
            )


def _warn_if_no_worker_has(client: Client, resources: dict[str, float]) -> None:
    workers = client.scheduler_info(n_workers=-1)["workers"].values()
    if not any(_has(w.get("resources", {}), resources) for w in workers):
        warnings.warn(
            f"no worker has the resources {resources}: the tasks wait until one joins "
            f"(start workers with: dask worker <scheduler> --resources "
            f'"{" ".join(f"{k}={v}" for k, v in resources.items())}")',
            stacklevel=3,
        )


def _has(available: dict[str, float], wanted: dict[str, float]) -> bool:
    return all(available.get(k, 0) >= v for k, v in wanted.items())


def _in_jupyter_kernel() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and hasattr(shell, "kernel")
