"""Compile-time wrappers the transformer passes around besides `Expr` and plain Python objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tistudio.ir import frontend as fe
from tistudio.ir.types import PrimitiveType


@dataclass
class ExprVector:
    """A vector or matrix in a kernel: its elements, row-major, each a Python number or a scalar
    `Expr` (an lvalue when it is a field, ndarray or variable element). Arithmetic on it works
    element by element in the frontend; `shape` is `(n,)` or `(n, m)`."""

    elements: list[Any]
    shape: tuple[int, ...] = ()
    clamped: bool = False  # an element of a boundary="clamp" ndarray: run-time indices clamp

    def __post_init__(self) -> None:
        if not self.shape:
            self.shape = (len(self.elements),)
        assert len(self.elements) == _product(self.shape), (self.shape, len(self.elements))

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def is_matrix(self) -> bool:
        return len(self.shape) == 2

    def __iter__(self):  # noqa: ANN204 - elements of a vector, rows of a matrix
        if self.is_matrix:
            return iter(ExprVector(self.row(i)) for i in range(self.shape[0]))
        return iter(self.elements)

    def row(self, i: int) -> list[Any]:
        m = self.shape[1] if self.is_matrix else 1
        return self.elements[i * m : (i + 1) * m]


@dataclass
class PickedElement:
    """`x[i][k] = v` with a run-time `k`, where `x[i]` is a field or ndarray element: the place
    to write is element `offset` of `elements` (lvalues). The write becomes one `if offset == j`
    branch per element (a read copies the vector into a local and indexes that instead)."""

    elements: list[fe.Expr]
    offset: fe.Expr


@dataclass
class VectorVar:
    """A local variable holding a whole vector or matrix: one tensor-typed `alloca`."""

    var: fe.Identifier
    shape: tuple[int, ...]


def _product(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


@dataclass
class NdarrayArg:
    """An ndarray kernel parameter: subscripting it gives element expressions."""

    arg_id: int
    dtype: PrimitiveType
    ndim: int
    name: str
    element_shape: tuple[int, ...] = ()  # vector/matrix elements: extra, trailing array axes
    boundary: str = "unsafe"  # "clamp": indices are clamped into the array (Taichi's)

    def shape_exprs(self) -> tuple[fe.Expr, ...]:
        from tistudio.ir.types import i32

        return tuple(fe.ExternalShapeExpr(self.arg_id, k, dtype=i32) for k in range(self.ndim))


@dataclass
class NdRangeValue:
    """`ti.ndrange(...)` in a kernel: one `(begin, end)` pair per axis (Python ints or Exprs)."""

    bounds: list[tuple[Any, Any]]


@dataclass
class GroupedValue:
    """`ti.grouped(x)`: iterate `x` (a field or an ndrange) with one vector index."""

    target: Any


@dataclass
class LoopConfig:
    """`ti.loop_config(...)`: settings for the next `for` loop."""

    serialize: bool = False
    block_dim: int | None = None
    parallelize: int | None = None


@dataclass
class StructValue:
    """A struct in a kernel: its type and one value per member (scalars, `ExprVector`s, nested
    `StructValue`s). Members of a field element or a struct variable are lvalues."""

    type: Any
    members: dict[str, Any]


@dataclass
class StructVar:
    """A local struct variable: one variable per member (`Identifier`, `VectorVar`, `StructVar`)."""

    type: Any
    members: dict[str, Any]


@dataclass
class BoundStructMethod:
    """`p.energy` before it is called: a `ti.func` method with `self` bound to the struct."""

    func: Any
    value: StructValue
