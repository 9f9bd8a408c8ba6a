"""`ti.aot.Module`: kernels, fields and graphs compiled ahead of time into a module.

As in Taichi, a module is made for the arch of the current program (`ti.init`), fields are
added by name, kernels under their Python name or a given one, template kernels once per
instantiation (`<name>|<key>`, e.g. `bar_tmpl|a=x,`), and graphs as the kernels they dispatch.
`save(folder)` writes the files; `archive(path.tcm)` a deterministic zip of them. Unlike
Taichi's CPU builder, saving twice works. The format is documented in docs/aot-format.md and
read back by `tistudio.aot.load`, which needs neither the frontend nor the passes.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from tistudio.aot import archive as zipio
from tistudio.aot import binding
from tistudio.aot.compile import compile_artifacts
from tistudio.aot.fields import field_entry
from tistudio.aot.format import (
    CONTENT,
    FORMAT_NAME,
    FORMAT_VERSION,
    GRAPHS,
    METADATA,
    VERSION,
    dumps,
    is_identifier,
    is_kernel_name,
    safe_file_stem,
    version_text,
)
from tistudio.arch import backend_of
from tistudio.lang import impl


class Module:
    """An AOT module under construction (see the module docstring)."""

    def __init__(self, arch: Any = None, caps: list[str] | None = None) -> None:
        self._program = impl.get_program()
        self._program.materialize()
        self.arch = self._program.config.arch
        if arch is not None and backend_of(arch) != self.arch:
            warnings.warn(
                f"ti.aot.Module: arch {arch} differs from the current program's "
                f"({self.arch}); the module is built for {self.arch}",
                stacklevel=2,
            )
        self.caps = sorted(str(c) for c in caps or ())
        self._fields: dict[str, Any] = {}
        self._kernels: dict[str, dict] = {}
        self._instances: dict[tuple, str] = {}  # (kernel id, template identity) -> name
        self._graphs: dict[str, list[dict]] = {}
        self._files: dict[str, bytes] = {}  # artifacts before binding (`files`)
        self._bound: dict[tuple[str, str], dict[str, bytes]] = {}  # (kernel, marker) -> files
        self._stems: set[str] = set()
        self._content: list[str] = []

    # --- adding things ------------------------------------------------------------------

    def add_field(self, name: str, field: Any) -> None:
        """Add a field under `name`; the loaded module exposes it as `module.fields[name]`."""
        if not hasattr(field, "_ti_place_snode"):
            raise TypeError(f"add_field({name!r}, ...) takes a ti.field, got {type(field)}")
        if not is_identifier(name):
            raise ValueError(
                f"add_field({name!r}, ...): a field's name must be an identifier "
                "([A-Za-z_][A-Za-z0-9_]*): it becomes a C macro and a Python key"
            )
        if name in self._fields:
            raise ValueError(f"the module already has a field named {name!r}")
        self._program.materialize()
        field_entry(name, field, self._program)  # refuses layouts a module cannot describe
        self._fields[name] = field

    def add_kernel(
        self, kernel_fn: Any, template_args: dict[str, Any] | None = None, name: str | None = None
    ) -> None:
        """Compile `kernel_fn` (a `@ti.kernel`) with `template_args` (template parameter
        name -> field or value; also sample ndarrays) and add it as `name`."""
        name = name or _kernel_of(kernel_fn).__name__
        self._add(kernel_fn, template_args or {}, name)
        self._content.append(f"kernel:{name}")

    @contextmanager
    def add_kernel_template(self, kernel_fn: Any) -> Iterator[KernelTemplate]:
        """`with m.add_kernel_template(k) as kt: kt.instantiate(a=x)` adds `k|a=x,`."""
        yield KernelTemplate(self, _kernel_of(kernel_fn))

    def add_graph(self, name: str, graph: Any) -> None:
        """Add a compiled `ti.graph` graph: every kernel it dispatches, and its dispatches."""
        if not hasattr(graph, "dispatches"):
            raise TypeError(f"add_graph({name!r}, ...) takes graph_builder.compile()'s result")
        if name in self._graphs:
            raise ValueError(f"the module already has a graph named {name!r}")
        dispatches = []
        for dispatch in graph.dispatches:
            kernel = dispatch.kernel
            internal = kernel.__name__ + self._template_key(kernel, dispatch.templates, False)
            kernel_name = self._add(kernel, dispatch.template_args, internal, reuse=True)
            dispatches.append({"kernel_name": kernel_name, "symbolic_args": dispatch.symbolic})
        self._graphs[name] = dispatches
        self._content.append(f"cgraph:{name}")

    def _add(self, kernel_fn: Any, template_args: dict, name: str, reuse: bool = False) -> str:
        kernel = _kernel_of(kernel_fn)
        if not is_kernel_name(name):
            raise ValueError(
                f"kernel name {name!r} is not an identifier ([A-Za-z_][A-Za-z0-9_]*), with for a "
                "template instantiation '|' and a key of printable ASCII (it reaches C headers)"
            )
        args = _instance_args(kernel, template_args)
        identity = (id(kernel), _identity(kernel, args))
        if reuse and identity in self._instances:
            return self._instances[identity]
        if name in self._kernels:
            if not reuse:
                raise ValueError(f"the module already has a kernel named {name!r}")
            name = safe_file_stem(name, set(self._kernels))
        stem = safe_file_stem(name, self._stems)
        entry, files = compile_artifacts(kernel.frontend_ir(args, name), self._program, stem)
        entry["name"] = name
        entry["template_args"] = {
            k: _describe(v, self._fields, False) for k, v in sorted(template_args.items())
        }
        self._kernels[name] = entry
        self._instances[identity] = name
        self._files.update(files)
        return name

    def _template_key(self, kernel: Any, template_args: dict, strict: bool = True) -> str:
        """Taichi's template key, `|a=x,b=3,`: fields by their `add_field` name."""
        parts = []
        for spec in kernel.param_specs():
            if spec.kind == "template" and spec.name in template_args:
                value = _describe(template_args[spec.name], self._fields, strict)
                parts.append(f"{spec.name}={value},")
        return "|" + "".join(parts) if parts else ""

    # --- writing ------------------------------------------------------------------------

    def files(self) -> dict[str, bytes]:
        """Every file of the module, by name."""
        if impl.current.program is not self._program:
            raise RuntimeError(
                "the program this module was built in has ended (ti.init/ti.reset since); "
                "save or archive a module before starting another program"
            )
        trees = self._program.trees
        metadata = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "arch": self.arch,
            "required_caps": self._required_caps(),
            "target": self._program.backend.aot_target(),
            "root_buffer_size": sum(t.buffer.nbytes for t in trees),
            "trees": [{"id": t.id, "size": int(t.buffer.nbytes)} for t in trees],
            "fields": [field_entry(n, f, self._program) for n, f in self._fields.items()],
            "kernels": [self._kernels[name] for name in sorted(self._kernels)],
        }
        graphs = [{"key": n, "value": {"dispatches": d}} for n, d in sorted(self._graphs.items())]
        metadata, graphs = json.loads(dumps(metadata)), json.loads(dumps(graphs))  # as read
        files = self._bound_artifacts(metadata, graphs)
        metadata["artifacts"] = {n: hashlib.sha256(d).hexdigest() for n, d in sorted(files.items())}
        from tistudio import __version__

        return {
            **files,
            METADATA: dumps(metadata),
            GRAPHS: dumps(graphs),
            CONTENT: "".join(f"{line}\n" for line in self._content).encode(),
            VERSION: version_text(__version__).encode(),
        }

    def _bound_artifacts(self, metadata: dict, graphs: list) -> dict[str, bytes]:
        """The artifacts, each carrying the digest of the metadata (`binding.py`)."""
        files = dict(self._files)
        module = binding.module_digest(metadata, graphs)
        backend = self._program.backend
        for entry in metadata["kernels"]:
            mark = binding.marker(module, binding.kernel_digest(entry))
            key = (entry["name"], mark)
            if key not in self._bound:  # the CPU's code generation again: kept per marker
                self._bound[key] = backend.aot_bind(entry, self._files, mark)
            files.update(self._bound[key])
        return files

    def save(self, filepath: str) -> None:
        """Write the module's files into the folder `filepath` (created if missing)."""
        zipio.write_folder(self.files(), filepath)

    def archive(self, filepath: str) -> None:
        """Write the module as one `.tcm` file (a zip; the same module gives the same bytes)."""
        if not str(filepath).endswith(".tcm"):
            raise ValueError(f"the AOT archive's name must end with .tcm, got {filepath!r}")
        zipio.write_tcm(self.files(), filepath)

    def _required_caps(self) -> list[str]:
        """The caps asked for, then those the code needs besides (sorted)."""
        needed = self._program.backend.aot_required_caps(self._files)
        return list(self.caps) + sorted(set(needed) - set(self.caps))


