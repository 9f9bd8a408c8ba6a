"""`tistudio.aot.load(path, arch=...)`: run a module with NumPy arrays, without the compiler.

Loading reads the module (folder or `.tcm`), checks its version, schema and artifact hashes,
that the metadata is the one its code was built with (`binding.py`: the whole module before
any memory is allocated, each kernel before its code is loaded), and builds a runtime for its
arch: on the CPU the object code goes into a fresh MCJIT engine (`cpu_runtime.py`), on the GPU
the WGSL becomes compute pipelines (`gpu_runtime.py`). Errors start with the module's path.
Nothing
here imports `tistudio.frontend` or `tistudio.passes`; a test runs a module in a process where
importing them fails.
"""

from __future__ import annotations

import hashlib
import math
import os
from typing import Any

import numpy as np

from tistudio.aot import binding
from tistudio.aot.archive import read_module
from tistudio.aot.format import GRAPHS, METADATA, VERSION, AotModuleError, check_version, loads
from tistudio.aot.schema import check_graphs, check_metadata
from tistudio.arch import backend_of


def load(
    path: str | os.PathLike, arch: Any = None, expect_sha256: str | None = None
) -> LoadedModule:
    """The module at `path`, ready to run on `arch` (default: the arch it was built for).

    With `expect_sha256`, the module's bytes must have that SHA-256 (hex): the `.tcm` file's,
    or for a folder, that of the `.tcm` holding the same files (docs/aot-format.md). Loading
    a module runs its native code: load only modules you trust."""
    origin = str(path)
    try:
        files = read_module(path, expect_sha256)
        check_version(files[VERSION].decode("utf-8", "replace"))
        meta = check_metadata(loads(METADATA, files[METADATA]))
        graphs = check_graphs(loads(GRAPHS, files[GRAPHS]), meta)
        _check_artifacts(meta, files)
        if arch is not None and backend_of(arch) != meta["arch"]:
            raise AotModuleError(
                f"the module was built for {meta['arch']}; it cannot run on {arch} "
                f"(build it again after ti.init(arch=...))"
            )
        runtime = _runtime(meta, files)  # checks the target or the adapter's features
        binding.check_module(meta, graphs, files)
        runtime.allocate(meta["trees"])
        return LoadedModule(meta, graphs, runtime, files, origin)
    except AotModuleError as e:
        raise _named(origin, e) from None


def _check_artifacts(meta: dict, files: dict[str, bytes]) -> None:
    for name, digest in meta.get("artifacts", {}).items():
        if name not in files:
            raise AotModuleError(f"the module lacks {name!r}, which metadata.json lists")
        if hashlib.sha256(files[name]).hexdigest() != digest:
            raise AotModuleError(f"{name!r} is corrupted (its SHA-256 differs from metadata.json)")


def _runtime(meta: dict, files: dict[str, bytes]) -> Any:
    if meta["arch"] == "gpu":
        from tistudio.aot.gpu_runtime import GpuModuleRuntime

        return GpuModuleRuntime(meta, files)
    from tistudio.aot.cpu_runtime import CpuModuleRuntime

    return CpuModuleRuntime(meta, files)


def _named(origin: str, error: AotModuleError) -> AotModuleError:
    """`error`, its message starting with the module's path (once)."""
    message = str(error)
    return error if message.startswith(repr(origin)) else AotModuleError(f"{origin!r}: {message}")


class LoadedModule:
    """A loaded module: `fields[name]`, `get_kernel(name)`, `get_graph(name)`."""

    def __init__(
        self, meta: dict, graphs: list, runtime: Any, files: dict[str, bytes], origin: str
    ) -> None:
        self.arch = meta["arch"]
        self.metadata = meta
        self._runtime = runtime
        self._files, self._origin = files, origin
        self._module_digest = binding.module_digest(meta, graphs)
        self._entries = {k["name"]: k for k in meta["kernels"]}
        self._graphs = {g["key"]: g["value"]["dispatches"] for g in graphs}
        self._kernels: dict[str, LoadedKernel] = {}
        self.fields = {f["field_name"]: LoadedField(f, runtime) for f in meta["fields"]}

    @property
    def kernel_names(self) -> list[str]:
        return sorted(self._entries)

    @property
    def graph_names(self) -> list[str]:
        return sorted(self._graphs)

    def get_kernel(self, name: str) -> LoadedKernel:
        kernel = self._kernels.get(name)
        if kernel is None:
            entry = self._entries.get(name)
            if entry is None:
                raise KeyError(f"the module has no kernel {name!r}; it has {self.kernel_names}")

            def verify() -> None:  # the runtime calls it before the kernel's code is used
                binding.check_kernel(self._module_digest, self.arch, entry, self._files)

            try:
                executable = self._runtime.executable(entry, verify)
            except AotModuleError as e:
                raise _named(self._origin, e) from None
            kernel = LoadedKernel(entry, executable, self._runtime)
            self._kernels[name] = kernel
        return kernel

    def get_graph(self, name: str) -> LoadedGraph:
        if name not in self._graphs:
            raise KeyError(f"the module has no graph {name!r}; it has {self.graph_names}")
        return LoadedGraph(name, self._graphs[name], self)

    def sync(self) -> None:
        """Wait for launched kernels (GPU launches are asynchronous)."""
        self._runtime.sync()


