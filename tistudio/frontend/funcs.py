"""`@ti.func` calls: the callee's body is compiled in place at each call site (inlined).

A `ti.real_func` is inlined too, unless it is part of a call cycle (`real_calls.py`).

Parameters annotated `ti.template()` are passed by reference (a field, or the caller's
variable itself); all others are copied into new variables, as Taichi passes them by value. A
`return` becomes an assignment to a result variable, where compiling the body stops
(`returns.py`); a real function's body sits in a one-trip `while` loop, so that a `return`
anywhere in it can `break` out of it.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any

from tistudio.frontend.arguments import bind_arguments, is_plain
from tistudio.frontend.errors import (
    TaichiArgumentError,
    TaichiSyntaxError,
    TaichiTypeError,
    element_type_text,
    matrix_type_text,
)
from tistudio.frontend.loop_returns import FLAG, with_loop_exits
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.returns import check_returned
from tistudio.frontend.scope import Scope
from tistudio.frontend.source import (
    ParsedFunction,
    function_globals,
    resolve_annotation,
    signature_of,
)
from tistudio.frontend.values import ExprVector, NdarrayArg, StructValue, StructVar, VectorVar
from tistudio.ir import frontend as fe
from tistudio.ir.stmt import Block
from tistudio.ir.types import TensorType

MAX_INLINE_DEPTH = 64


class FuncFrame:
    """What the transformer needs while compiling one function body."""

    def __init__(
        self, parsed: ParsedFunction, scope: Scope, kind: str, ret_annotation: Any = None
    ) -> None:
        self.parsed = parsed
        self.scope = scope
        self.kind = kind  # "kernel" | "func"
        self.ret_annotation = ret_annotation
        self.result: list[fe.Identifier] | None = None
        self.result_site: tuple[Block, int] | None = None  # where to declare the result variable
        self.early_return = False
        self.real = False  # a `ti.real_func` (`lang/real_func.py`)
        self.returned_flag: fe.Identifier | None = None  # set by a return inside a loop
        self.base_nesting = 0  # the caller's `runtime_nesting`: run-time if/for/while above us
        self.returned: str | None = None  # "void" | "value": the rest is not compiled (Taichi)


class RecursiveRealFunc(BaseException):  # noqa: N818 - a signal, not an error
    """Real function `fn` was reached again while its body was being compiled in place:
    `kernel_builder` compiles the kernel again with `fn` as an IR function (`real_calls.py`).
    A BaseException, so that no `except Exception` on the way turns it into a user error."""

    def __init__(self, fn: Any) -> None:
        super().__init__(fn.__name__)
        self.fn = fn


def _refuse_captured_ndarray(name: str, ann: Any, value: Any, loc: Any) -> None:
    """A ti.ndarray object (not a kernel's ndarray parameter) passed for a function's
    ti.types.ndarray() parameter: Taichi refuses it, and read at compile time its elements
    would be stale constants (indexing one anywhere is refused by `subscript`)."""
    if hasattr(ann, "ndim") and hasattr(value, "_ti_numpy_storage"):
        raise TaichiTypeError(
            f"argument '{name}' is a ti.ndarray that is not a parameter of the kernel; pass it "
            "to the kernel as a ti.types.ndarray() argument: Expected ndarray in the kernel "
            f"argument for argument {name}, got <ti.ndarray>",
            loc,
        )


def _returns_in_loops(body: list[ast.stmt]) -> ast.Return | None:
    for node in body:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.For, ast.While)):
                for inner in ast.walk(sub):
                    if isinstance(inner, ast.Return):
                        return inner
    return None


class FuncsMixin:
    """Inlining of `ti.func` calls (part of `transformer.Transformer`)."""

    def inline_func(
        self,
        func_obj: Any,
        args: list[Any],
        kwargs: dict[str, Any],
        loc: Any,
        self_ref: bool = False,
    ) -> Any:
        fn = func_obj.__ti_func__
        real = getattr(func_obj, "__ti_real__", False)
        if real and fn in self.called:  # part of a call cycle: an IR function (real_calls.py)
            return self.call_ir_function(func_obj, args, kwargs, loc)
        args = [*getattr(func_obj, "__ti_bound__", ()), *args]  # a method's instance, `self`
        if real and fn in self.func_stack:  # compile the kernel again, calling `fn`
            raise RecursiveRealFunc(fn)
        if fn in self.func_stack or len(self.func_stack) > MAX_INLINE_DEPTH:
            raise TaichiSyntaxError(
                f"ti.func '{fn.__name__}' calls itself; recursion is not supported in Taichi", loc
            )
        parsed = func_obj._ti_parsed()
        arguments = self._bind_func_args(fn, args, kwargs, loc)
        scope = Scope(function_globals(fn))
        if self_ref:  # a struct method's `self`: the caller's struct, by reference
            first = next(iter(arguments))
            scope.bind(first, arguments.pop(first))
        self.bind_func_params(fn, scope, arguments, loc)
        ret = resolve_annotation(fn, fn.__annotations__.get("return"))
        frame = FuncFrame(parsed, scope, "func", ret)
        frame.real = real
        frame.base_nesting = self.runtime_nesting
        saved = (self.frame, self.loop_kinds)
        self.frame, self.loop_kinds = frame, []
        self.func_stack.append(fn)
        try:
            self.compile_func_body(parsed.node.body, frame)
        finally:
            self.func_stack.pop()
            self.frame, self.loop_kinds = saved
        if ret is not None:
            check_returned(frame, "func", loc)
        return self.func_result(frame, loc)

    def _bind_func_args(
        self, fn: Any, args: list[Any], kwargs: dict[str, Any], loc: Any
    ) -> dict[str, Any]:
        """Each parameter's value, bound as Taichi binds a ti.func's arguments (a function
        with *args, **kwargs or keyword-only parameters, which Taichi refuses, as Python
        binds them)."""
        sig = signature_of(fn)
        what = f"ti.func '{fn.__name__}'"
        if is_plain(sig):
            try:
                return bind_arguments(what, sig, args, kwargs, partial(resolve_annotation, fn))
            except TaichiArgumentError as e:
                raise TaichiArgumentError(e.raw_message, loc) from None
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TaichiArgumentError(f"calling {what}: {e}", loc) from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def bind_func_params(self, fn: Any, scope: Scope, arguments: dict[str, Any], loc: Any) -> None:
        annotations = fn.__annotations__
        for name, value in arguments.items():
            ann = resolve_annotation(fn, annotations.get(name))
            scope.bind(name, self._param_value(name, ann, value, loc))

    def _param_value(self, name: str, ann: Any, value: Any, loc: Any) -> Any:
        """What parameter `name` (annotated `ann`) holds in the callee for argument `value`."""
        _refuse_captured_ndarray(name, ann, value, loc)
        if getattr(ann, "__ti_ref__", None) is not None:  # a real function's ti.ref(dtype)
            if not isinstance(value, fe.IdExpr):
                raise TaichiSyntaxError(f"ti.ref parameter '{name}' takes a variable", loc)
            return value.var
        if getattr(ann, "__ti_template__", False):
            # by reference: the caller's variable itself
            return value.var if isinstance(value, fe.IdExpr) else value
        if isinstance(value, NdarrayArg) and hasattr(ann, "ndim"):  # ti.types.ndarray(...)
            self._check_ndarray_arg(name, ann, value, loc)
            return value
        if hasattr(ann, "_ti_matrix_type"):  # by value, after Taichi's shape checks
            check_matrix_arg(name, ann, value, loc)
            return self.declare_matrix(name, value, loc)
        if ann is not None and self.is_dtype_like(ann):
            dtype = self.resolve_dtype(ann, loc)
            return self.new_var(dtype, name, self.ops.cast(value, dtype, loc), loc)
        if is_runtime(value) or self._is_number(value):
            expr = self.ops.const(value, loc)
            return self.new_var(expr.dtype, name, expr, loc)
        if isinstance(value, ExprVector):  # by value, in a tensor variable
            return self.declare_matrix(name, value, loc)
        if isinstance(value, StructValue):  # by value, one variable per member
            return self.declare_struct(name, value, loc)
        return value

    def _check_ndarray_arg(self, name: str, ann: Any, value: NdarrayArg, loc: Any) -> None:
        """A ti.func parameter annotated `ti.types.ndarray(dtype=...)` takes an ndarray of that
        element type, as Taichi checks it (its `check_matched`; the number of dimensions is
        not checked in a func, as in Taichi)."""
        if ann.dtype is None:
            return
        given = element_type_text(value.dtype, value.element_shape)
        if hasattr(ann.dtype, "_ti_matrix_type"):
            shape, dtype = ann.dtype._ti_matrix_type
            dtype = self.resolve_dtype(dtype, loc) if dtype is not None else value.dtype
            if tuple(shape) == value.element_shape and dtype == value.dtype:
                return
            want = matrix_type_text(shape, dtype)
            taichi = f"Invalid value for argument {name} - required element type: {want}, but"
        else:
            want = self.resolve_dtype(ann.dtype, loc)
            if want == value.dtype and not value.element_shape:
                return
            taichi = f"Expect element type {want} for argument {name}, but get"
        raise TaichiTypeError(
            f"ti.func parameter '{name}' takes an ndarray of {want} elements, but "
            f"'{value.name}' has {given} elements: {taichi} {given}"
            + (" is provided" if taichi.startswith("Invalid") else ""),
            loc,
        )

    def compile_func_body(self, body: list[ast.stmt], frame: FuncFrame) -> None:
        if not frame.real:  # its returns stand where compiling stops (`returns.py`)
            self.visit_body(body)
            return
        if _returns_in_loops(body) is not None:  # a flag and a chain of breaks
            flag = self.new_var(self.config.default_ip, "returned", self.ops.const(0, None), None)
            frame.scope.bind(FLAG, flag)
            frame.returned_flag = flag
            body = with_loop_exits(body)
        # a real function's body always sits in the one-trip loop: its loops are its own,
        # serial even where it is called at the kernel's top level
        frame.early_return = True
        frame.result_site = (self.blocks[-1], len(self.blocks[-1]))
        wrapper = fe.FrontendWhile(self.ops.const(1, None))
        self.loop_kinds.append("serial")
        try:
            inner = self.nested_block(body)
        finally:
            self.loop_kinds.pop()
        inner.append(fe.FrontendBreak())
        wrapper.set_block("body", inner)
        self.emit(wrapper)

    def func_return(self, node: ast.Return) -> None:
        frame: FuncFrame = self.frame
        loc = self.loc(node)
        value = self.visit_expr(node.value) if node.value is not None else None
        if not frame.real:
            frame.returned = "void" if value is None else "value"
        if frame.real and value is not None and frame.ret_annotation is None:
            raise TaichiSyntaxError(
                "A function with a return value must be annotated with a return type, "
                "e.g. def func() -> ti.f32",
                loc,
            )
        if value is not None:
            self._store_result(frame, value, loc)
        if frame.returned_flag is not None:
            flag = fe.IdExpr(frame.returned_flag, dtype=frame.returned_flag.dtype, loc=loc)
            self.emit(fe.FrontendAssign(flag, self.ops.const(1, loc), loc=loc))
        if frame.early_return:
            self.emit(fe.FrontendBreak(loc=loc))

    def _store_result(self, frame: FuncFrame, value: Any, loc: Any) -> None:
        """Assign a returned value (or tuple of values) to the function's result variables."""
        values = list(value) if isinstance(value, tuple) else [value]
        if frame.result is None:
            frame.result = [self._result_var(frame, v, loc) for v in values]
        if len(values) != len(frame.result):
            raise TaichiSyntaxError("every return of a ti.func must return as many values", loc)
        for var, v in zip(frame.result, values):
            if isinstance(var, VectorVar):
                self.assign_vector_var(var, v, loc)
            elif isinstance(var, StructVar):
                self.store_struct(self.read_struct_var(var, loc), v, loc)
            else:
                target = fe.IdExpr(var, dtype=var.dtype, loc=loc)
                self.emit(fe.FrontendAssign(target, self.ops.const(v, loc), loc=loc))

    def _result_var(self, frame: FuncFrame, value: Any, loc: Any) -> Any:
        if isinstance(value, StructValue):
            site = frame.result_site
            if site is None:
                return self.declare_struct("ret", value, loc)
            block, index = site  # declared before the one-trip loop, initialised to zero
            marker = len(block)
            self.blocks.append(block)  # emitted there, then moved to `index`
            try:
                zero = self.construct_struct(value.type, [], {}, loc)
                svar = self.declare_struct("ret", zero, loc)
            finally:
                self.blocks.pop()
            moved = block.stmts[marker:]
            del block.stmts[marker:]
            block.insert(index, *moved)
            return svar
        if isinstance(value, ExprVector):
            dtype = self.element_type(value, loc)
            ann = frame.ret_annotation
            if hasattr(ann, "_ti_matrix_type") and ann._ti_matrix_type[1] is not None:
                dtype = self.resolve_dtype(ann._ti_matrix_type[1], loc)
            var = fe.Identifier(self.next_var_id(), TensorType(value.shape, dtype), "ret")
            self._declare_result(frame, fe.FrontendAlloca(var, loc=loc))
            return VectorVar(var, value.shape)
        if frame.ret_annotation is not None and self.is_dtype_like(frame.ret_annotation):
            dtype = self.resolve_dtype(frame.ret_annotation, loc)
        else:
            dtype = self.ops.const(value, loc).dtype
        var = fe.Identifier(self.next_var_id(), dtype, "ret")
        self._declare_result(frame, fe.FrontendAlloca(var, loc=loc))
        return var

    def _declare_result(self, frame: FuncFrame, alloca: fe.FrontendAlloca) -> None:
        if frame.result_site is not None:
            block, index = frame.result_site
            block.insert(index, alloca)
        else:
            self.emit(alloca)

    def func_result(self, frame: FuncFrame, loc: Any) -> Any:
        if frame.result is None:
            return None
        exprs = [
            self.read_vector_var(v, loc) if isinstance(v, VectorVar) else self.read_member(v, loc)
            for v in frame.result
        ]
        return exprs[0] if len(exprs) == 1 else tuple(exprs)


def check_matrix_arg(name: str, ann: Any, value: Any, loc: Any) -> None:
    """A ti.func parameter annotated as a vector or matrix takes one of that shape; Taichi's
    words: "Argument a of type ... is expected to be a Matrix with n 3, but got 2"."""
    shape = tuple(ann._ti_matrix_type[0])
    kind = f"{shape[0]}-vector" if len(shape) == 1 else f"{shape[0]}x{shape[1]} matrix"
    start = f"ti.func parameter '{name}' is a {kind}"
    taichi = f"Argument {name} of type {ann} is expected to be a Matrix"
    if not isinstance(value, ExprVector):
        raise TaichiSyntaxError(
            f"{start}, but gets a {type(value).__name__}: {taichi}, but got {type(value)}.", loc
        )
    got = tuple(value.shape)
    if len(got) != len(shape):
        raise TaichiSyntaxError(
            f"{start}, but gets shape {got}: {taichi} with ndim {len(shape)}, but got {len(got)}.",
            loc,
        )
    for axis, letter in enumerate("nm"[: len(shape)]):
        if got[axis] != shape[axis]:
            raise TaichiSyntaxError(
                f"{start}, but gets shape {got}: {taichi} with {letter} {shape[axis]}, but got "
                f"{got[axis]}.",
                loc,
            )
