"""Operators called as functions in a kernel: `operator.add(a, b)`, `ti.lang.ops.add(a, b)`.

Taichi runs a plain Python function called in a kernel on its traced values, so passing
`operator.add` (or Taichi's own `ti.lang.ops.add`) where a function is expected works there on
vectors, matrices and scalars alike. Python's `operator` functions cannot be decorated with
`@ti.func`, so the transformer treats each as the operator it names: the same code as `a + b`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import ExprVector
from tistudio.ir.ops import BinaryOpType, UnaryOpType

Builtin = Callable[..., Any]

# builtin name (Taichi's `ti.lang.ops` name): the AST operator it compiles as
BINARY = {
    "add": ast.Add,
    "sub": ast.Sub,
    "mul": ast.Mult,
    "truediv": ast.Div,
    "floordiv": ast.FloorDiv,
    "mod": ast.Mod,
    "matmul": ast.MatMult,
    "bit_and": ast.BitAnd,
    "bit_or": ast.BitOr,
    "bit_xor": ast.BitXor,
    "bit_shl": ast.LShift,
    "bit_sar": ast.RShift,
}
COMPARE = {
    "cmp_lt": BinaryOpType.cmp_lt,
    "cmp_le": BinaryOpType.cmp_le,
    "cmp_gt": BinaryOpType.cmp_gt,
    "cmp_ge": BinaryOpType.cmp_ge,
    "cmp_eq": BinaryOpType.cmp_eq,
    "cmp_ne": BinaryOpType.cmp_ne,
}
UNARY = {
    "neg": (UnaryOpType.neg, operator.neg),
    "bit_not": (UnaryOpType.bit_not, operator.invert),
}

# Python's operator functions, by the builtin name each compiles as
PYTHON_OPERATORS: dict[Any, str] = {
    operator.add: "add",
    operator.sub: "sub",
    operator.mul: "mul",
    operator.truediv: "truediv",
    operator.floordiv: "floordiv",
    operator.mod: "mod",
    operator.matmul: "matmul",
    operator.and_: "bit_and",
    operator.or_: "bit_or",
    operator.xor: "bit_xor",
    operator.lshift: "bit_shl",
    operator.rshift: "bit_sar",
    operator.lt: "cmp_lt",
    operator.le: "cmp_le",
    operator.gt: "cmp_gt",
    operator.ge: "cmp_ge",
    operator.eq: "cmp_eq",
    operator.ne: "cmp_ne",
    operator.neg: "neg",
    operator.invert: "bit_not",
}


def _binary(op_type: type[ast.operator]) -> Builtin:
    def call(t: Any, loc: Any, a: Any, b: Any) -> Any:
        return t.binary_value(op_type, a, b, loc)

    return call


def _compare(op: BinaryOpType) -> Builtin:
    def call(t: Any, loc: Any, a: Any, b: Any) -> Any:
        if isinstance(a, ExprVector) or isinstance(b, ExprVector):
            return t.elementwise(lambda x, y: t.ops.binary(op, x, y, loc), a, b, loc=loc)
        return t.ops.binary(op, a, b, loc)

    return call


def _unary(op: UnaryOpType, python: Callable[[Any], Any]) -> Builtin:
    def one(t: Any, loc: Any, value: Any) -> Any:
        return t.ops.unary(op, value, loc) if is_runtime(value) else python(value)

    def call(t: Any, loc: Any, value: Any) -> Any:
        if isinstance(value, ExprVector):
            return t.elementwise(lambda e: one(t, loc, e), value, loc=loc)
        return one(t, loc, value)

    return call


OPERATOR_BUILTINS: dict[str, Builtin] = {
    **{name: _binary(op_type) for name, op_type in BINARY.items()},
    **{name: _compare(op) for name, op in COMPARE.items()},
    **{name: _unary(op, python) for name, (op, python) in UNARY.items()},
}
