"""Python statements in a kernel: assignments, control flow, loops, returns."""

from __future__ import annotations

import ast
import dataclasses
import math
from typing import Any

from tistudio.frontend.asserts import compile_assert
from tistudio.frontend.errors import (
    TaichiCompilationError,
    TaichiSyntaxError,
    TaichiTypeError,
    unsupported,
)
from tistudio.frontend.matrix import SWIZZLE
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.returns import compile_return
from tistudio.frontend.scope import MISSING
from tistudio.frontend.values import ExprVector, PickedElement, StructValue, StructVar, VectorVar
from tistudio.ir import frontend as fe
from tistudio.ir.ops import AtomicOpType
from tistudio.ir.stmt import Block
from tistudio.ir.types import TensorType

ATOMIC_AUGASSIGN = {
    ast.Add: AtomicOpType.add,
    ast.Sub: AtomicOpType.sub,
    ast.BitAnd: AtomicOpType.bit_and,
    ast.BitOr: AtomicOpType.bit_or,
    ast.BitXor: AtomicOpType.bit_xor,
}


class _Shape:
    """A vector type of a given shape and no declared dtype (for vector literals)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._ti_matrix_type = (shape, None)


class StatementsMixin:
    """Statement half of the transformer (see `transformer.Transformer`)."""

    def visit_body(self, stmts: list[ast.stmt]) -> None:
        for node in stmts:
            if self.static_exit:  # a ti.static loop's break/continue skips the rest
                return
            if self.frame.returned:  # so does a return reached while compiling (Taichi)
                return
            self.visit_stmt(node)

    def visit_stmt(self, node: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is None:
            raise TaichiSyntaxError(
                unsupported("statements", type(node).__name__),
                self.loc(node),
            )
        method(node)

    def nested_block(self, stmts: list[ast.stmt], runtime: bool = True) -> Block:
        """Compile `stmts` into a new block in a new scope."""
        block = Block()
        self.blocks.append(block)
        self.scope.push()
        self.runtime_nesting += int(runtime)
        try:
            self.visit_body(stmts)
        finally:
            self.runtime_nesting -= int(runtime)
            self.scope.pop()
            self.blocks.pop()
        return block

    # --- simple statements -------------------------------------------------------------

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        value = self.visit_expr(node.value)
        for item in value.elements if isinstance(value, ExprVector) else [value]:
            if isinstance(item, fe.AtomicOpExpr):  # evaluated for its effect
                self.emit(fe.FrontendExprStmt(item, loc=self.loc(node)))

    def stmt_Assign(self, node: ast.Assign) -> None:
        loc = self.loc(node)
        value = self.visit_expr(node.value)
        if self.is_static_call(node.value):  # `n = ti.static(3)`: n is 3 itself, as in Taichi
            for target in node.targets:
                self.bind_static(target, value, loc)
            return
        for target in node.targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                self.assign_unpack(target, value, loc)
            else:
                self.assign(target, value, loc)

    def bind_static(self, target: ast.expr, value: Any, loc: Any) -> None:
        """Name `value` (a compile-time value) by `target`, a name or a tuple of names."""
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)):
            _check_unpack_count(value, target, loc)
            for name, item in zip(target.elts, value):
                self.bind_static(name, item, loc)
        else:
            raise TaichiSyntaxError(
                "the value of ti.static(...) can only be given a name (n = ti.static(3)), not "
                f"stored into {ast.unparse(target)}: Static assign cannot be used on elements "
                "in arrays",
                loc,
            )

    def assign_unpack(self, target: ast.Tuple | ast.List, value: Any, loc: Any) -> None:
        if isinstance(value, ExprVector) and value.is_matrix:  # as Taichi: vectors only
            raise TaichiCompilationError(
                f"cannot unpack a {value.shape[0]}x{value.shape[1]} matrix (only a vector "
                "unpacks); read its elements as m[i, j]: "
                "Matrices with more than one columns cannot be unpacked",
                loc,
            )
        items = value.elements if isinstance(value, ExprVector) else value
        if not isinstance(items, (tuple, list)):
            raise TaichiSyntaxError(
                f"cannot unpack a {type(value).__name__}: Cannot unpack type: {type(value)}", loc
            )
        _check_unpack_count(items, target, loc)
        # Read every right-hand side before writing any target (`a, b = b, a`).
        temps = [self.materialize(v, loc) for v in items]
        for t, v in zip(target.elts, temps):
            self.assign(t, v, loc)

    def materialize(self, value: Any, loc: Any) -> Any:
        if isinstance(value, StructValue):
            return self.read_struct_var(self.declare_struct("", value, loc), loc)
        if isinstance(value, ExprVector):
            return self.read_vector_var(self.declare_matrix("", value, loc), loc)
        if is_runtime(value) and not isinstance(value, fe.ConstExpr):
            var = self.new_var(value.dtype, "", value, loc)
            return fe.IdExpr(var, dtype=var.dtype, loc=loc)
        return value

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        loc = self.loc(node)
        if not isinstance(node.target, ast.Name):
            raise TaichiSyntaxError("annotated assignment needs a plain name", loc)
        annotation = self.visit_expr(node.annotation)
        value = self.visit_expr(node.value) if node.value else None
        if hasattr(annotation, "_ti_matrix_type"):
            shape, dtype = annotation._ti_matrix_type
            if not isinstance(value, ExprVector):
                value = self.construct_matrix_type(annotation, [value or 0], loc)
            dtype = self.resolve_dtype(dtype, loc) if dtype is not None else None
            self.scope.bind(node.target.id, self.declare_matrix(node.target.id, value, loc, dtype))
            return
        dtype = self.resolve_dtype(annotation, loc)
        init = self.ops.const(value, loc) if value is not None else None
        var = self.new_var(dtype, node.target.id, init, loc)
        self.scope.bind(node.target.id, var)

    def assign(self, target: ast.expr, value: Any, loc: Any) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, loc)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            self.store(self.lvalue(target, loc), value, loc)
        else:
            raise TaichiSyntaxError(f"cannot assign to {type(target).__name__}", loc)

    def lvalue(self, target: ast.Name | ast.Subscript | ast.Attribute, loc: Any) -> Any:
        """What `target` denotes as a place to write: an lvalue Expr or a vector of them."""
        if isinstance(target, ast.Name):
            var = self.vector_var_named(target)
            return self.visit_expr(target) if var is None else self.vector_var_places(var, loc)
        if isinstance(target, ast.Attribute):
            var = self.vector_var_named(target.value)
            if var is not None and set(target.attr) <= SWIZZLE.keys():
                picks = [self.vector_var_element(var, SWIZZLE[c], loc) for c in target.attr]
                return picks[0] if len(picks) == 1 else ExprVector(picks)
        if isinstance(target, ast.Subscript) and self.vector_var_named(target.value) is None:
            base, index = self.visit_expr(target.value), self.visit_expr(target.slice)
            if _is_global_vector(base) and _has_runtime_key(index):  # x[i][k] = v
                return self.picked_element(base, index, self.loc(target), label=target.value)
            return self.subscript(base, index, self.loc(target))
        return self.visit_expr(target)

    def store(self, lhs: Any, value: Any, loc: Any) -> None:
        if isinstance(lhs, StructValue):
            self.store_struct(lhs, value, loc)
        elif isinstance(lhs, ExprVector):
            if isinstance(value, (list, tuple)):  # x[i] = [0, 0]: a vector literal
                self.check_literal_fits(value, lhs, loc)
                value = self.construct_matrix_type(_Shape(lhs.shape), [value], loc)
            elif not isinstance(value, ExprVector):
                value = ExprVector([value] * len(lhs.elements), lhs.shape)
            value = self.materialize(value, loc)
            if value.shape != lhs.shape:
                raise TaichiTypeError(f"cannot assign shape {value.shape} to {lhs.shape}", loc)
            for t, v in zip(lhs.elements, value.elements):
                self.store(t, v, loc)
        elif isinstance(lhs, fe.LVALUE_EXPRS):
            self.emit(fe.FrontendAssign(lhs, self.ops.const(value, loc), loc=loc))
        elif isinstance(lhs, PickedElement):
            value = self.materialize(value, loc)
            self.write_picked(lhs, lambda element: self.store(element, value, loc), loc)
        else:
            raise TaichiSyntaxError("cannot assign to this expression in a kernel", loc)

    def check_literal_fits(self, value: list | tuple, lhs: ExprVector, loc: Any) -> None:
        """A list literal stored into a vector of another size: Taichi's TaichiTypeError,
        "cannot assign '[Tensor (2) i32]' to '[Tensor (3) i32]'"."""
        shape = _literal_shape(value)
        if math.prod(shape) == len(lhs.elements):
            return
        first = value
        while isinstance(first, (list, tuple)):
            first = first[0]
        have = self.ops.const(first, loc) if not isinstance(first, fe.Expr) else first
        raise TaichiTypeError(
            f"cannot assign '{TensorType(shape, have.dtype)}' to "
            f"'{TensorType(lhs.shape, getattr(lhs.elements[0], 'dtype', have.dtype))}'",
            loc,
        )

    def check_mutable(self, name: str, current: Any, loc: Any) -> None:
        """A kernel's arguments are read-only, as in Taichi (a ti.func's are copies)."""
        if any(current is arg for arg in self.kernel_arguments):
            raise TaichiSyntaxError(
                f"cannot assign to '{name}', an argument of the kernel; copy it into a new "
                f'variable first (v = {name}): Kernel argument "{name}" is immutable in the '
                "kernel. If you want to change its value, please create a new variable.",
                loc,
            )

    def assign_name(self, name: str, value: Any, loc: Any) -> None:
        current = self.scope.lookup_local(name)
        self.check_mutable(name, current, loc)
        if isinstance(current, VectorVar):
            self.assign_vector_var(current, value, loc)
            return
        if isinstance(current, StructVar):
            self.store_struct(self.read_struct_var(current, loc), value, loc)
            return
        if isinstance(current, fe.Identifier):
            if isinstance(value, ExprVector) or not self._is_number(value):
                raise TaichiSyntaxError(
                    f"variable '{name}' holds a {current.dtype}; cannot assign a "
                    f"{type(value).__name__} to it",
                    loc,
                )
            self.emit(
                fe.FrontendAssign(
                    fe.IdExpr(current, dtype=current.dtype, loc=loc),
                    self.ops.const(value, loc),
                    loc=loc,
                )
            )
            return
        self.scope.bind(name, self.declare(name, value, loc))

    def declare(self, name: str, value: Any, loc: Any) -> Any:
        """A new variable for a runtime or numeric value; other Python objects bind as they are."""
        if isinstance(value, ExprVector):
            var = self.declare_matrix(name, value, loc)
            return var if name else self.read_vector_var(var, loc)
        if isinstance(value, StructValue):
            svar = self.declare_struct(name, value, loc)
            return svar if name else self.read_struct_var(svar, loc)
        if isinstance(value, fe.IdExpr) and name == "":
            return value
        if self._is_number(value):
            expr = self.ops.const(value, loc)
            var = self.new_var(expr.dtype, name, expr, loc)
            return var if name else fe.IdExpr(var, dtype=var.dtype, loc=loc)
        return value

    @staticmethod
    def _is_number(value: Any) -> bool:
        import numbers

        import numpy as np

        return is_runtime(value) or (
            isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex)
        )

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        loc = self.loc(node)
        value = self.visit_expr(node.value)
        if isinstance(node.target, ast.Name):
            current = self.scope.lookup_local(node.target.id)
            self.check_mutable(node.target.id, current, loc)
            if isinstance(current, VectorVar) and type(node.op) in ATOMIC_AUGASSIGN:
                self.aug_assign_places(node.op, self.vector_var_places(current, loc), value, loc)
                return
            if isinstance(current, VectorVar):  # `*=`, `@=`...: a plain read, compute and write
                new = self.binary_value(
                    type(node.op), self.read_vector_var(current, loc), value, loc
                )
                self.assign_vector_var(current, new, loc)
                return
            if not isinstance(current, fe.Identifier):
                old = self.scope.lookup(node.target.id)
                if old is MISSING:
                    raise TaichiSyntaxError(f"name '{node.target.id}' is not defined", loc)
                self.scope.bind(node.target.id, self.binary_value(type(node.op), old, value, loc))
                return
        target = (
            self.lvalue(node.target, loc)
            if isinstance(node.target, (ast.Subscript, ast.Attribute))
            else self.visit_expr(node.target)
        )
        if isinstance(target, ExprVector):
            self.aug_assign_places(node.op, target, value, loc)
            return
        self.aug_assign_one(node.op, target, value, loc)

    def aug_assign_places(self, op: ast.operator, places: ExprVector, value: Any, loc: Any) -> None:
        """`places op= value` element by element; `value` is read once, before any update, so
        `v += v.yx` adds the old elements, and a scalar is broadcast."""
        value = self.materialize(value, loc)

        def update(place: Any, v: Any) -> None:
            self.aug_assign_one(op, place, v, loc)

        self.elementwise(update, places, value, loc=loc)

    def aug_assign_one(self, op: ast.operator, target: Any, value: Any, loc: Any) -> None:
        if isinstance(target, PickedElement):
            value = self.materialize(value, loc)

            def update(element: Any) -> None:
                self.aug_assign_one(op, element, value, loc)

            self.write_picked(target, update, loc)
            return
        if not isinstance(target, fe.LVALUE_EXPRS):
            raise TaichiSyntaxError("cannot update this expression in place", loc)
        if type(op) in ATOMIC_AUGASSIGN:  # atomic even on a local: a parallel loop may share it
            val = self.ops.const(value, loc)
            atomic = fe.AtomicOpExpr(
                ATOMIC_AUGASSIGN[type(op)], target, val, dtype=target.dtype, loc=loc
            )
            self.emit(fe.FrontendExprStmt(atomic, loc=loc))
        elif isinstance(target, fe.MatrixPtrExpr):  # `v[k] *= x`: read, compute, write
            val = self.ops.cast(self.ops.const(value, loc), target.dtype, loc)
            new = self.binary_value(type(op), target, val, loc)
            place = dataclasses.replace(target, check=None)  # the read has checked the index
            self.emit(fe.FrontendAssign(place, self.ops.const(new, loc), loc=loc))
        else:
            new = self.binary_value(type(op), target, value, loc)
            self.emit(fe.FrontendAssign(target, self.ops.const(new, loc), loc=loc))

    # --- control flow ------------------------------------------------------------------

    def stmt_If(self, node: ast.If) -> None:
        loc = self.loc(node)
        if self.is_static_call(node.test):
            cond = self.visit_expr(node.test)
            chosen = node.body if cond else node.orelse
            self.emit_block_inline(self.nested_block(chosen, runtime=False))
            return
        cond = self.ops.truth(self.visit_expr(node.test), loc)
        stmt = fe.FrontendIf(self.ops.const(cond, loc), loc=loc)
        stmt.set_block("true_block", self.nested_block(node.body))
        stmt.set_block("false_block", self.nested_block(node.orelse))
        self.emit(stmt)

    def emit_block_inline(self, block: Block) -> None:
        for s in block.take_all():
            self.emit(s)

    def stmt_While(self, node: ast.While) -> None:
        loc = self.loc(node)
        if node.orelse:
            raise TaichiSyntaxError("'while ... else' is not supported", loc)
        cond = self.ops.truth(self.visit_expr(node.test), loc)
        stmt = fe.FrontendWhile(self.ops.const(cond, loc), loc=loc)
        self.loop_kinds.append("serial")
        try:
            stmt.set_block("body", self.nested_block(node.body))
        finally:
            self.loop_kinds.pop()
        self.emit(stmt)

    def stmt_Break(self, node: ast.Break) -> None:
        if self._loop_control(node, "break"):
            self.emit(fe.FrontendBreak(loc=self.loc(node)))

    def stmt_Continue(self, node: ast.Continue) -> None:
        if self._loop_control(node, "continue"):
            self.emit(fe.FrontendContinue(loc=self.loc(node)))

    def _loop_control(self, node: ast.stmt, word: str) -> bool:
        """Check a `break`/`continue`; False when it acts at compile time (a ti.static loop)."""
        loc = self.loc(node)
        if not self.loop_kinds:
            raise TaichiSyntaxError(f"'{word}' outside a loop", loc)
        if self.loop_kinds[-1] == "static":
            self.static_loop_exit(word, loc)
            return False
        if self.loop_kinds[-1] == "parallel" and word == "break":
            raise TaichiSyntaxError(
                "'break' is not allowed in a parallel (outermost) for loop; "
                "use ti.loop_config(serialize=True) before the loop",
                loc,
            )
        return True

    def stmt_Return(self, node: ast.Return) -> None:
        compile_return(self, node)

    def stmt_Assert(self, node: ast.Assert) -> None:
        compile_assert(self, node)  # checked at run time in debug mode only, as in Taichi

    def stmt_For(self, node: ast.For) -> None:
        self.compile_for(node)

    def is_static_call(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call):
            return False
        try:
            func = self.visit_expr(node.func)
        except Exception:  # noqa: BLE001 - not resolvable here means not ti.static
            return False
        return getattr(func, "__ti_builtin__", None) == "static"


def _is_global_vector(value: Any) -> bool:
    """A vector whose elements are field or ndarray elements (`x[i]` of a vector field)."""
    lvalues = (fe.FieldIndexExpr, fe.ExternalIndexExpr)
    return isinstance(value, ExprVector) and all(isinstance(e, lvalues) for e in value.elements)


def _has_runtime_key(index: Any) -> bool:
    return any(is_runtime(k) for k in (index if isinstance(index, tuple) else (index,)))


def _check_unpack_count(values: tuple | list, target: ast.Tuple | ast.List, loc: Any) -> None:
    """`a, b = values`: as many values as targets, or Taichi's TaichiSyntaxError."""
    if len(values) != len(target.elts):
        raise TaichiSyntaxError(
            f"cannot unpack {len(values)} values into {len(target.elts)} targets: "
            "The number of targets is not equal to value length",
            loc,
        )


def _literal_shape(value: Any) -> tuple[int, ...]:
    """The shape of a (nested) list literal: `[1, 2]` is (2,), `[[1, 2], [3, 4]]` is (2, 2)."""
    if isinstance(value, (list, tuple)) and value:
        return (len(value),) + _literal_shape(value[0])
    return ()
