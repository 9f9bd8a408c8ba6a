"""`ti.graph`: a fixed sequence of kernel launches with named arguments (Taichi's graphs).

`GraphBuilder.dispatch(kernel, *args)` records one launch; arguments are `ti.graph.Arg`
placeholders (filled by name when the graph runs), Python numbers, or, for template
parameters, fields and values. `compile()` instantiates every kernel and returns a `Graph`,
whose `run({name: value})` launches the kernels in order, and which `ti.aot.Module.add_graph`
stores in a module (`graphs.json`), where `tistudio.aot.load(...).get_graph(name)` runs it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tistudio.lang.types import to_dtype


class ArgKind(enum.IntEnum):
    """Taichi's argument kinds, with its numbers (they appear in graphs.json as `tag`)."""

    SCALAR = 0
    MATRIX = 1
    NDARRAY = 2
    TEXTURE = 3
    RWTEXTURE = 4


class Arg:
    """A named placeholder for a scalar or ndarray argument of a graph."""

    def __init__(
        self,
        tag: ArgKind,
        name: str,
        dtype: Any = None,
        ndim: int = 0,
        field_dim: int | None = None,
        element_shape: tuple[int, ...] = (),
    ) -> None:
        if tag not in (ArgKind.SCALAR, ArgKind.NDARRAY):
            raise ValueError(
                f"ti.graph.Arg {name!r}: {ArgKind(tag).name} arguments are not supported"
            )
        if not isinstance(name, str) or not name:
            raise ValueError(f"ti.graph.Arg: the name must be a non-empty string, got {name!r}")
        self.tag, self.name = ArgKind(tag), name
        self.element_shape = tuple(element_shape)
        if hasattr(dtype, "_ti_matrix_type"):  # an ndarray of vectors or matrices
            shape, elem = dtype._ti_matrix_type
            dtype, self.element_shape = elem or float, tuple(shape)
        self.dtype = to_dtype(dtype) if dtype is not None else None
        self.ndim = field_dim if field_dim is not None else ndim

    def __repr__(self) -> str:
        return f"ti.graph.Arg({self.tag.name}, {self.name!r}, {self.dtype}, ndim={self.ndim})"


@dataclass
class Dispatch:
    """One recorded launch: the kernel, its template values (and sample ndarrays, for
    compiling), and per runtime parameter either a named argument or a constant."""

    kernel: Any
    templates: dict[str, Any] = field(default_factory=dict)
    template_args: dict[str, Any] = field(default_factory=dict)
    symbolic: list[dict] = field(default_factory=list)


class GraphBuilder:
    """Records dispatches; `compile()` makes the `Graph`."""

    def __init__(self) -> None:
        self._dispatches: list[Dispatch] = []

    def dispatch(self, kernel_fn: Any, *args: Any) -> None:
        self._dispatches.append(_dispatch(kernel_fn, args))

    def create_sequential(self) -> Sequential:
        return Sequential()

    def append(self, node: Sequential) -> None:
        if not isinstance(node, Sequential):
            raise TypeError("GraphBuilder.append takes what create_sequential() returned")
        self._dispatches.extend(node.dispatches)

    def compile(self) -> Graph:
        graph = Graph(list(self._dispatches))
        for d in graph.dispatches:  # compile now, as Taichi does, so errors show here
            d.kernel.frontend_ir(_call_args(d, d.template_args, sample=True), d.kernel.__name__)
        return graph


class Sequential:
    """A group of dispatches appended to a graph as a whole (Taichi's `create_sequential`)."""

    def __init__(self) -> None:
        self.dispatches: list[Dispatch] = []

    def dispatch(self, kernel_fn: Any, *args: Any) -> None:
        self.dispatches.append(_dispatch(kernel_fn, args))