class LoadedKernel:
    """One kernel of a loaded module; call it with its arguments (scalars, NumPy arrays)."""

    def __init__(self, entry: dict, executable: Any, runtime: Any) -> None:
        self.name = entry["name"]
        self.args = entry["args"]
        self.num_rets = len(entry["rets"])
        self._executable, self._runtime = executable, runtime
        self._checks = [_arg_check(self.name, arg) for arg in self.args]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = _bind(self.name, [a["name"] for a in self.args], args, kwargs)
        checked = [check(value) for check, value in zip(self._checks, values)]
        returned = self._executable.launch(checked, self._runtime.roots)
        if not self.num_rets:
            return None
        return returned[0] if self.num_rets == 1 else list(returned)


class LoadedGraph:
    """A graph of a loaded module: `run({arg name: value})` runs its dispatches in order."""

    def __init__(self, name: str, dispatches: list[dict], module: LoadedModule) -> None:
        self.name = name
        self._steps = [
            (module.get_kernel(d["kernel_name"]), d["symbolic_args"]) for d in dispatches
        ]
        self.arg_names = sorted(
            {a["name"] for d in dispatches for a in d["symbolic_args"] if "name" in a}
        )

    def run(self, args: dict[str, Any]) -> None:
        unknown = sorted(set(args) - set(self.arg_names))
        if unknown:
            raise TypeError(f"graph {self.name!r} has no argument {unknown[0]!r}")
        missing = [n for n in self.arg_names if n not in args]
        if missing:
            raise TypeError(f"graph {self.name!r} needs argument {missing[0]!r}")
        for kernel, symbolic in self._steps:
            kernel(*[args[a["name"]] if "name" in a else a["value"] for a in symbolic])


class LoadedField:
    """A field of a loaded module, as NumPy sees it: `to_numpy()`, `from_numpy()`, `fill()`."""

    def __init__(self, entry: dict, runtime: Any) -> None:
        self.name = entry["field_name"]
        self.shape = tuple(entry["shape"])
        self.element_shape = tuple(entry["element_shape"])
        self.dtype = np.dtype(_numpy_name(entry["dtype"]))
        self.tree = entry["tree"]
        self._runtime = runtime
        buffer = runtime.tree_buffer(self.tree)
        try:
            self._views = [
                np.ndarray(self.shape, self.dtype, buffer, c["offset"], tuple(c["strides"]))
                for c in entry["components"]
            ]
        except (TypeError, ValueError) as e:
            raise AotModuleError(f"field {self.name!r} does not fit its tree ({e})") from None

    def to_numpy(self) -> np.ndarray:
        self._runtime.before_host_read(self.tree)
        if not self.element_shape:
            return self._views[0].copy()
        return np.stack(self._views, axis=-1).reshape(self.shape + self.element_shape)

    def from_numpy(self, arr: Any) -> None:
        values = np.asarray(arr)
        if values.shape != self.shape + self.element_shape:
            raise ValueError(
                f"field {self.name!r} has shape {self.shape + self.element_shape}, "
                f"got an array of shape {values.shape}"
            )
        self._runtime.before_host_read(self.tree)  # a partial write keeps the other bytes
        flat = values.reshape(self.shape + (math.prod(self.element_shape),))
        for k, view in enumerate(self._views):
            view[...] = flat[..., k]
        self._runtime.after_host_write(self.tree)

    def fill(self, value: Any) -> None:
        self.from_numpy(np.full(self.shape + self.element_shape, value, self.dtype))


def _numpy_name(dtype: str) -> str:
    from tistudio.ir.types import TYPES_BY_NAME

    return TYPES_BY_NAME[dtype].numpy_name


def _bind(kernel: str, names: list[str], args: tuple, kwargs: dict) -> list[Any]:
    if len(args) > len(names):
        raise TypeError(f"kernel {kernel!r} takes {len(names)} argument(s), {len(args)} given")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"kernel {kernel!r} has no argument {key!r}")
        if key in values:
            raise TypeError(f"kernel {kernel!r} got argument {key!r} twice")
        values[key] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise TypeError(f"kernel {kernel!r} needs argument {missing[0]!r}")
    return [values[n] for n in names]


def _arg_check(kernel: str, arg: dict) -> Any:
    """A function that returns the value to pass for `arg`, or raises a clear TypeError."""
    name, dtype = arg["name"], np.dtype(_numpy_name(arg["dtype"]))
    if arg["ptype"] == 1:
        ndim = arg["ndim"]

        def check_array(value: Any) -> np.ndarray:
            if not isinstance(value, np.ndarray):
                raise TypeError(
                    f"kernel {kernel!r}: argument {name!r} must be a NumPy array, "
                    f"got {type(value).__name__}"
                )
            if value.dtype != dtype or value.ndim != ndim:
                raise TypeError(
                    f"kernel {kernel!r}: argument {name!r} must be a {ndim}-d {dtype} array, "
                    f"got a {value.ndim}-d {value.dtype} array"
                )
            if not value.flags.c_contiguous:
                raise ValueError(f"kernel {kernel!r}: argument {name!r} must be C-contiguous")
            return value

        return check_array

    def check_scalar(value: Any) -> Any:
        if isinstance(value, np.ndarray) or not np.isscalar(value) or isinstance(value, str):
            raise TypeError(
                f"kernel {kernel!r}: argument {name!r} must be a {dtype} scalar, "
                f"got {type(value).__name__}"
            )
        if dtype.kind in "iu" and not isinstance(value, (int, np.integer)):
            raise TypeError(
                f"kernel {kernel!r}: argument {name!r} must be an integer for {dtype}, "
                f"got {type(value).__name__}"
            )
        return bool(value) if dtype.kind == "b" else int(value) if dtype.kind in "iu" else value

    return check_scalar
