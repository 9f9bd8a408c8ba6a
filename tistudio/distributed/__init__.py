"""Sweeps of exported kernels on a Dask cluster: `sweep(client, "sim.tcm", "run", params)`.

A notebook user with a working simulation soon wants it over many parameters. Rather than a
home-made scheduler, this package hands an AOT module (`ti.aot.Module` or a `.tcm`) to Dask
(`distributed`), the engine the PyData world already runs from Jupyter, on anything from a
`LocalCluster` to dask-jobqueue or Kubernetes. The design, one module per job:

- `shipped.py`: the module travels as the `.tcm`'s bytes with their SHA-256, read once on
  the client (which also checks the kernel, graph and output names before anything is sent);
  the bytes are scattered to the workers once per sweep, not once per task.
- `cache.py`: `ModuleCache`, a Dask `WorkerPlugin`, keeps each worker's loaded modules keyed
  by that SHA-256, so a worker loads each module once however many tasks it runs. Every task
  starts from the fields as loaded, so a task's result depends on its parameters only, and a
  task that Dask reruns (a retry, a worker that died) gives the same result.
- `task.py`: what one task runs on a worker: a kernel (keyword arguments) or a graph (its
  argument dict), then the requested outputs as NumPy arrays. A failure is re-raised as a
  `SweepTaskError` carrying the kernel's error text and the parameter set.
- `sweep.py`: `submit_sweep` maps the parameter sets to futures (Dask retries failed tasks and
  reschedules those of a lost worker); `sweep` shows Dask's progress bar in a notebook and
  gathers the results in the order of the parameter sets.

CPU modules run on any worker. A GPU module's tasks ask for the resource `{"GPU": 1}`, so they
run only on workers started with it: `dask worker <scheduler> --resources "GPU=1"`, or
`LocalCluster(resources={"GPU": 1})`. `import tistudio` never imports this package or Dask;
install it with `pip install "tistudio[dask]"`.
"""

from __future__ import annotations

try:
    import distributed  # noqa: F401 - only to say what is missing, before the modules below
except ImportError as e:
    raise ImportError(
        'tistudio.distributed needs Dask\'s "distributed": pip install "tistudio[dask]"'
    ) from e

from tistudio.distributed.cache import ModuleCache, ModuleLoadError, cache_info
from tistudio.distributed.shipped import ShippedModule, ship
from tistudio.distributed.sweep import submit_sweep, sweep
from tistudio.distributed.task import SweepTaskError

__all__ = [
    "ModuleCache",
    "ModuleLoadError",
    "ShippedModule",
    "SweepTaskError",
    "cache_info",
    "ship",
    "submit_sweep",
    "sweep",
]
