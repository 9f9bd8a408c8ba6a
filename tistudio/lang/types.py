"""Annotation objects: `ti.template()`, `ti.types.ndarray(...)`, the dtype names and Taichi's
dtype predicates (`ti.types.is_integral`, ...); and `as_shape`, how every constructor reads a
user's shape."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.ir.types import (
    PRIMITIVE_TYPES,
    PrimitiveType,
    TensorType,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u1,
    u8,
    u16,
    u32,
    u64,
)

__all__ = ["f16", "f32", "f64", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64"]


class Template:
    """`ti.template()`: the argument is a compile-time value (a field, a Python number...)."""

    __ti_template__ = True

    def __repr__(self) -> str:
        return "ti.template()"


def template() -> Template:
    return Template()


@dataclass(frozen=True)
class NdarrayType:
    """`ti.types.ndarray(dtype=..., ndim=...)`: a NumPy array passed by reference."""

    dtype: Any = None  # a PrimitiveType, a vector/matrix type, or None for "any"
    ndim: int | None = None
    boundary: str = "unsafe"  # "clamp": every index is clamped into the array (Taichi's)

    def __call__(self, *args: Any, **kwargs: Any) -> NdarrayType:
        return ndarray(*args, **kwargs)


def ndarray(
    dtype: Any = None, ndim: int | None = None, boundary: str = "unsafe", **_: Any
) -> NdarrayType:
    if dtype is not None and not hasattr(dtype, "_ti_matrix_type"):
        if not isinstance(dtype, OpenElementType):
            dtype = to_dtype(dtype)
    if boundary not in ("unsafe", "clamp"):
        raise ValueError(
            f"ti.types.ndarray(boundary=...) is 'unsafe' or 'clamp': Invalid boundary "
            f"argument: {boundary}"
        )
    return NdarrayType(dtype, ndim, boundary)


@dataclass(frozen=True)
class OpenElementType:
    """`ti.types.matrix()`, `ti.types.vector()`, `ti.types.matrix(2)`: a vector or matrix type
    with sizes (None) or the dtype (None) left open. Taichi takes one as an ndarray's element
    annotation only: any vector (matrix) whose given sizes and dtype match, each kind of element
    compiling its own instance of the kernel. It is no `_ti_matrix_type`, so a field or a struct
    member cannot be declared with it."""

    shape: tuple[int | None, ...]
    dtype: Any = None

    def __repr__(self) -> str:
        kind = "vector" if len(self.shape) == 1 else "matrix"
        sizes = [str(n) for n in self.shape] + ([f"dtype={self.dtype}"] if self.dtype else [])
        return f"ti.types.{kind}({', '.join(sizes)})"


_NUMPY_TO_TI = {np.dtype(t.numpy_name): t for t in PRIMITIVE_TYPES if t.kind != "bool"}
_NUMPY_TO_TI[np.dtype(bool)] = u1


def to_dtype(value: Any) -> PrimitiveType:
    """Accept `ti.f32`, Python `int`/`float` (the defaults), or a NumPy dtype."""
    from tistudio.lang import impl

    if isinstance(value, PrimitiveType):
        return value
    if value is int:
        return impl.current_config().default_ip
    if value is float:
        return impl.current_config().default_fp
    try:
        return _NUMPY_TO_TI[np.dtype(value)]
    except (TypeError, KeyError, ValueError):  # ValueError: NumPy read a `.dtype` of None
        raise TypeError(f"{value!r} is not a Taichi data type") from None


def numpy_dtype(dtype: PrimitiveType) -> np.dtype:
    return np.dtype(dtype.numpy_name)


def _primitive(dtype: Any, predicate: str) -> PrimitiveType:
    if isinstance(dtype, PrimitiveType):
        return dtype
    raise TypeError(f"{predicate}() takes a Taichi primitive type (ti.i32, ...), got {dtype!r}")


def is_integral(dtype: Any) -> bool:
    """`ti.types.is_integral`: an integer type (`u1` included)."""
    return _primitive(dtype, "is_integral").is_integral


def is_real(dtype: Any) -> bool:
    """`ti.types.is_real`: a floating-point type."""
    return _primitive(dtype, "is_real").is_float


def is_signed(dtype: Any) -> bool:
    """`ti.types.is_signed`: a signed integer type. As in Taichi, only integer types have an
    answer; a float type is an error."""
    dtype = _primitive(dtype, "is_signed")
    if not dtype.is_integral:
        raise TypeError(f"is_signed() takes an integer type, got {dtype}")
    return dtype.kind == "int"


def is_tensor(dtype: Any) -> bool:
    """`ti.types.is_tensor`: a vector or matrix type rather than a scalar one."""
    if isinstance(dtype, TensorType) or hasattr(dtype, "_ti_matrix_type"):
        return True
    _primitive(dtype, "is_tensor")
    return False


class _TypesNamespace:
    """`ti.types`: `ndarray`, `template`, `vector`, `matrix`, the primitive type names, Taichi's
    `primitive_types` lists and the dtype predicates (`is_integral`, ...)."""

    ndarray = staticmethod(ndarray)
    template = Template
    is_integral = staticmethod(is_integral)
    is_real = staticmethod(is_real)
    is_signed = staticmethod(is_signed)
    is_tensor = staticmethod(is_tensor)

    @property
    def quant(self) -> Any:
        """`ti.types.quant.int/fixed/float` (`lang/quant.py`)."""
        from tistudio.lang import quant

        return quant

    @property
    def primitive_types(self) -> Any:
        from tistudio.lang import primitive_types

        return primitive_types

    @staticmethod
    def vector(n: int | None = None, dtype: Any = None) -> Any:
        if n is None:  # an ndarray's element annotation: any size
            return OpenElementType((None,), dtype)
        from tistudio.lang.matrix import vector

        return vector(n, dtype)

    @staticmethod
    def struct(**members: Any) -> Any:
        from tistudio.lang.struct import struct

        return struct(**members)

    @staticmethod
    def matrix(n: int | None = None, m: int | None = None, dtype: Any = None) -> Any:
        if n is None or m is None:  # an ndarray's element annotation: any size on those axes
            return OpenElementType((n, m), dtype)
        from tistudio.lang.matrix import matrix

        return matrix(n, m, dtype)

    def __getattr__(self, name: str) -> Any:
        from tistudio.ir.types import TYPES_BY_NAME

        if name in TYPES_BY_NAME:
            return TYPES_BY_NAME[name]
        raise AttributeError(name)


types = _TypesNamespace()


def as_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """`shape` (an int, or a tuple, list or 1-D array of ints) as a tuple of ints. Anything
    else is a TypeError: `tuple(shape)` had read `"34"` as (3, 4) and `int()` truncated
    (2.5, 3) to (2, 3), silently. Sizes below 0 are a ValueError (0 is left to the caller)."""
    sizes = (shape,) if isinstance(shape, numbers.Integral) else shape
    if isinstance(sizes, np.ndarray) and sizes.ndim == 1:
        sizes = sizes.tolist()
    if isinstance(sizes, (tuple, list)) and all(_is_size(size) for size in sizes):
        if any(size < 0 for size in sizes):
            raise ValueError(f"{what} sizes must not be negative, got {tuple(sizes)}")
        return tuple(int(size) for size in sizes)
    raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}")


def _is_size(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