class KernelTemplate:
    """What `Module.add_kernel_template` yields: `instantiate(**template_args)`."""

    def __init__(self, module: Module, kernel: Any) -> None:
        self._module, self._kernel = module, kernel

    def instantiate(self, **template_args: Any) -> None:
        module = self._module
        name = self._kernel.__name__ + module._template_key(self._kernel, template_args)
        module._add(self._kernel, template_args, name)


# --- instantiation arguments ----------------------------------------------------------------


def _kernel_of(kernel_fn: Any) -> Any:
    if not getattr(kernel_fn, "__ti_kernel__", False):
        raise TypeError(f"expected a @ti.kernel, got {kernel_fn!r}")
    return kernel_fn


def _instance_args(kernel: Any, template_args: dict[str, Any]) -> tuple:
    """One argument per parameter: the given template values and sample ndarrays, zeros for
    scalars, and zero arrays of the annotated dtype and dimensions for other ndarrays."""
    specs = kernel.param_specs()
    unknown = set(template_args) - {s.name for s in specs}
    if unknown:
        raise ValueError(f"kernel {kernel.__name__!r} has no parameter {sorted(unknown)[0]!r}")
    args = []
    for spec in specs:
        if spec.name in template_args:
            args.append(template_args[spec.name])
        elif spec.kind == "template":
            raise ValueError(
                f"kernel {kernel.__name__!r}: template parameter {spec.name!r} needs a value "
                "in template_args"
            )
        elif spec.kind == "ndarray":
            args.append(_sample_array(kernel, spec))
        elif spec.kind == "matrix":
            args.append(np.zeros(spec.element_shape, spec.dtype.numpy_name))
        elif spec.kind == "scalar":
            args.append(0)
        else:
            raise ValueError(f"kernel {kernel.__name__!r}: {spec.kind} parameters need a value")
    return tuple(args)


