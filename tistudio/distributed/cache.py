"""`ModuleCache`: the Dask worker plugin that loads each module once per worker.

A sweep sends many tasks of one module to each worker; loading a module (reading the archive,
checking it, putting its object code into a JIT engine or its WGSL into pipelines) costs far
more than one small kernel launch. The plugin lives on the worker (`worker.plugins[NAME]`),
so the cache belongs to an object, as caches do in tistudio; it keys loaded modules by the
archive's SHA-256, writes the bytes into the worker's own directory to load them, and counts
loads (`cache_info`). A module that fails to load raises `ModuleLoadError`, naming the archive
the user gave rather than the worker's copy. Tasks of one module on one worker take turns
(a lock): they share the module's fields.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

from distributed import Client, WorkerPlugin

from tistudio.aot.format import AotModuleError
from tistudio.aot.loader import LoadedModule, load
from tistudio.distributed.shipped import ShippedModule

NAME = "tistudio-module-cache"


class ModuleLoadError(AotModuleError):
    """A module that a worker could not load; the message names the archive and the worker."""


class CachedModule:
    """A loaded module, its fields as loaded (each task starts from them) and its lock."""

    def __init__(self, loaded: LoadedModule) -> None:
        self.loaded = loaded
        self.initial = {name: f.to_numpy() for name, f in loaded.fields.items()}
        self.lock = threading.Lock()

    def reset_fields(self) -> None:
        for name, values in self.initial.items():
            self.loaded.fields[name].from_numpy(values)


class ModuleCache(WorkerPlugin):
    """Each worker's loaded modules, by SHA-256 (see the module docstring)."""

    name = NAME
    idempotent = True  # registering again (every sweep does) keeps the loaded modules

    def setup(self, worker: Any) -> None:
        self.directory = Path(worker.local_directory) / "tistudio-modules"
        self.address = str(worker.address)
        self.modules: dict[str, CachedModule] = {}
        self.loads: Counter[str] = Counter()
        self._lock = threading.Lock()

    def module(self, shipped: ShippedModule) -> CachedModule:
        """The loaded module for `shipped`, loading it on first use."""
        with self._lock:
            cached = self.modules.get(shipped.sha256)
            if cached is None:
                cached = CachedModule(self._load(shipped))
                self.modules[shipped.sha256] = cached
                self.loads[shipped.sha256] += 1
            return cached

    def _load(self, shipped: ShippedModule) -> LoadedModule:
        self.directory.mkdir(parents=True, exist_ok=True)
        copy = self.directory / f"{shipped.sha256}.tcm"
        copy.write_bytes(shipped.data)
        try:
            return load(copy, expect_sha256=shipped.sha256)
        except AotModuleError as e:
            message = str(e).replace(repr(str(copy)), "").lstrip(": ")
            raise ModuleLoadError(
                f"{shipped.name!r}: the module failed to load on worker {self.address}: {message}"
            ) from None


def cache_info(client: Client) -> dict[str, dict[str, int]]:
    """How many times each worker loaded each module: {worker address: {sha256: loads}}."""
    return client.run(_loads)


def _loads(dask_worker: Any) -> dict[str, int]:
    plugin = dask_worker.plugins.get(NAME)
    return dict(plugin.loads) if plugin is not None else {}
