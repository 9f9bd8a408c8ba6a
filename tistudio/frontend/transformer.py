"""The Python-AST -> frontend-IR transformer: walks a kernel's AST once per instantiation.

Python values stay Python values while the kernel is compiled (this is how `ti.static`,
template arguments and closure constants work); everything computed at run time becomes a typed
`Expr` tree, and every statement that does something becomes a frontend statement in the
current block. Statements and expressions live in their own mixins; this class holds the state.
"""

from __future__ import annotations

import ast
import numbers
from typing import Any

from tistudio.frontend.builtins import BUILTINS, builtin_name, is_dtype
from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.expressions import ExpressionsMixin
from tistudio.frontend.funcs import FuncFrame, FuncsMixin
from tistudio.frontend.loops import LoopsMixin
from tistudio.frontend.matrix import BoundMatrixMethod, MatrixMixin
from tistudio.frontend.operators import Operators, is_runtime
from tistudio.frontend.printing import PrintingMixin, is_str_format
from tistudio.frontend.real_calls import RealCallsMixin
from tistudio.frontend.scope import Scope
from tistudio.frontend.source import signature_of
from tistudio.frontend.statements import StatementsMixin
from tistudio.frontend.structs import StructsMixin
from tistudio.frontend.values import BoundStructMethod, ExprVector, LoopConfig
from tistudio.ir import frontend as fe
from tistudio.ir.config import CompileConfig
from tistudio.ir.stmt import Block, SourceLoc, Stmt
from tistudio.ir.types import PrimitiveType, u1


