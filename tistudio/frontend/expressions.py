"""Python expressions in a kernel: each AST node becomes a Python value or a typed `Expr`."""

from __future__ import annotations

import ast
import itertools
from typing import Any

from tistudio.frontend.builtins import builtin_name
from tistudio.frontend.comprehensions import dict_comprehension, list_comprehension
from tistudio.frontend.errors import (
    TaichiNameError,
    TaichiSyntaxError,
    TaichiTypeError,
    unsupported,
)
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.scope import MISSING
from tistudio.frontend.values import ExprVector, NdarrayArg, StructValue, StructVar, VectorVar
from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, UnaryOpType
from tistudio.ir.types import i32

BINARY_AST = {
    ast.Add: BinaryOpType.add,
    ast.Sub: BinaryOpType.sub,
    ast.Mult: BinaryOpType.mul,
    ast.Div: BinaryOpType.truediv,
    ast.FloorDiv: BinaryOpType.floordiv,
    ast.Pow: BinaryOpType.pow,
    ast.LShift: BinaryOpType.bit_shl,
    ast.RShift: BinaryOpType.bit_sar,
    ast.BitAnd: BinaryOpType.bit_and,
    ast.BitOr: BinaryOpType.bit_or,
    ast.BitXor: BinaryOpType.bit_xor,
}
COMPARE_AST = {
    ast.Lt: BinaryOpType.cmp_lt,
    ast.LtE: BinaryOpType.cmp_le,
    ast.Gt: BinaryOpType.cmp_gt,
    ast.GtE: BinaryOpType.cmp_ge,
    ast.Eq: BinaryOpType.cmp_eq,
    ast.NotEq: BinaryOpType.cmp_ne,
}
PYTHON_ONLY_COMPARE = {
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


class ExpressionsMixin:
    """Expression half of the transformer (see `transformer.Transformer`)."""

    def visit_expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise TaichiSyntaxError(
                unsupported("expressions", type(node).__name__),
                self.loc(node),
            )
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name) -> Any:
        value = self.scope.lookup(node.id)
        if value is MISSING:
            raise TaichiNameError(f"name '{node.id}' is not defined", self.loc(node))
        if isinstance(value, fe.Identifier):
            return fe.IdExpr(value, dtype=value.dtype, loc=self.loc(node))
        if isinstance(value, VectorVar):
            return self.read_vector_var(value, self.loc(node))
        if isinstance(value, StructVar):
            return self.read_struct_var(value, self.loc(node))
        if hasattr(value, "_ti_matrix_value") and not isinstance(value, type):  # a constant
            elements, shape = value._ti_matrix_value()
            return ExprVector(list(elements), tuple(shape))
        return value

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.visit_expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> Any:
        return [self.visit_expr(e) for e in node.elts]

    def expr_Dict(self, node: ast.Dict) -> Any:
        return {self.visit_expr(k): self.visit_expr(v) for k, v in zip(node.keys, node.values)}

    def expr_ListComp(self, node: ast.ListComp) -> list[Any]:
        return list_comprehension(self, node)  # unrolled at compile time

    def expr_DictComp(self, node: ast.DictComp) -> dict[Any, Any]:
        return dict_comprehension(self, node)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Any:
        """`(y := x + 1)`: assign as `y = x + 1` would (`y := ti.static(...)` binds the value
        itself), then the expression is `y`."""
        loc = self.loc(node)
        value = self.visit_expr(node.value)
        if self.is_static_call(node.value):
            self.scope.bind(node.target.id, value)
        else:
            self.assign(node.target, value, loc)
        return self.expr_Name(ast.Name(node.target.id, ast.Load(), **_position(node.target)))

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        loc = self.loc(node)
        a, b = self.visit_expr(node.left), self.visit_expr(node.right)
        return self.binary_value(type(node.op), a, b, loc)

    def binary_value(self, op_type: type, a: Any, b: Any, loc: Any) -> Any:
        if op_type is ast.MatMult:
            return self.matmul(a, b, loc)
        if op_type is ast.Mod and isinstance(a, str):  # "x = %d" % x, maybe at run time
            return self.percent_format(a, b, loc)
        if isinstance(a, ExprVector) or isinstance(b, ExprVector):
            return self.elementwise(
                lambda x, y: self.binary_value(op_type, x, y, loc), a, b, loc=loc
            )
        if op_type is ast.Mod:
            return self.ops.mod(a, b, loc)
        if op_type not in BINARY_AST:
            raise TaichiSyntaxError(f"operator {op_type.__name__} is not supported", loc)
        return self.ops.binary(BINARY_AST[op_type], a, b, loc)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        loc = self.loc(node)
        v = self.visit_expr(node.operand)
        if isinstance(v, ExprVector):
            return self.elementwise(lambda e: self._unary(node.op, e, loc), v, loc=loc)
        return self._unary(node.op, v, loc)

    def _unary(self, op: ast.unaryop, v: Any, loc: Any) -> Any:
        if not is_runtime(v):
            table = {
                ast.USub: lambda x: -x,
                ast.UAdd: lambda x: +x,
                ast.Not: lambda x: not x,
                ast.Invert: lambda x: ~x,
            }
            return table[type(op)](v)
        if isinstance(op, ast.UAdd):
            return v
        kind = {
            ast.USub: UnaryOpType.neg,
            ast.Not: UnaryOpType.logic_not,
            ast.Invert: UnaryOpType.bit_not,
        }[type(op)]
        return self.ops.unary(kind, v, loc)

    def expr_Compare(self, node: ast.Compare) -> Any:
        loc = self.loc(node)
        left = self.visit_expr(node.left)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.visit_expr(right_node)
            if isinstance(left, ExprVector) or isinstance(right, ExprVector):
                cmp = COMPARE_AST[type(op)]
                this = self.elementwise(
                    lambda x, y, c=cmp: self.ops.binary(c, x, y, loc), left, right, loc=loc
                )
            elif type(op) in PYTHON_ONLY_COMPARE:
                if is_runtime(left) or is_runtime(right):
                    raise TaichiSyntaxError(f"'{type(op).__name__}' needs compile-time values", loc)
                this = PYTHON_ONLY_COMPARE[type(op)](left, right)
            else:
                this = self.ops.binary(COMPARE_AST[type(op)], left, right, loc)
            if result is True:
                result = this
            elif isinstance(result, ExprVector) or isinstance(this, ExprVector):
                raise TaichiSyntaxError("chained comparisons of vectors are not supported", loc)
            elif is_runtime(result) or is_runtime(this):
                result = self.ops.binary(BinaryOpType.bit_and, result, this, loc)
            else:
                result = result and this
            left = right
        return result

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        loc = self.loc(node)
        is_and = isinstance(node.op, ast.And)
        value = self.visit_expr(node.values[0])
        for operand in node.values[1:]:
            if not is_runtime(value):  # Python's own short circuit on compile-time values
                if (not value) if is_and else bool(value):
                    return value
                value = self.visit_expr(operand)
                continue
            rhs = self.visit_expr(operand)
            op = BinaryOpType.logical_and if is_and else BinaryOpType.logical_or
            value = self.ops.logical(op, self.ops.truth(value, loc), self.ops.truth(rhs, loc), loc)
        return value

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        loc = self.loc(node)
        cond = self.visit_expr(node.test)
        if not is_runtime(cond):
            return self.visit_expr(node.body if cond else node.orelse)
        a, b = self.visit_expr(node.body), self.visit_expr(node.orelse)
        if isinstance(cond, ExprVector) or isinstance(a, ExprVector) or isinstance(b, ExprVector):
            return self.elementwise(
                lambda c, x, y: self.ops.select(self.ops.truth(c, loc), x, y, loc),
                cond,
                a,
                b,
                loc=loc,
            )
        return self.ops.select(self.ops.truth(cond, loc), a, b, loc)

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        obj = self.visit_expr(node.value)
        loc = self.loc(node)
        if isinstance(obj, NdarrayArg) and node.attr == "shape":
            return obj.shape_exprs()
        if isinstance(obj, ExprVector):
            return self.matrix_attribute(obj, node.attr, loc)
        if isinstance(obj, StructValue):
            return self.struct_attribute(obj, node.attr, loc)
        if is_runtime(obj):
            raise TaichiSyntaxError(f"runtime values have no attribute '{node.attr}'", loc)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            raise TaichiSyntaxError(
                f"'{type(obj).__name__}' object has no attribute '{node.attr}'", loc
            ) from None

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        loc = self.loc(node)
        var = self.vector_var_named(node.value)
        if var is not None:  # `v[i]` on a vector variable is an lvalue, maybe at a run-time index
            return self.vector_var_element(var, _matrix_key(self.visit_expr(node.slice)), loc)
        obj = self.visit_expr(node.value)
        index = self.visit_expr(node.slice)
        if isinstance(obj, ExprVector):  # `f[i][k]`: debug errors name `f[i]`
            key = _matrix_key(index)
            if obj.clamped:  # an element of a boundary="clamp" ndarray
                key = self.clamped_element_key(obj, key, loc)
            return self.matrix_element(obj, key, loc, label=node.value)
        return self.subscript(obj, index, loc)

    def expr_Slice(self, node: ast.Slice) -> Any:
        parts = [
            self.visit_expr(p) if p is not None else None
            for p in (node.lower, node.upper, node.step)
        ]
        return slice(*parts)

    def index_list(self, index: Any, loc: Any) -> list[Any]:
        if index is None:
            return []
        if isinstance(index, ExprVector):
            return list(index.elements)
        if isinstance(index, (tuple, list)):
            out: list[Any] = []
            for item in index:
                out.extend(self.index_list(item, loc) if isinstance(item, ExprVector) else [item])
            return out
        return [index]

    def subscript(self, obj: Any, index: Any, loc: Any) -> Any:
        if hasattr(obj, "_ti_place_snode"):
            indices = [self.index_expr(i, loc) for i in self.index_list(index, loc)]
            return obj._ti_subscript(indices, loc)
        if hasattr(obj, "_ti_shared_subscript"):  # ti.simt.block.SharedArray (simt.py)
            return obj._ti_shared_subscript(self, self.index_list(index, loc), loc)
        if isinstance(obj, NdarrayArg):
            return self.ndarray_element(obj, index, loc)
        if isinstance(obj, ExprVector):
            return self.matrix_element(obj, _matrix_key(index), loc)
        if hasattr(obj, "_ti_numpy_storage"):  # read at compile time, it would be stale
            raise TaichiTypeError(
                "a ti.ndarray that is not a parameter of the kernel cannot be indexed in it; "
                "pass it to the kernel as a ti.types.ndarray() argument",
                loc,
            )
        if is_runtime(index):
            raise TaichiSyntaxError(
                f"cannot index a Python {type(obj).__name__} with a runtime value; "
                "wrap the loop with ti.static(...) or use a field",
                loc,
            )
        try:
            return obj[index]
        except Exception as e:  # noqa: BLE001 - report Python's complaint at the user's line
            raise TaichiSyntaxError(f"{type(e).__name__}: {e}", loc) from None

    def ndarray_element(self, obj: NdarrayArg, index: Any, loc: Any) -> Any:
        """`arr[i, j]` of an ndarray parameter: an element, or a vector of its components."""
        indices = [self.index_expr(i, loc) for i in self.index_list(index, loc)]
        if len(indices) != obj.ndim:
            raise TaichiSyntaxError(
                f"ndarray '{obj.name}' has {obj.ndim} dimensions but was indexed with "
                f"{len(indices)}",
                loc,
            )
        if obj.boundary == "clamp":
            indices = self.clamped_indices(obj, indices, loc)
        if obj.element_shape:  # arr[i] of a vector ndarray: one element per component
            return ExprVector(
                [
                    fe.ExternalIndexExpr(
                        obj.arg_id,
                        indices + [self.index_expr(c, loc) for c in component],
                        dtype=obj.dtype,
                        loc=loc,
                    )
                    for component in itertools.product(*(range(n) for n in obj.element_shape))
                ],
                obj.element_shape,
                clamped=obj.boundary == "clamp",
            )
        return fe.ExternalIndexExpr(obj.arg_id, indices, dtype=obj.dtype, loc=loc)

    def clamped_indices(self, arr: NdarrayArg, indices: list[fe.Expr], loc: Any) -> list[Any]:
        """`boundary="clamp"`: each index of `arr` clamped into `[0, extent)`, as Taichi does
        (an out-of-range read gives the nearest edge element, a write lands there)."""
        extents = arr.shape_exprs()
        return [
            self.clamp_expr(index, self.ops.binary(BinaryOpType.sub, extent, 1, loc), loc)
            for index, extent in zip(indices, extents)
        ]

    def clamped_element_key(self, value: ExprVector, key: Any, loc: Any) -> Any:
        """A vector/matrix index into a clamped ndarray's element: as Taichi, the element's
        flat index `i * m + j` is clamped into `[0, n * m)`, and read back as `(i, j)`."""
        keys = list(key) if isinstance(key, tuple) else [key]
        if len(keys) != len(value.shape):
            return key  # matrix_element reports the wrong count
        size = len(value.elements)
        if len(keys) == 1:
            return self.clamp_expr(keys[0], size - 1, loc)
        m = value.shape[1]
        flat = self.ops.binary(
            BinaryOpType.add, self.ops.binary(BinaryOpType.mul, keys[0], m, loc), keys[1], loc
        )
        flat = self.clamp_expr(flat, size - 1, loc)
        return (
            self.ops.binary(BinaryOpType.floordiv, flat, m, loc),
            self.ops.binary(BinaryOpType.mod, flat, m, loc),
        )

    def clamp_expr(self, index: Any, top: Any, loc: Any) -> Any:
        if not is_runtime(index) and not is_runtime(top):
            return max(0, min(int(index), int(top)))
        low = self.ops.binary(BinaryOpType.max, index, 0, loc)
        return self.ops.binary(BinaryOpType.min, low, top, loc)

    def vector_var_named(self, node: ast.expr) -> VectorVar | None:
        if isinstance(node, ast.Name):
            value = self.scope.lookup_local(node.id)
            if isinstance(value, VectorVar):
                return value
        return None

    def index_expr(self, value: Any, loc: Any) -> fe.Expr:
        """An index as an i32 expression (Python ints become constants)."""
        expr = self.ops.const(value, loc)
        if expr.dtype.is_float:
            raise TaichiTypeError(f"indices must be integers, got {expr.dtype}", loc)
        return expr if expr.dtype == i32 else self.ops.cast(expr, i32, loc)

    def unpack(self, value: Any, loc: Any) -> list[Any]:
        """The values `*value` spreads into a call: a vector's elements or a Python sequence."""
        if is_runtime(value):
            raise TaichiSyntaxError(f"cannot unpack (*) a scalar {value.dtype} value", loc)
        try:
            return list(value)
        except TypeError:
            raise TaichiSyntaxError(
                f"cannot unpack (*) a value of type {type(value).__name__}", loc
            ) from None

    def expr_Call(self, node: ast.Call) -> Any:
        loc = self.loc(node)
        func = self.visit_expr(node.func)
        args: list[Any] = []
        for a in node.args:
            if not args and isinstance(a, _PLACES) and _updates_in_place(func):
                args.append(self.lvalue(a, loc))  # ti.atomic_add(x[i][k], v): x[i][k] in memory
            elif isinstance(a, ast.Starred):
                args.extend(self.unpack(self.visit_expr(a.value), loc))
            else:
                args.append(self.visit_expr(a))
        kwargs = {k.arg: self.visit_expr(k.value) for k in node.keywords if k.arg is not None}
        return self.call(func, args, kwargs, loc, node)


def _matrix_key(index: Any) -> Any:
    """`m[I]` with a vector `I` (a ti.grouped index) means `m[I[0], I[1]]`, as in Taichi."""
    return tuple(index.elements) if isinstance(index, ExprVector) else index


def _position(node: ast.AST) -> dict[str, int]:
    return {k: getattr(node, k) for k in ("lineno", "col_offset") if hasattr(node, k)}


_PLACES = (ast.Name, ast.Attribute, ast.Subscript)  # what `lvalue` reads as a place


def _updates_in_place(func: Any) -> bool:
    """`ti.atomic_*`, whose first argument is a place to update rather than a value."""
    return (builtin_name(func) or "").startswith("atomic_")