def _sample_array(kernel: Any, spec: Any) -> np.ndarray:
    if spec.dtype is None or not spec.ndim:
        raise ValueError(
            f"kernel {kernel.__name__!r}: ndarray parameter {spec.name!r} declares no dtype or "
            "ndim; give a sample array in template_args"
        )
    return np.zeros((1,) * spec.ndim + tuple(spec.element_shape), spec.dtype.numpy_name)


def _identity(kernel: Any, args: tuple) -> tuple:
    """What makes two instantiations the same: template values, ndarray dtypes and ndims."""
    out = []
    for spec, value in zip(kernel.param_specs(), args):
        if hasattr(value, "_ti_place_snode"):
            out.append((spec.name, "field", id(value)))
        elif spec.kind == "template":
            out.append((spec.name, "value", repr(value)))
        elif spec.kind == "ndarray":
            arr = getattr(value, "_ti_numpy_storage", value)
            out.append((spec.name, "array", arr.dtype.str, arr.ndim))
    return tuple(out)


def _describe(value: Any, fields: dict[str, Any], strict: bool = True) -> str:
    """A template value in a key: a field by its module name, a number by its value."""
    if hasattr(value, "_ti_place_snode"):
        for name, field in fields.items():
            if field is value:
                return name
        if strict:
            raise ValueError("a template field must be added with add_field before its kernel")
        return value.name or "field"
    if isinstance(value, np.ndarray) or hasattr(value, "_ti_numpy_storage"):
        arr = getattr(value, "_ti_numpy_storage", value)
        return f"ndarray[{arr.dtype}, {arr.ndim}d]"
    return repr(value)