class Graph:
    """A compiled graph: `run({arg name: value})` launches its kernels in order."""

    def __init__(self, dispatches: list[Dispatch]) -> None:
        self.dispatches = dispatches
        self.arg_names = sorted({a["name"] for d in dispatches for a in d.symbolic if "name" in a})

    def run(self, args: dict[str, Any]) -> None:
        unknown = sorted(set(args) - set(self.arg_names))
        if unknown:
            raise TypeError(f"the graph has no argument {unknown[0]!r}; it has {self.arg_names}")
        missing = [n for n in self.arg_names if n not in args]
        if missing:
            raise TypeError(f"the graph needs argument {missing[0]!r}")
        for d in self.dispatches:
            d.kernel(*_call_args(d, args, sample=False))


def _call_args(d: Dispatch, values: dict[str, Any], sample: bool) -> tuple:
    """The kernel's arguments for one launch (`sample`: for compiling, from `values` by
    parameter name; else from the graph's arguments by `Arg` name)."""
    out = []
    runtime = iter(d.symbolic)
    for spec in d.kernel.param_specs():
        if spec.kind == "template":
            out.append(d.templates[spec.name])
            continue
        arg = next(runtime)
        if "name" not in arg:
            out.append(arg["value"])
        else:
            out.append(values.get(spec.name, 0) if sample else values[arg["name"]])
    return tuple(out)


def _dispatch(kernel_fn: Any, args: tuple) -> Dispatch:
    if not getattr(kernel_fn, "__ti_kernel__", False):
        raise TypeError(f"dispatch takes a @ti.kernel, got {kernel_fn!r}")
    specs = kernel_fn.param_specs()
    if len(args) != len(specs):
        raise TypeError(
            f"kernel {kernel_fn.__name__!r} takes {len(specs)} argument(s), {len(args)} given"
        )
    d = Dispatch(kernel_fn)
    for spec, value in zip(specs, args):
        if spec.kind == "template":
            if isinstance(value, Arg):
                raise TypeError(
                    f"template parameter {spec.name!r} takes a field or value, not an Arg"
                )
            d.templates[spec.name] = d.template_args[spec.name] = value
        elif spec.kind in ("ndarray", "scalar"):
            _runtime_arg(d, kernel_fn.__name__, spec, value)
        else:
            raise TypeError(
                f"kernel {kernel_fn.__name__!r}: {spec.kind} parameters cannot be graph arguments"
            )
    return d


def _runtime_arg(d: Dispatch, kernel: str, spec: Any, value: Any) -> None:
    where = f"kernel {kernel!r}, parameter {spec.name!r}"
    if spec.kind == "scalar":
        if isinstance(value, Arg):
            if value.tag is not ArgKind.SCALAR:
                raise TypeError(f"{where}: a scalar parameter takes a SCALAR Arg")
            d.symbolic.append(
                {"name": value.name, "tag": int(ArgKind.SCALAR), "dtype": str(spec.dtype)}
            )
        elif isinstance(value, (int, float, np.number)):
            d.symbolic.append(
                {
                    "value": value.item() if hasattr(value, "item") else value,
                    "tag": 0,
                    "dtype": str(spec.dtype),
                }
            )
        else:
            raise TypeError(f"{where}: takes an Arg or a number, got {type(value).__name__}")
        return
    if not isinstance(value, Arg) or value.tag is not ArgKind.NDARRAY:
        raise TypeError(f"{where}: an ndarray parameter takes an NDARRAY ti.graph.Arg")
    dtype = value.dtype or spec.dtype
    ndim = value.ndim or spec.ndim
    if dtype is None or not ndim:
        raise TypeError(f"{where}: the Arg {value.name!r} needs a dtype and ndim")
    if spec.dtype is not None and dtype != spec.dtype:
        raise TypeError(
            f"{where}: the Arg {value.name!r} has dtype {dtype}, the kernel wants {spec.dtype}"
        )
    element_shape = value.element_shape or tuple(spec.element_shape)
    d.template_args[spec.name] = np.zeros((1,) * ndim + element_shape, dtype.numpy_name)
    d.symbolic.append(
        {
            "name": value.name,
            "tag": int(ArgKind.NDARRAY),
            "dtype": str(dtype),
            "ndim": ndim + len(element_shape),
            "element_shape": list(element_shape),
        }
    )
