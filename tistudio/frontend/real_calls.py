"""Calls of a recursive `ti.real_func`: an IR function of its own, and call statements.

Real functions are compiled in place like `ti.func`s (`funcs.py`) until one is reached again
while its own body is being compiled in place. That raises `funcs.RecursiveRealFunc`, and
`kernel_builder` compiles the kernel again with that function among `Transformer.called`: then
each of its calls becomes a `FuncCallExpr`, and its body an `ir.calls.Function` built as a
kernel's body is (parameters read with `argload[k]`, a `return` at its end). One function per
distinct set of template arguments (a field passed to a `ti.template()` parameter makes its own
instantiation). Parameters are scalars, vectors, matrices and structs, passed element by
element; the return value is one scalar, or none.
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.funcs import FuncFrame, check_matrix_arg
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.scope import Scope
from tistudio.frontend.source import function_globals, resolve_annotation
from tistudio.frontend.values import ExprVector, LoopConfig, StructValue
from tistudio.ir import frontend as fe
from tistudio.ir.calls import Callee, Function
from tistudio.ir.stmt import Block, Param, SourceLoc
from tistudio.ir.types import PrimitiveType


def _is_template(ann: Any) -> bool:
    return ann is None or getattr(ann, "__ti_template__", False)


def _template_key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)


class RealCallsMixin:
    """IR functions and calls for recursive real functions (part of `transformer.Transformer`)."""

    def call_ir_function(self, func_obj: Any, args: list[Any], kwargs: dict[str, Any], loc: Any):
        fn = func_obj.__ti_func__
        args = [*getattr(func_obj, "__ti_bound__", ()), *args]
        arguments = self._bind_func_args(fn, args, kwargs, loc)
        annotations = {n: resolve_annotation(fn, fn.__annotations__.get(n)) for n in arguments}
        templates = {n: v for n, v in arguments.items() if _is_template(annotations[n])}
        for name, value in templates.items():
            if is_runtime(value) or isinstance(value, (ExprVector, StructValue)):
                raise TaichiSyntaxError(
                    f"ti.template() parameter '{name}' of the recursive ti.real_func "
                    f"'{fn.__name__}' takes a value known at compile time (a field, a number); "
                    "annotate it with a type to pass a run-time value",
                    loc,
                )
        key = (fn, tuple((n, _template_key(v)) for n, v in templates.items()))
        function = self.ir_functions.get(key)
        if function is None:
            function = self._define_function(func_obj, annotations, templates, key, loc)
        flat: list[fe.Expr] = []
        for name, value in arguments.items():
            if name not in templates:
                flat.extend(self._flat_argument(fn, name, annotations[name], value, loc))
        ret = function.ret_types[0] if function.ret_types else None
        call = fe.FuncCallExpr(Callee(function.name), flat, dtype=ret, loc=loc)
        if ret is None:  # a statement of its own: it runs here, exactly once
            self.emit(fe.FrontendExprStmt(call, loc=loc))
            return None
        result = self.new_var(ret, f"{function.name}_ret", call, loc)
        return fe.IdExpr(result, dtype=ret, loc=loc)

    # --- the caller's side ------------------------------------------------------------------

    def _param_types(self, fn: Any, name: str, ann: Any, loc: Any) -> list[PrimitiveType]:
        """The scalar types parameter `name` passes, element by element."""
        if getattr(ann, "__ti_ref__", None) is not None or hasattr(ann, "ndim"):
            raise TaichiSyntaxError(
                f"parameter '{name}' of the recursive ti.real_func '{fn.__name__}': tistudio "
                "passes scalars, vectors, matrices and structs to a function that calls itself "
                "(not ti.ref or ndarrays)",
                loc,
            )
        struct_type = getattr(ann, "_ti_struct_type", None)
        if struct_type is not None:
            return self.struct_scalar_types(struct_type, loc)
        matrix = getattr(ann, "_ti_matrix_type", None)
        if matrix is not None:
            shape, dtype = matrix
            if dtype is None:
                raise TaichiSyntaxError(
                    f"parameter '{name}' of the recursive ti.real_func '{fn.__name__}' needs an "
                    "element type (e.g. ti.types.vector(3, ti.f32))",
                    loc,
                )
            return [self.resolve_dtype(dtype, loc)] * math.prod(shape)
        return [self.resolve_dtype(ann, loc)]

    def _flat_argument(self, fn: Any, name: str, ann: Any, value: Any, loc: Any) -> list[Any]:
        types = self._param_types(fn, name, ann, loc)
        if getattr(ann, "_ti_struct_type", None) is not None:
            if not isinstance(value, StructValue):
                raise TaichiSyntaxError(f"parameter '{name}' takes a struct", loc)
            values = self.flatten_struct(value)
        elif hasattr(ann, "_ti_matrix_type"):
            check_matrix_arg(name, ann, value, loc)
            values = list(value.elements)
        else:
            values = [value]
        return [self.typed(v, t, loc) for v, t in zip(values, types)]

    # --- the function's body ----------------------------------------------------------------

    def _define_function(
        self, func_obj: Any, annotations: dict[str, Any], templates: dict[str, Any], key: Any, loc
    ) -> Function:
        fn = func_obj.__ti_func__
        parsed = func_obj._ti_parsed()
        ret_ann = resolve_annotation(fn, fn.__annotations__.get("return"))
        ret = self._function_return_type(fn, ret_ann, loc)
        line = parsed.node.lineno + parsed.line_offset
        where = SourceLoc(parsed.filename, line, 0, parsed.source_line(line))
        name = f"{fn.__name__}_{len(self.ir_functions)}"
        function = Function(name, Block(), [], [ret] if ret else [], loc=where)
        self.ir_functions[key] = function  # before its body, which calls it
        scope = Scope(function_globals(fn))
        frame = FuncFrame(parsed, scope, "func", ret_ann)
        frame.real = True
        saved = (self.blocks, self.frame, self.loop_kinds, self.runtime_nesting)
        saved_more = (self.func_stack, self.loop_config)
        self.blocks, self.frame, self.loop_kinds, self.runtime_nesting = (
            [function.body],
            frame,
            [],
            0,
        )
        self.func_stack, self.loop_config = [fn], LoopConfig()
        try:
            self._bind_function_params(function, annotations, templates, scope, where)
            self.compile_func_body(parsed.node.body, frame)
            values = []
            if ret is not None:
                result = self.func_result(frame, where)
                values = [self.typed(0 if result is None else result, ret, where)]
            self.emit(fe.FrontendReturn(values, loc=where))
        finally:
            self.blocks, self.frame, self.loop_kinds, self.runtime_nesting = saved
            self.func_stack, self.loop_config = saved_more
        return function

    def _function_return_type(self, fn: Any, ret_ann: Any, loc: Any) -> PrimitiveType | None:
        if ret_ann is None:
            return None
        if not self.is_dtype_like(ret_ann):
            raise TaichiSyntaxError(
                f"the recursive ti.real_func '{fn.__name__}' returns {ret_ann}: tistudio's "
                "functions that call themselves return one scalar (or nothing) for now",
                loc,
            )
        return self.resolve_dtype(ret_ann, loc)

    def _bind_function_params(
        self,
        function: Function,
        annotations: dict[str, Any],
        templates: dict[str, Any],
        scope: Scope,
        loc: Any,
    ) -> None:
        """Bind each parameter to a variable holding its `argload`s (templates to their value)."""
        fn = self.func_stack[0]
        for name, ann in annotations.items():
            if name in templates:
                value = templates[name]
                scope.bind(name, value.var if isinstance(value, fe.IdExpr) else value)
                continue
            types = self._param_types(fn, name, ann, loc)
            first = len(function.params)
            leaves = [fe.ArgLoadExpr(first + k, dtype=t, loc=loc) for k, t in enumerate(types)]
            labels = [name] if len(types) == 1 else [f"{name}_{k}" for k in range(len(types))]
            function.params.extend(Param(lab, "scalar", t) for lab, t in zip(labels, types))
            struct_type = getattr(ann, "_ti_struct_type", None)
            if struct_type is not None:
                value: Any = self.unflatten_struct(struct_type, leaves, loc)
            elif hasattr(ann, "_ti_matrix_type"):
                value = ExprVector(leaves, tuple(ann._ti_matrix_type[0]))
            else:
                value = leaves[0]
            scope.bind(name, self._param_value(name, ann, value, loc))