class Transformer(
    StatementsMixin,
    ExpressionsMixin,
    LoopsMixin,
    FuncsMixin,
    RealCallsMixin,
    MatrixMixin,
    StructsMixin,
    PrintingMixin,
):
    """Compiles one kernel instantiation's body into frontend IR."""

    def __init__(self, config: CompileConfig, body: Block, frame: FuncFrame) -> None:
        self.config = config
        self.ops = Operators(config)
        self.blocks: list[Block] = [body]
        self.frame = frame
        self.loop_kinds: list[str] = []  # "parallel" | "serial" | "static", innermost last
        self.loop_config = LoopConfig()
        self.runtime_nesting = 0
        self.func_stack: list[Any] = []
        self.var_counter = 0
        self.kernel_ret_types: list[PrimitiveType] = []
        self.kernel_arguments: list[Any] = []  # the kernel's argument variables (read-only)
        self.called: set[Any] = set()  # real functions compiled as IR functions and calls
        self.no_activate: set[Any] = set()  # SNodes named by ti.no_activate (sparse_ops.py)
        self.ir_functions: dict[Any, Any] = {}  # (function, template key) -> ir.calls.Function

    @property
    def scope(self) -> Scope:
        return self.frame.scope

    # --- helpers shared by the mixins ----------------------------------------------------

    def loc(self, node: ast.AST) -> SourceLoc:
        parsed = self.frame.parsed
        line = getattr(node, "lineno", 1) + parsed.line_offset
        col = getattr(node, "col_offset", 0) + parsed.col_offset
        return SourceLoc(parsed.filename, line, col, parsed.source_line(line))

    def emit(self, stmt: Stmt) -> Stmt:
        return self.blocks[-1].append(stmt)

    def next_var_id(self) -> int:
        self.var_counter += 1
        return self.var_counter - 1

    def new_var(
        self, dtype: PrimitiveType, name: str, init: fe.Expr | None, loc: Any
    ) -> fe.Identifier:
        var = fe.Identifier(self.next_var_id(), dtype, name)
        self.emit(fe.FrontendAlloca(var, init, loc=loc))
        return var

    def is_dtype_like(self, value: Any) -> bool:
        return is_dtype(value) or value in (int, float)

    def resolve_dtype(self, value: Any, loc: Any) -> PrimitiveType:
        if is_dtype(value):
            return value
        if value is int:
            return self.config.default_ip
        if value is float:
            return self.config.default_fp
        if value is bool:  # as Taichi's cook_dtype: ti.cast(x, bool) is a u1
            return u1
        raise TaichiTypeError(f"{value!r} is not a Taichi data type", loc)

    # --- calls ---------------------------------------------------------------------------

    def call(
        self, func: Any, args: list[Any], kwargs: dict[str, Any], loc: Any, node: ast.Call
    ) -> Any:
        name = builtin_name(func)
        if name is not None:
            check_arguments(name, BUILTINS[name], self, loc, args, kwargs)
            return BUILTINS[name](self, loc, *args, **kwargs)
        if hasattr(func, "_ti_frontend_call"):  # a frontend value's method (x[i].append)
            return func._ti_frontend_call(self, loc, *args, **kwargs)
        if isinstance(func, BoundMatrixMethod):
            return self.call_matrix_method(func, args, kwargs, loc)
        if isinstance(func, BoundStructMethod):  # `self` is the struct itself, by reference
            return self.inline_func(func.func, [func.value, *args], kwargs, loc, self_ref=True)
        if hasattr(func, "__ti_func__"):
            return self.inline_func(func, args, kwargs, loc)
        if is_str_format(func):  # "{} {:.2f}".format(x, y), maybe of run-time values
            return self.str_format(func.__self__, args, kwargs, loc)
        return self.call_type_or_python(func, args, kwargs, loc)

    def call_type_or_python(
        self, func: Any, args: list[Any], kwargs: dict[str, Any], loc: Any
    ) -> Any:
        """A type used as a constructor or cast, or a plain Python function."""
        if hasattr(func, "_ti_struct_type"):  # a struct literal: Particle(x=..., m=1.0)
            return self.construct_struct(func._ti_struct_type, args, kwargs, loc)
        if hasattr(func, "_ti_matrix_type"):  # ti.math.vec3(1, 2, 3), ti.types.vector(...)(...)
            return self.construct_matrix_type(func, args, loc)
        if func is len and len(args) == 1 and isinstance(args[0], ExprVector):
            return len(args[0])
        if is_dtype(func):
            if len(args) != 1:
                raise TaichiSyntaxError(f"{func}(x) takes one value", loc)
            if is_runtime(args[0]) or not isinstance(args[0], numbers.Number):
                return self.ops.cast(args[0], func, loc)
            return self.annotated_literal(args[0], self.resolve_dtype(func, loc), loc)
        if getattr(func, "__ti_kernel__", False):
            raise TaichiSyntaxError(
                "a kernel cannot call another kernel; make the callee a @ti.func", loc
            )
        if func is print:
            return self.compile_print(args, kwargs, loc)
        if _creates_fields(func):
            raise TaichiSyntaxError(
                f"{func.__name__}() cannot be called inside a kernel: create fields and ndarrays "
                "in Python scope, before the kernel that uses them",
                loc,
            )
        return self.call_python(func, args, kwargs, loc)

    def construct_matrix_type(self, type_obj: Any, args: list[Any], loc: Any) -> ExprVector:
        shape, dtype = type_obj._ti_matrix_type
        flat: list[Any] = []

        def collect(value: Any) -> None:  # vectors, numbers and (nested) lists of them
            if isinstance(value, ExprVector):
                flat.extend(value.elements)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    collect(v)
            else:
                flat.append(value)

        collect(args)
        count = 1
        for s in shape:
            count *= s
        if len(flat) == 1:
            flat = flat * count
        if len(flat) != count:
            raise TaichiSyntaxError(f"{type_obj} takes {count} values, got {len(flat)}", loc)
        target = self.resolve_dtype(dtype, loc) if dtype is not None else None
        if target is not None:
            flat = [self.typed(e, target, loc) for e in flat]
        return ExprVector(flat, tuple(shape))

    def annotated_literal(self, value: Any, dtype: PrimitiveType, loc: Any) -> fe.Expr:
        """`ti.i64(0)`, `ti.f32(1.5)` in a kernel: a constant of that type, with Taichi's rules
        (an int literal needs an integer type, a float literal a float type, and must fit)."""
        if isinstance(value, numbers.Integral):
            if not dtype.is_integral:
                raise TaichiTypeError(
                    "Integer literals must be annotated with a integer type. For type casting, "
                    "use `ti.cast`.",
                    loc,
                )
            bits, signed = dtype.bits, dtype.is_signed
            low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, 2**bits - 1)
            if not low <= int(value) <= high and not isinstance(value, bool):
                raise TaichiTypeError(
                    f"Integer literal {value} exceeded the range of specified dtype: {dtype}", loc
                )
        elif not dtype.is_float:
            raise TaichiTypeError(
                "Floating-point literals must be annotated with a floating-point type. For type "
                "casting, use `ti.cast`.",
                loc,
            )
        return self.ops.const(value, loc, dtype)

    def typed(self, value: Any, dtype: PrimitiveType, loc: Any) -> fe.Expr:
        """`value` as an expression of `dtype` (Python numbers become constants of it). An int
        that `dtype` cannot hold is, as in Taichi, a literal of `default_ip` cast (wrapping) to
        it: `ti.i16` member `b=65537` holds 1, `ti.u8` element `-1` holds 255."""
        if is_runtime(value):
            return self.ops.cast(value, dtype, loc)
        number = float(value) if dtype.is_float else int(value)
        if dtype.is_integral and not _holds(dtype, number):
            return self.ops.cast(self.ops.const(number, loc), dtype, loc)
        return self.ops.const(number, loc, dtype)

    def call_python(self, func: Any, args: list[Any], kwargs: dict[str, Any], loc: Any) -> Any:
        """A plain Python function with compile-time arguments runs now, as in Taichi."""
        values = [*args, *kwargs.values()]
        if any(is_runtime(v) or isinstance(v, ExprVector) for v in values):
            fname = getattr(func, "__name__", repr(func))
            raise TaichiSyntaxError(
                f"cannot call the Python function '{fname}' with values computed at run time; "
                "decorate it with @ti.func",
                loc,
            )
        if not callable(func):
            raise TaichiTypeError(f"'{type(func).__name__}' object is not callable", loc)
        try:
            return func(*args, **kwargs)
        except (TaichiSyntaxError, TaichiTypeError):
            raise
        except Exception as e:  # noqa: BLE001 - surface Python's complaint at the user's line
            raise TaichiSyntaxError(f"{type(e).__name__}: {e}", loc) from None


def _holds(dtype: PrimitiveType, value: int) -> bool:
    """Whether the integer type `dtype` can hold `value` as it is."""
    if not dtype.is_signed:
        return 0 <= value < (1 << dtype.bits)
    return -(1 << (dtype.bits - 1)) <= value < (1 << (dtype.bits - 1))


def check_arguments(
    name: str, fn: Any, t: Any, loc: SourceLoc, args: list[Any], kwargs: dict[str, Any]
) -> None:
    """A builtin called with arguments it does not take is the user's mistake (`ti.static()`),
    reported at the call, not as a Python TypeError from inside the compiler."""
    try:
        signature_of(fn).bind(t, loc, *args, **kwargs)
    except TypeError as e:
        raise TaichiSyntaxError(f"ti.{name}(): {e}", loc) from None


# Python-scope constructors of memory: calling one while a kernel compiles would leave a field
# that no launch has memory for.
_MEMORY_CONSTRUCTORS = {"field", "ndarray", "dense", "place", "pointer", "bitmasked", "dynamic"}


def _creates_fields(func: Any) -> bool:
    module = getattr(func, "__module__", None) or ""
    return module.startswith("tistudio.lang") and getattr(func, "__name__", "") in (
        _MEMORY_CONSTRUCTORS
    )
