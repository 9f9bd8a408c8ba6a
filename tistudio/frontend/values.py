"""Compile-time wrappers the transformer passes around besides `Expr` and plain Python objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tistudio.ir import frontend as fe
from tistudio.ir.types import PrimitiveType


@dataclass
class ExprVector:
    """A small vector of runtime scalars (e.g. the index `I` of `for I in ti.grouped(x)`)."""

    elements: list[Any]

    def __len__(self) -> int:
        return len(self.elements)


@dataclass
class NdarrayArg:
    """An ndarray kernel parameter: subscripting it gives element expressions."""

    arg_id: int
    dtype: PrimitiveType
    ndim: int
    name: str

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
class StaticValue:
    """`ti.static(v)` evaluated: a marker that `v` must be used at compile time."""

    value: Any


@dataclass
class LoopConfig:
    """`ti.loop_config(...)`: settings for the next `for` loop."""

    serialize: bool = False
    block_dim: int | None = None
    parallelize: int | None = None
