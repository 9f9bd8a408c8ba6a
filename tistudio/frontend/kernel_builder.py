"""Entry point of the frontend: one kernel instantiation's Python function -> frontend IR."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tistudio.frontend.funcs import FuncFrame, RecursiveRealFunc
from tistudio.frontend.returns import check_returned
from tistudio.frontend.scope import Scope
from tistudio.frontend.source import ParsedFunction, function_globals, resolve_annotation
from tistudio.frontend.transformer import Transformer
from tistudio.frontend.values import ExprVector, NdarrayArg
from tistudio.ir import frontend as fe
from tistudio.ir.config import CompileConfig
from tistudio.ir.stmt import Block, Kernel, Param, SourceLoc
from tistudio.ir.types import PrimitiveType


@dataclass(frozen=True)
class ParamSpec:
    """A kernel parameter as its annotation declares it."""

    name: str
    kind: str  # "scalar" | "matrix" | "ndarray" | "template"
    dtype: PrimitiveType | None = None
    ndim: int = 0
    element_shape: tuple[int, ...] = ()  # a vector/matrix parameter, or an ndarray's elements
    struct_type: Any = None  # a struct parameter's type
    boundary: str = "unsafe"  # an ndarray's: "clamp" clamps its indices into the array


def build_frontend_ir(
    fn: Callable[..., Any],
    parsed: ParsedFunction,
    specs: list[ParamSpec],
    template_values: dict[str, Any],
    ndarrays: dict[str, tuple[PrimitiveType, int, tuple[int, ...]]],
    ret_types: list[PrimitiveType],
    config: CompileConfig,
    name: str,
) -> Kernel:
    """Build the frontend IR ("Initial IR") of `fn` for one template signature. A real
    function found calling itself makes the build start again, with that function compiled
    as an IR function and calls (`real_calls.py`) instead of in place."""
    called: set[Any] = set()
    while True:
        try:
            return _build(
                fn, parsed, specs, template_values, ndarrays, ret_types, config, name, called
            )
        except RecursiveRealFunc as found:
            if found.fn in called:  # cannot happen: a called function is never inlined
                raise
            called.add(found.fn)


def _build(
    fn: Callable[..., Any],
    parsed: ParsedFunction,
    specs: list[ParamSpec],
    template_values: dict[str, Any],
    ndarrays: dict[str, tuple[PrimitiveType, int, tuple[int, ...]]],
    ret_types: list[PrimitiveType],
    config: CompileConfig,
    name: str,
    called: set[Any],
) -> Kernel:
    body = Block()
    scope = Scope(function_globals(fn))
    ret_annotation = resolve_annotation(fn, fn.__annotations__.get("return"))
    frame = FuncFrame(parsed, scope, "kernel", ret_annotation)
    transformer = Transformer(config, body, frame)
    transformer.kernel_ret_types = list(ret_types)
    transformer.called = called
    loc = SourceLoc(
        parsed.filename,
        parsed.node.lineno + parsed.line_offset,
        0,
        parsed.source_line(parsed.node.lineno + parsed.line_offset),
    )
    params: list[Param] = []
    for spec in specs:
        if spec.kind == "template":
            scope.bind(spec.name, template_values[spec.name])
        elif spec.kind == "scalar":
            assert spec.dtype is not None
            arg = fe.ArgLoadExpr(len(params), dtype=spec.dtype, loc=loc)
            params.append(Param(spec.name, "scalar", spec.dtype))
            scope.bind(spec.name, transformer.new_var(spec.dtype, spec.name, arg, loc))
        elif spec.kind == "struct":
            types = transformer.struct_scalar_types(spec.struct_type, loc)
            leaves = [
                fe.ArgLoadExpr(len(params) + k, dtype=t, loc=loc) for k, t in enumerate(types)
            ]
            params.extend(Param(spec.name, "scalar", leaf.dtype) for leaf in leaves)
            value = transformer.unflatten_struct(spec.struct_type, leaves, loc)
            scope.bind(spec.name, transformer.declare_struct(spec.name, value, loc))
        elif spec.kind == "matrix":
            assert spec.dtype is not None
            elements = []
            for _ in range(math.prod(spec.element_shape)):
                elements.append(fe.ArgLoadExpr(len(params), dtype=spec.dtype, loc=loc))
                params.append(Param(spec.name, "scalar", spec.dtype))
            value = ExprVector(elements, spec.element_shape)
            scope.bind(spec.name, transformer.declare_matrix(spec.name, value, loc))
        else:
            dtype, ndim, element_shape = ndarrays[spec.name]
            arg = NdarrayArg(len(params), dtype, ndim, spec.name, element_shape, spec.boundary)
            scope.bind(spec.name, arg)
            params.append(Param(spec.name, "ndarray", dtype, ndim + len(element_shape)))
    transformer.kernel_arguments = [
        scope.lookup_local(spec.name)
        for spec in specs
        if spec.kind in ("scalar", "struct", "matrix")
    ]
    transformer.visit_body(parsed.node.body)
    if ret_types:
        check_returned(frame, "kernel", loc)
    functions = list(transformer.ir_functions.values())
    kernel = Kernel(name, body, params, list(ret_types), functions=functions)
    kernel.no_activate = transformer.no_activate  # type: ignore[attr-defined] - lower_access
    return kernel
