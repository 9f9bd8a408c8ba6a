"""Vectors and matrices inside kernels.

A vector or matrix value is an `ExprVector`: its elements, row-major, each a scalar expression
(or a Python number). Arithmetic works element by element in the frontend, as in Taichi, and
methods (`dot`, `@`, `norm`, `inverse`, swizzles...) expand into scalar expressions too. A local
variable holding a whole vector is one tensor-typed `alloca` (`VectorVar`), so the IR shows
`[Tensor (3) f32]` values until the `scalarize` pass splits them into scalars.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from typing import Any

from tistudio.frontend.errors import TaichiIndexError, TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.operators import is_runtime
from tistudio.frontend.values import ExprVector, PickedElement, VectorVar
from tistudio.ir import frontend as fe
from tistudio.ir.ops import AtomicOpType, BinaryOpType, UnaryOpType
from tistudio.ir.promotion import promote
from tistudio.ir.types import PrimitiveType, TensorType, i32

VECTOR_TRANSPOSE = (  # Taichi's words: a vector is neither a row nor a column
    "`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, "
    "write `a.outer_product(b)` instead."
)
SWIZZLE = {c: k for group in ("xyzw", "rgba", "stpq") for k, c in enumerate(group)}


class MatrixMixin:
    """Matrix support of the transformer (see `transformer.Transformer`)."""

    # --- values --------------------------------------------------------------------------

    def elementwise(self, fn: Callable[..., Any], *args: Any, loc: Any) -> ExprVector:
        """Apply `fn` to matching elements; scalars are broadcast to the vectors' shape. A
        Python-scope `ti.Vector`/`ti.Matrix` met here (`v + ti.static(offsets)[0]`) is a
        constant vector, as a global one read by name is."""
        args = tuple(as_constant_vector(a) for a in args)
        shapes = {a.shape for a in args if isinstance(a, ExprVector)}
        if len(shapes) != 1:
            raise TaichiTypeError(f"vector/matrix shapes differ: {sorted(shapes)}", loc)
        (shape,) = shapes
        n = len(next(a for a in args if isinstance(a, ExprVector)).elements)
        cols = [a.elements if isinstance(a, ExprVector) else [a] * n for a in args]
        return ExprVector([fn(*row) for row in zip(*cols)], shape)

    def element_type(self, value: ExprVector, loc: Any) -> PrimitiveType:
        types = [self.ops.const(e, loc).dtype for e in value.elements]
        common = types[0]
        for t in types[1:]:
            common = promote(common, t)
        return common

    def declare_matrix(
        self, name: str, value: ExprVector, loc: Any, dtype: PrimitiveType | None = None
    ) -> VectorVar:
        dtype = dtype or self.element_type(value, loc)
        var = fe.Identifier(self.next_var_id(), TensorType(value.shape, dtype), name)
        self.emit(fe.FrontendAlloca(var, self.matrix_expr(value, dtype, loc), loc=loc))
        return VectorVar(var, value.shape)

    def matrix_expr(self, value: ExprVector, dtype: PrimitiveType, loc: Any) -> fe.MatrixExpr:
        elements = [self.ops.cast(e, dtype, loc) for e in value.elements]
        return fe.MatrixExpr(elements, dtype=TensorType(value.shape, dtype), loc=loc)

    def read_vector_var(self, vv: VectorVar, loc: Any) -> ExprVector:
        src = fe.IdExpr(vv.var, dtype=vv.var.dtype, loc=loc)
        elem = vv.var.dtype.element  # type: ignore[union-attr]
        n = vv.var.dtype.num_elements  # type: ignore[union-attr]
        return ExprVector(
            [fe.GetElementExpr(src, k, dtype=elem, loc=loc) for k in range(n)], vv.shape
        )

    def vector_var_places(self, vv: VectorVar, loc: Any) -> ExprVector:
        """Every element of `vv` as an lvalue. `acc += v` and `ti.atomic_min(acc, v)` update
        them one atomic at a time, as they update a scalar variable: a parallel loop may run
        them on a variable declared outside it, which offload makes one shared place."""
        var = fe.IdExpr(vv.var, dtype=vv.var.dtype, loc=loc)
        elem = vv.var.dtype.element  # type: ignore[union-attr]
        n = vv.var.dtype.num_elements  # type: ignore[union-attr]
        offsets = [fe.ConstExpr(k, dtype=i32) for k in range(n)]
        return ExprVector(
            [fe.MatrixPtrExpr(var, k, dtype=elem, loc=loc) for k in offsets], vv.shape
        )

    def assign_vector_var(self, vv: VectorVar, value: Any, loc: Any) -> None:
        if not isinstance(value, ExprVector) or value.shape != vv.shape:
            raise TaichiTypeError(
                f"cannot assign {_describe(value)} to a variable holding a {vv.var.dtype}", loc
            )
        target = fe.IdExpr(vv.var, dtype=vv.var.dtype, loc=loc)
        dtype = vv.var.dtype.element  # type: ignore[union-attr]
        self.emit(fe.FrontendAssign(target, self.matrix_expr(value, dtype, loc), loc=loc))

    def vector_var_element(
        self, vv: VectorVar, index: Any, loc: Any, label: ast.expr | None = None
    ) -> Any:
        """`v[i]` / `m[i, j]` on a vector variable: lvalues, maybe at run-time indices.
        Constant indices are checked now; run-time ones in debug mode, when run, with errors
        naming the variable (or `label`, the expression a temporary's value came from)."""
        keys = list(index) if isinstance(index, tuple) else [index]
        _check_index_count(vv.shape, keys, loc)
        if any(isinstance(k, slice) for k in keys):  # the picked elements, as places
            shape, positions = _sliced(vv.shape, keys, loc)
            picked = [self.vector_var_element(vv, at, loc, label) for at in positions]
            return ExprVector(picked, shape)
        for key, n in zip(keys, vv.shape):
            if not is_runtime(key):
                _check_bounds(key, n, loc)
        check = self.index_check(vv.var.name if label is None else label, vv.shape, keys, loc)
        return self.element_ptr(vv, keys, check, loc)

    def element_ptr(
        self, vv: VectorVar, keys: list[Any], check: fe.FrontendAssert | None, loc: Any
    ) -> fe.MatrixPtrExpr:
        offset: Any = keys[0]
        if len(keys) == 2:
            offset = self.ops.binary(
                BinaryOpType.add,
                self.ops.binary(BinaryOpType.mul, keys[0], vv.shape[1], loc),
                keys[1],
                loc,
            )
        elem = vv.var.dtype.element  # type: ignore[union-attr]
        var = fe.IdExpr(vv.var, dtype=vv.var.dtype, loc=loc)
        offset = self.index_expr(offset, loc)
        return fe.MatrixPtrExpr(var, offset, check, dtype=elem, loc=loc)

    def index_check(
        self, name: str | ast.expr, shape: tuple[int, ...], keys: list[Any], loc: Any
    ) -> fe.FrontendAssert | None:
        """Debug mode: `assert 0 <= key < extent` on each run-time key, in the style of the
        field checks of `insert_debug_checks` (Taichi checks only the flat offset, which lets
        `m[0, 5]` of a 2x3 matrix through as `m[1, 2]`). `name` is the variable's, or the
        expression whose value is indexed (`f[i]`), written out only here, where it is used."""
        if not self.config.debug or not any(is_runtime(k) for k in keys):
            return None
        cond: Any = True
        for key, n in zip(keys, shape):
            if is_runtime(key):
                low = _b(self, BinaryOpType.cmp_ge, key, 0, loc)
                high = _b(self, BinaryOpType.cmp_lt, key, n, loc)
                inside = _b(self, BinaryOpType.bit_and, low, high, loc)
                cond = inside if cond is True else _b(self, BinaryOpType.bit_and, cond, inside, loc)
        kind = "vector" if len(shape) == 1 else "matrix"
        if isinstance(name, ast.expr):
            name = _source_label(name)
        name = f"{kind} '{name}'" if name else f"a {kind}"
        if len(shape) == 1:
            message = f"Accessing {name} of size {shape[0]} with index %d"
        else:
            message = f"Accessing {name} of shape {shape} with indices (%d, %d)"
        message += ": Out of bound access"  # Taichi's phrase, which its tests match
        args = [self.ops.const(k, loc) for k in keys]
        return fe.FrontendAssert(self.ops.truth(cond, loc), message, args, loc=loc)

    def picked_element(
        self, value: ExprVector, index: Any, loc: Any, label: ast.expr | None = None
    ) -> Any:
        """`x[i][k]` as a place to write, `k` known at run time and `x[i]` a field or ndarray
        element (see `PickedElement`)."""
        keys = list(index) if isinstance(index, tuple) else [index]
        _check_index_count(value.shape, keys, loc)
        for key, n in zip(keys, value.shape):
            if not is_runtime(key):
                _check_bounds(key, n, loc)
        check = self.index_check("" if label is None else label, value.shape, keys, loc)
        if check is not None:
            self.emit(check)
        flat = keys[0]
        if len(keys) == 2:
            row_start = _b(self, BinaryOpType.mul, keys[0], value.shape[1], loc)
            flat = _b(self, BinaryOpType.add, row_start, keys[1], loc)
        offset = self.materialize(self.index_expr(flat, loc), loc)
        return PickedElement(list(value.elements), offset)

    def write_picked(self, picked: PickedElement, write: Callable[[Any], None], loc: Any) -> None:
        """`write(element j)` under `if offset == j`, for every element j of `picked`."""
        for j, element in enumerate(picked.elements):
            branch = fe.FrontendIf(_b(self, BinaryOpType.cmp_eq, picked.offset, j, loc), loc=loc)
            self.blocks.append(branch.true_block)
            try:
                write(element)
            finally:
                self.blocks.pop()
            self.emit(branch)

    def atomic_picked(self, op: AtomicOpType, picked: PickedElement, val: Any, loc: Any) -> Any:
        """`ti.atomic_add(x[i][k], v)` with a run-time `k`: the atomic in the branch of
        `write_picked` that runs, its old value kept in a local."""
        dtype = picked.elements[0].dtype
        val = self.materialize(self.ops.const(val, loc), loc)
        old = self.new_var(dtype, "", None, loc)

        def update(element: fe.Expr) -> None:
            atomic = fe.AtomicOpExpr(op, element, val, dtype=dtype, loc=loc)
            self.emit(fe.FrontendAssign(fe.IdExpr(old, dtype=dtype, loc=loc), atomic, loc=loc))

        self.write_picked(picked, update, loc)
        return fe.IdExpr(old, dtype=dtype, loc=loc)

    def matrix_element(
        self, value: ExprVector, index: Any, loc: Any, label: ast.expr | None = None
    ) -> Any:
        """`v[i]` / `m[i, j]`; at run-time indices through a temporary, whose debug errors
        name `label` (the source of `value`). As in Taichi, a matrix takes two indices: `m[i]`
        is no row in a kernel."""
        keys = list(index) if isinstance(index, tuple) else [index]
        _check_index_count(value.shape, keys, loc)
        if any(isinstance(k, slice) for k in keys):
            shape, positions = _sliced(value.shape, keys, loc)
            if any(is_runtime(k) for k in keys):  # through one temporary, as m[i, j] is
                var = self.declare_matrix("", value, loc)
                return self.vector_var_element(var, index, loc, label)
            return ExprVector([self.matrix_element(value, at, loc) for at in positions], shape)
        if any(is_runtime(k) for k in keys):
            var = self.declare_matrix("", value, loc)
            return self.vector_var_element(var, index, loc, label)
        flat = keys[0] if len(keys) == 1 else keys[0] * value.shape[1] + keys[1]
        _check_bounds(flat, len(value.elements), loc)
        return value.elements[flat]

    # --- methods and swizzles -------------------------------------------------------------

    def matrix_attribute(self, value: ExprVector, name: str, loc: Any) -> Any:
        if name in ("n", "m"):
            return value.shape[0] if name == "n" else (value.shape[1] if value.is_matrix else 1)
        if name in MATRIX_METHODS:
            return BoundMatrixMethod(name, value)
        if name == "T":
            return transpose(self, value, loc)
        if set(name) <= SWIZZLE.keys() and not value.is_matrix and 1 <= len(name) <= 4:
            picked = [self.matrix_element(value, SWIZZLE[c], loc) for c in name]
            return picked[0] if len(name) == 1 else ExprVector(picked)
        raise TaichiSyntaxError(f"vectors and matrices have no attribute '{name}'", loc)

    def call_matrix_method(
        self, method: BoundMatrixMethod, args: list[Any], kwargs: dict[str, Any], loc: Any
    ) -> Any:
        return MATRIX_METHODS[method.name](self, method.value, *args, loc=loc, **kwargs)

    def matmul(self, a: Any, b: Any, loc: Any) -> Any:
        a, b = as_constant_vector(a), as_constant_vector(b)
        if not (isinstance(a, ExprVector) and isinstance(b, ExprVector)):
            raise TaichiTypeError("@ needs two vectors or matrices", loc)
        rows_a = [a.row(i) for i in range(a.shape[0])] if a.is_matrix else [a.elements]
        if b.is_matrix:
            cols_b = [
                [b.elements[i * b.shape[1] + j] for i in range(b.shape[0])]
                for j in range(b.shape[1])
            ]
        else:
            cols_b = [b.elements]
        if len(rows_a[0]) != len(cols_b[0]):
            raise TaichiTypeError(f"cannot multiply shapes {a.shape} and {b.shape}", loc)
        out = [self.sum_of_products(r, c, loc) for r in rows_a for c in cols_b]
        if not a.is_matrix and b.is_matrix:  # a vector is a row on the left of a matrix
            return ExprVector(out, (b.shape[1],))
        if not a.is_matrix:  # vector @ vector is a dot product
            return out[0]
        return ExprVector(out, (a.shape[0], b.shape[1]) if b.is_matrix else (a.shape[0],))

    def sum_of_products(self, xs: list[Any], ys: list[Any], loc: Any) -> Any:
        total: Any = None
        for x, y in zip(xs, ys):
            term = self.ops.binary(BinaryOpType.mul, x, y, loc)
            total = term if total is None else self.ops.binary(BinaryOpType.add, total, term, loc)
        return total


class BoundMatrixMethod:
    """`v.norm` before it is called."""

    def __init__(self, name: str, value: ExprVector) -> None:
        self.name, self.value = name, value


def as_constant_vector(value: Any) -> Any:
    """A Python-scope matrix (anything with `_ti_matrix_value`) as an `ExprVector` of its
    numbers; any other value as it is."""
    if hasattr(value, "_ti_matrix_value") and not isinstance(value, type):
        elements, shape = value._ti_matrix_value()
        return ExprVector(list(elements), tuple(shape))
    if isinstance(value, (tuple, list)):  # `v - (0.5, 1.0)`: Taichi's Matrix takes a sequence
        rows = [as_constant_vector(item) for item in value]
        if rows and all(isinstance(r, ExprVector) and not r.is_matrix for r in rows):
            widths = {len(r.elements) for r in rows}
            if len(widths) == 1:
                elements = [e for r in rows for e in r.elements]
                return ExprVector(elements, (len(rows), widths.pop()))
        if not any(isinstance(r, (ExprVector, tuple, list)) for r in rows):
            return ExprVector(list(value))
    return value


def _source_label(node: ast.expr) -> str:
    """The source of `node` (`f[i]`) to name it in an error; "" when longer than a name."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else ""


def _check_bounds(index: Any, n: int, loc: Any) -> None:
    if not isinstance(index, int) or not 0 <= index < n:
        raise TaichiSyntaxError(f"index {index} is out of range for {n} element(s)", loc)


def _describe(value: Any) -> str:
    return f"a {value.shape} vector" if isinstance(value, ExprVector) else type(value).__name__


def _b(t: Any, op: BinaryOpType, a: Any, b: Any, loc: Any) -> Any:
    return t.ops.binary(op, a, b, loc)


def _reduce(t: Any, op: BinaryOpType, v: ExprVector, loc: Any) -> Any:
    value = v.elements[0]
    for e in v.elements[1:]:
        value = _b(t, op, value, e, loc)
    return value


def dot(t: Any, v: ExprVector, other: ExprVector, loc: Any) -> Any:
    if not isinstance(other, ExprVector) or other.shape != v.shape:
        raise TaichiTypeError("dot() needs two vectors of one shape", loc)
    return t.sum_of_products(v.elements, other.elements, loc)


def norm_sqr(t: Any, v: ExprVector, loc: Any) -> Any:
    return dot(t, v, v, loc)


def norm(t: Any, v: ExprVector, eps: Any = 0, loc: Any = None) -> Any:
    squared = norm_sqr(t, v, loc)
    if not (isinstance(eps, (int, float)) and eps == 0):
        squared = _b(t, BinaryOpType.add, squared, eps, loc)
    return t.ops.unary(UnaryOpType.sqrt, squared, loc) if is_runtime(squared) else squared**0.5


def normalized(t: Any, v: ExprVector, eps: Any = 0, loc: Any = None) -> ExprVector:
    inv = _b(t, BinaryOpType.truediv, 1.0, norm(t, v, eps, loc), loc)
    return t.elementwise(lambda e: _b(t, BinaryOpType.mul, e, inv, loc), v, loc=loc)


def cross(t: Any, v: ExprVector, w: ExprVector, loc: Any) -> Any:
    a, b = v.elements, w.elements
    if v.shape == w.shape == (2,):
        return _b(
            t,
            BinaryOpType.sub,
            _b(t, BinaryOpType.mul, a[0], b[1], loc),
            _b(t, BinaryOpType.mul, a[1], b[0], loc),
            loc,
        )
    if not v.shape == w.shape == (3,):
        raise TaichiTypeError("cross() needs two 2D or two 3D vectors", loc)

    def term(i: int, j: int) -> Any:
        return _b(
            t,
            BinaryOpType.sub,
            _b(t, BinaryOpType.mul, a[i], b[j], loc),
            _b(t, BinaryOpType.mul, a[j], b[i], loc),
            loc,
        )

    return ExprVector([term(1, 2), term(2, 0), term(0, 1)])


def outer_product(t: Any, v: ExprVector, w: ExprVector, loc: Any) -> ExprVector:
    out = [_b(t, BinaryOpType.mul, x, y, loc) for x in v.elements for y in w.elements]
    return ExprVector(out, (len(v.elements), len(w.elements)))


def transpose(t: Any, v: ExprVector, loc: Any = None) -> ExprVector:
    if not v.is_matrix:
        raise TaichiTypeError(VECTOR_TRANSPOSE, loc)
    n, m = v.shape
    return ExprVector([v.elements[i * m + j] for j in range(m) for i in range(n)], (m, n))


def _square(v: ExprVector, loc: Any) -> int:
    if not v.is_matrix or v.shape[0] != v.shape[1]:
        raise TaichiTypeError(
            f"a square matrix is needed: expected a square matrix, got shape {v.shape}", loc
        )
    return v.shape[0]


def _sliced(shape: tuple[int, ...], keys: list[Any], loc: Any) -> tuple[tuple[int, ...], list[Any]]:
    """`m[i, :]`, `m[:, j]`, `m[0:2, 1:3]`, `v[1:3]`, `v[::2]` as Taichi has them: the result's
    shape (a vector when one axis is sliced, a matrix when both are) and the index (an int or
    a pair) of each element it picks, row-major. A slice's bounds must be known at compile
    time; a plain index may be a run-time value."""
    axes = []
    for key, n in zip(keys, shape):
        if not isinstance(key, slice):
            axes.append(None)
            continue
        if not all(b is None or isinstance(b, int) for b in (key.start, key.stop, key.step)):
            raise TaichiSyntaxError(
                "a slice of a vector or matrix needs bounds known at compile time "
                "(numbers or ti.static values)",
                loc,
            )
        axes.append(list(range(*key.indices(n))))
    picked = tuple(len(a) for a in axes if a is not None)
    if 0 in picked:
        raise TaichiSyntaxError(f"the slice picks no element of a {shape} value", loc)
    choices = [a if a is not None else [k] for a, k in zip(axes, keys)]
    positions = [at if len(at) > 1 else at[0] for at in itertools.product(*choices)]
    return picked, positions


def _check_index_count(shape: tuple[int, ...], keys: list[Any], loc: Any) -> None:
    """A vector takes one index and a matrix two, as Taichi's `Expected 2 indices, got 1.`"""
    if len(keys) == len(shape):
        return
    if len(shape) == 1:
        what = f"a {shape[0]}-vector takes one index, v[i]"
    else:
        what = f"a {shape[0]}x{shape[1]} matrix takes two indices, m[i, j] (m[i] is no row here)"
    raise TaichiIndexError(f"{what}: Expected {len(shape)} indices, got {len(keys)}.", loc)


def _det(t: Any, rows: list[list[Any]], loc: Any) -> Any:
    """Cofactor expansion along the first row (matrices up to 4x4)."""
    if len(rows) == 1:
        return rows[0][0]
    total: Any = None
    for j, a in enumerate(rows[0]):
        minor = [r[:j] + r[j + 1 :] for r in rows[1:]]
        term = _b(t, BinaryOpType.mul, a, _det(t, minor, loc), loc)
        if total is None:
            total = term
        else:
            total = _b(t, BinaryOpType.sub if j % 2 else BinaryOpType.add, total, term, loc)
    return total


def determinant(t: Any, v: ExprVector, loc: Any = None) -> Any:
    n = _square(v, loc)
    if n > 4:
        raise TaichiTypeError("determinant() supports matrices up to 4x4", loc)
    return _det(t, [v.row(i) for i in range(n)], loc)


def inverse(t: Any, v: ExprVector, loc: Any = None) -> ExprVector:
    n = _square(v, loc)
    if n > 4:
        raise TaichiTypeError("inverse() supports matrices up to 4x4", loc)
    rows = [v.row(i) for i in range(n)]
    inv_det = _b(t, BinaryOpType.truediv, 1.0, _det(t, rows, loc), loc)
    out = []
    for i in range(n):
        for j in range(n):  # adjugate: cofactor of (j, i)
            minor = [r[:i] + r[i + 1 :] for k, r in enumerate(rows) if k != j]
            cof = _det(t, minor, loc) if n > 1 else 1.0
            if (i + j) % 2:
                cof = t.ops.unary(UnaryOpType.neg, cof, loc) if is_runtime(cof) else -cof
            out.append(_b(t, BinaryOpType.mul, cof, inv_det, loc))
    return ExprVector(out, (n, n))


def trace(t: Any, v: ExprVector, loc: Any = None) -> Any:
    n = _square(v, loc)
    return _reduce(t, BinaryOpType.add, ExprVector([v.elements[i * n + i] for i in range(n)]), loc)


def vsum(t: Any, v: ExprVector, loc: Any = None) -> Any:
    return _reduce(t, BinaryOpType.add, v, loc)


def vmax(t: Any, v: ExprVector, loc: Any = None) -> Any:
    return _reduce(t, BinaryOpType.max, v, loc)


def vmin(t: Any, v: ExprVector, loc: Any = None) -> Any:
    return _reduce(t, BinaryOpType.min, v, loc)


def cast(t: Any, v: ExprVector, dtype: Any, loc: Any = None) -> ExprVector:
    target = t.resolve_dtype(dtype, loc)
    return t.elementwise(lambda e: t.ops.cast(e, target, loc), v, loc=loc)


def any_(t: Any, v: ExprVector, loc: Any = None) -> Any:
    truths = ExprVector([t.ops.truth(e, loc) for e in v.elements], v.shape)
    return _reduce(t, BinaryOpType.bit_or, truths, loc)


def all_(t: Any, v: ExprVector, loc: Any = None) -> Any:
    truths = ExprVector([t.ops.truth(e, loc) for e in v.elements], v.shape)
    return _reduce(t, BinaryOpType.bit_and, truths, loc)


def fill(t: Any, v: ExprVector, value: Any, loc: Any = None) -> None:
    """`m.fill(x)`: every element of `m` (a field element or a variable) set to `x`."""
    places = [_place(e, loc) for e in v.elements]
    t.store(ExprVector(places, v.shape), value, loc)


def _place(element: Any, loc: Any) -> Any:
    """Where `element` of a vector lives: itself if it is an lvalue; element `k` of a
    variable for a read of that variable (`GetElementExpr` of an `IdExpr`)."""
    if isinstance(element, fe.LVALUE_EXPRS):
        return element
    if isinstance(element, fe.GetElementExpr) and isinstance(element.src, fe.IdExpr):
        offset = fe.ConstExpr(element.index, dtype=i32)
        return fe.MatrixPtrExpr(element.src, offset, dtype=element.dtype, loc=loc)
    raise TaichiSyntaxError(
        "fill() writes a vector in place: call it on a variable or a field element", loc
    )


MATRIX_METHODS: dict[str, Callable[..., Any]] = {
    "fill": fill,
    "dot": dot,
    "norm": norm,
    "norm_sqr": norm_sqr,
    "normalized": normalized,
    "cross": cross,
    "outer_product": outer_product,
    "transpose": transpose,
    "determinant": determinant,
    "inverse": inverse,
    "trace": trace,
    "sum": vsum,
    "max": vmax,
    "min": vmin,
    "cast": cast,
    "any": any_,
    "all": all_,
}
