"""`for` loops in kernels: range-for, ndrange, struct-for over fields, grouped, and ti.static.

The outermost loops of a kernel run in parallel (the `offload` pass decides which loops are
outermost); `ti.loop_config(serialize=True)` keeps the next one serial. A `ti.static(...)` loop is
unrolled at compile time: its body is compiled once per element, with the loop variable bound to
the element as a Python value.
"""

from __future__ import annotations

import ast
import itertools
import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import (
    ExprVector,
    GroupedValue,
    LoopConfig,
    NdarrayArg,
    NdRangeValue,
)
from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType
from tistudio.ir.types import I32_MAX, i32


class LoopsMixin:
    """Compiles `for` statements (part of `transformer.Transformer`)."""

    static_exit: str | None = None  # "break"/"continue" met in the innermost ti.static loop
    static_nesting = 0  # `runtime_nesting` at the innermost ti.static loop's body

    def compile_for(self, node: ast.For) -> None:
        loc = self.loc(node)
        if node.orelse:
            raise TaichiSyntaxError("'for ... else' is not supported in kernels", loc)
        config, self.loop_config = self.loop_config, LoopConfig()
        if self.is_static_call(node.iter):
            self.static_for(node, self.visit_expr(node.iter))
            return
        iterable = self.visit_expr(node.iter)
        names = self.target_names(node.target)
        grouped = isinstance(iterable, GroupedValue)
        if grouped:
            iterable = iterable.target
        if isinstance(iterable, range):
            iterable = NdRangeValue([(iterable.start, iterable.stop)])
        if isinstance(iterable, NdarrayArg):  # `for i, j in arr`: every element's index
            iterable = NdRangeValue([(0, n) for n in iterable.shape_exprs()])
        if isinstance(iterable, NdRangeValue):
            loop = self.ndrange_loop(iterable, loc)
        elif hasattr(iterable, "_ti_place_snode"):
            loop = self.struct_loop(iterable, loc)
        else:
            raise TaichiSyntaxError(
                f"cannot iterate over {type(iterable).__name__} in a kernel; use range(), "
                "ti.ndrange(), ti.grouped() or a field",
                loc,
            )
        self.bind_loop_vars(loop, names, grouped, loc, ndrange=isinstance(iterable, NdRangeValue))
        loop.parallel = not config.serialize
        loop.block_dim = config.block_dim or 0  # the GPU's workgroup size for this loop
        kind = "parallel" if loop.parallel and self.runtime_nesting == 0 else "serial"
        self.loop_kinds.append(kind)
        try:
            loop.set_block("body", self.loop_body(node.body, loop, names, grouped))
        finally:
            self.loop_kinds.pop()
        self.emit(loop)

    def loop_body(
        self, body: list[ast.stmt], loop: fe.FrontendFor, names: list[str], grouped: bool
    ) -> Any:
        self.scope.push()
        try:
            values = _loop_values(loop)
            if grouped:
                self.scope.bind(names[0], ExprVector(values))
            else:
                for name, expr in zip(names, values):
                    self.scope.bind(name, expr)
            return self.nested_block(body)
        finally:
            self.scope.pop()

    def target_names(self, target: ast.expr) -> list[str]:
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Name) for e in target.elts
        ):
            return [e.id for e in target.elts]  # type: ignore[attr-defined]
        raise TaichiSyntaxError("loop variables must be names", self.loc(target))

    def ndrange_loop(self, nd: NdRangeValue, loc: Any) -> fe.FrontendFor:
        leading = [e - b for b, e in nd.bounds[:-1] if isinstance(b, int) and isinstance(e, int)]
        if len(leading) == len(nd.bounds) - 1 and math.prod(leading) > I32_MAX:
            raise TaichiSyntaxError(  # the leading axes are counted by one 32-bit index
                f"a ti.ndrange whose leading axes have {math.prod(leading):,} elements is "
                f"more than a 32-bit loop index counts ({I32_MAX:,})",
                loc,
            )
        bounds = [(self.index_expr(b, loc), self.index_expr(e, loc)) for b, e in nd.bounds]
        if len(bounds) == 1:
            loop = fe.FrontendFor([], begin=bounds[0][0], end=bounds[0][1], loc=loc)
        else:
            loop = fe.FrontendFor([], ranges=bounds, loc=loc)
        loop.loop_var_exprs = [
            fe.LoopVarExpr(loop, k, dtype=i32, loc=loc) for k in range(len(bounds))
        ]
        return loop

    def struct_loop(self, field: Any, loc: Any) -> fe.FrontendFor:
        for leaf in field._ti_leaves():
            leaf._ti_check_usable(loc)
        snode = field._ti_place_snode
        shape = snode.shape
        cells = math.prod(shape)
        if cells > I32_MAX:  # one 32-bit index counts the cells (or the rows)
            raise TaichiSyntaxError(
                f"a loop over a field of shape {tuple(shape)} would run {cells:,} "
                f"iterations, more than a 32-bit loop index counts ({I32_MAX:,}); loop over "
                "part of it (ti.ndrange over a slice of its shape)",
                loc,
            )
        if self.runtime_nesting > 0:  # an inner loop over a dense field is a serial ndrange
            start = snode.index_offsets or (0,) * len(shape)
            return self.ndrange_loop(NdRangeValue([(b, b + n) for b, n in zip(start, shape)]), loc)
        loop = fe.FrontendFor([], snode=snode, loc=loc)
        loop.loop_var_exprs = [
            fe.LoopVarExpr(loop, k, dtype=i32, loc=loc) for k in range(len(shape))
        ]
        return loop

    def bind_loop_vars(
        self, loop: fe.FrontendFor, names: list[str], grouped: bool, loc: Any, ndrange: bool
    ) -> None:
        n = len(loop.loop_var_exprs)
        if grouped:
            if len(names) != 1:
                raise TaichiSyntaxError("ti.grouped(...) loops take exactly one variable", loc)
        elif len(names) != n:
            message = f"this loop has {n} index(es) but {len(names)} loop variable(s) were given"
            if ndrange:  # Taichi's words, which its tests match
                message += (
                    ": Ndrange for loop with number of the loop variables not equal to the "
                    "dimension of the ndrange is not supported; give one variable per "
                    "ti.ndrange argument, or loop over ti.grouped(ti.ndrange(...))"
                )
            raise TaichiSyntaxError(message, loc)
        loop.loop_vars = [fe.Identifier(self.next_var_id(), i32, nm) for nm in names]

    def static_for(self, node: ast.For, iterable: Any) -> None:
        """Unroll: compile the body once per element. A `break` or `continue` reached at compile
        time (not under a run-time `if`) sets `static_exit`, which stops the statements after
        it (`visit_body`) and here ends the unrolling or moves on to the next element."""
        loc = self.loc(node)
        items = self.static_items(iterable, loc)
        self.loop_kinds.append("static")
        outer_nesting, self.static_nesting = self.static_nesting, self.runtime_nesting
        try:
            for item in items:
                self.scope.push()
                try:
                    self.bind_static_target(node.target, item, loc)
                    self.emit_block_inline(self.nested_block(node.body, runtime=False))
                finally:
                    self.scope.pop()
                exit_, self.static_exit = self.static_exit, None
                if exit_ == "break":
                    break
        finally:
            self.static_nesting = outer_nesting
            self.loop_kinds.pop()

    def static_loop_exit(self, word: str, loc: Any) -> None:
        """`break`/`continue` in the body of a ti.static loop: it cuts the unrolled iterations,
        so it must be decided at compile time (Taichi refuses one under a run-time `if`)."""
        if self.runtime_nesting > self.static_nesting:
            raise TaichiSyntaxError(
                f"You are trying to `{word}` a static `for` loop, but the `{word}` statement is "
                f"inside a non-static `if`. The unrolled loop's `{word}` happens at compile "
                f"time: make the condition ti.static(...), or use a run-time loop",
                loc,
            )
        self.static_exit = word

    def static_items(self, iterable: Any, loc: Any, comprehension: bool = False) -> list[Any]:
        """The elements a compile-time loop (ti.static for, a comprehension) runs over: a
        range, a ti.ndrange with compile-time bounds (tuples), ti.grouped of one (vectors of
        ints), a vector's elements (a matrix's rows) or any Python iterable."""
        what = "a comprehension" if comprehension else "ti.static for"
        grouped = isinstance(iterable, GroupedValue)
        if grouped:
            iterable = iterable.target
        if isinstance(iterable, NdRangeValue):
            if any(is_runtime(b) or is_runtime(e) for b, e in iterable.bounds):
                if comprehension:  # Taichi's TypeError from calling Python's range()
                    raise TaichiTypeError(
                        "a comprehension is unrolled at compile time, so its range(...) or "
                        "ti.ndrange(...) needs compile-time bounds, but a bound is computed at "
                        "run time; use a run-time for loop",
                        loc,
                    )
                raise TaichiSyntaxError(
                    "ti.static() of range(...) or ti.ndrange(...) needs compile-time bounds, "
                    "but a bound is computed at run time",
                    loc,
                )
            ranges = (range(b, e) for b, e in iterable.bounds)
            iterable = list(itertools.product(*ranges))
            if grouped:
                return [ExprVector(list(index)) for index in iterable]
        elif grouped:
            raise TaichiSyntaxError(
                f"{what} over ti.grouped(...) needs a ti.ndrange(...) with compile-time bounds",
                loc,
            )
        if is_runtime(iterable):
            raise TaichiSyntaxError(
                f"{what} runs at compile time and cannot iterate over a value computed at run "
                "time; use a run-time for loop",
                loc,
            )
        try:
            return list(iterable)
        except TypeError:
            raise TaichiSyntaxError(
                f"{what} needs a compile-time iterable, got {type(iterable).__name__}", loc
            ) from None

    def bind_static_target(self, target: ast.expr, item: Any, loc: Any) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, item)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            values = list(item)
            if len(values) != len(target.elts):
                raise TaichiSyntaxError("cannot unpack the ti.static loop element", loc)
            for t, v in zip(target.elts, values):
                self.bind_static_target(t, v, loc)
            return
        raise TaichiSyntaxError("ti.static loop variables must be names", loc)


def _loop_values(loop: fe.FrontendFor) -> list[fe.Expr]:
    """What the loop variables stand for: the loop indices, plus the field's offset in a
    struct-for over a field with one (its indices start there, Taichi's `index_offsets`)."""
    offsets = loop.snode.index_offsets if loop.snode is not None else ()
    if not offsets:
        return list(loop.loop_var_exprs)
    return [
        fe.BinaryOpExpr(
            BinaryOpType.add, var, fe.ConstExpr(o, dtype=i32, loc=var.loc), dtype=i32, loc=var.loc
        )
        if o
        else var
        for var, o in zip(loop.loop_var_exprs, offsets)
    ]
