"""`ti.Vector`, `ti.Matrix` and vector/matrix types (`ti.types.vector`, `ti.math.vec3`).

In Python scope a `Matrix` is a small NumPy-backed value with Taichi's methods. Inside a kernel
the same names build vectors in the frontend (`tistudio.frontend.matrix`): `ti.Vector([a, b])`
is compiled, and a `Matrix` captured from Python becomes a vector of constants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiCompilationError, TaichiTypeError
from tistudio.frontend.matrix import SWIZZLE, VECTOR_TRANSPOSE


class Matrix:
    """A vector (`shape == (n,)`) or matrix (`(n, m)`) value in Python scope."""

    __ti_builtin__ = "Matrix"  # called inside a kernel, the frontend builds a vector value
    __array_priority__ = 1000  # NumPy scalars and arrays defer to our operators, as Taichi's
    # NumPy defers to our reflected operators: np.float64(1) + v is a Matrix, as in Taichi
    __array_priority__ = 1000

    def __init__(self, arr: Any, dt: Any = None) -> None:
        data = np.array(arr.to_numpy() if isinstance(arr, Matrix) else arr)
        if data.ndim not in (1, 2):
            raise ValueError(f"ti.Matrix needs a 1D or 2D list, got shape {data.shape}")
        if dt is not None:
            from tistudio.lang.types import numpy_dtype, to_dtype

            data = data.astype(numpy_dtype(to_dtype(dt)))
        self._data = data
        self._typed = dt is not None  # a kernel's return keeps its dtype in to_numpy()

    # --- the frontend's view: a constant vector -------------------------------------------

    def _ti_matrix_value(self) -> tuple[list[Any], tuple[int, ...]]:
        return [x.item() for x in self._data.reshape(-1)], tuple(self._data.shape)

    # --- Python-scope API -----------------------------------------------------------------

    @property
    def n(self) -> int:
        return self._data.shape[0]

    @property
    def m(self) -> int:
        return self._data.shape[1] if self._data.ndim == 2 else 1

    def to_numpy(self) -> np.ndarray:
        """Like Taichi's: a value typed by a kernel keeps its dtype; one built in Python scope
        comes from Python numbers, so float64 / int64."""
        return self._data.copy() if self._typed else np.array(self._data.tolist())

    @property
    def entries(self) -> np.ndarray:
        """The elements as a NumPy array of the matrix's shape and dtype (Taichi's name)."""
        return self._data

    def to_list(self) -> list[Any]:
        return self._data.tolist()

    def __len__(self) -> int:
        return self.n

    def __iter__(self):  # noqa: ANN204
        return iter(self._wrap(row) for row in self._data)

    def __getitem__(self, key: Any) -> Any:
        return self._wrap(self._data[key])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[key] = value
        if self._write_back is not None:  # an element of a vector field: write it through
            self._write_back(self._data)

    _write_back = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not set(name) <= SWIZZLE.keys():
            raise AttributeError(name)
        picked = [self._data[SWIZZLE[c]] for c in name]
        return self._wrap(picked[0] if len(picked) == 1 else np.array(picked))

    def __setattr__(self, name: str, value: Any) -> None:
        """`w.y = 3`, `v.xy = 1, 2`: swizzles write elements, as Taichi's."""
        if name.startswith("_") or not set(name) <= SWIZZLE.keys():
            object.__setattr__(self, name, value)
            return
        values = [value] if len(name) == 1 else list(value)
        for c, v in zip(name, values, strict=True):
            self[SWIZZLE[c]] = v

    def __repr__(self) -> str:
        """NumPy's text of the elements, as Taichi's `Matrix.__repr__` (`[1 2 3]`)."""
        return str(self._data)

    def __eq__(self, other: object) -> Any:
        """Element by element, as in Taichi: a `Matrix` of bools, `.all()` to reduce it."""
        return self._compare(other, np.equal)

    def __ne__(self, other: object) -> Any:
        return self._compare(other, np.not_equal)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, np.greater_equal)

    def _compare(self, other: Any, fn: Any) -> Any:
        rhs = np.asarray(other._data if isinstance(other, Matrix) else other)
        if rhs.dtype == object or rhs.shape not in ((), self._data.shape):
            return NotImplemented  # not a value of this shape: == is False, != is True
        return Matrix(fn(self._data, rhs))

    def all(self) -> bool:
        return bool(self._data.all())

    def any(self) -> bool:
        return bool(self._data.any())

    def __bool__(self) -> bool:
        """A comparison's result is true when every element is (Taichi's is always true); any
        other matrix is true, as a non-empty sequence."""
        return self.all() if self._data.dtype == bool else True

    __hash__ = None  # type: ignore[assignment]

    @staticmethod
    def _wrap(value: Any) -> Any:
        if isinstance(value, np.ndarray) and value.ndim > 0:
            return Matrix(value)
        if isinstance(value, np.ndarray):  # a 0-d result (the cross product of 2D vectors)
            return value.item()
        return value.item() if isinstance(value, np.generic) else value

    def _binary(self, other: Any, fn: Any) -> Matrix:
        rhs = other._data if isinstance(other, Matrix) else other
        return Matrix(fn(self._data, rhs))

    def __add__(self, o: Any) -> Matrix:
        return self._binary(o, np.add)

    def __radd__(self, o: Any) -> Matrix:
        return self._binary(o, np.add)

    def __sub__(self, o: Any) -> Matrix:
        return self._binary(o, np.subtract)

    def __rsub__(self, o: Any) -> Matrix:
        return self._binary(o, lambda a, b: b - a)

    def __mul__(self, o: Any) -> Matrix:
        return self._binary(o, np.multiply)

    def __rmul__(self, o: Any) -> Matrix:
        return self._binary(o, np.multiply)

    def __truediv__(self, o: Any) -> Matrix:
        return self._binary(o, np.true_divide)

    def __neg__(self) -> Matrix:
        return Matrix(-self._data)

    def __pos__(self) -> Matrix:
        return Matrix(self._data)

    def __abs__(self) -> Matrix:
        return Matrix(np.abs(self._data))

    def __invert__(self) -> Matrix:
        return Matrix(~self._data)

    # Python's other operators, element by element as NumPy has them; `m //= k` and the other
    # in-place forms fall back to these and rebind the name, as on Taichi's Matrix
    def __floordiv__(self, o: Any) -> Matrix:
        return self._binary(o, np.floor_divide)

    def __rfloordiv__(self, o: Any) -> Matrix:
        return self._binary(o, lambda a, b: np.floor_divide(b, a))

    def __mod__(self, o: Any) -> Matrix:
        return self._binary(o, np.mod)

    def __rmod__(self, o: Any) -> Matrix:
        return self._binary(o, lambda a, b: np.mod(b, a))

    def __pow__(self, o: Any) -> Matrix:
        return self._binary(o, np.power)

    def __rpow__(self, o: Any) -> Matrix:
        return self._binary(o, lambda a, b: np.power(b, a))

    def __rtruediv__(self, o: Any) -> Matrix:
        return self._binary(o, lambda a, b: np.true_divide(b, a))

    def __lshift__(self, o: Any) -> Matrix:
        return self._binary(o, np.left_shift)

    def __rshift__(self, o: Any) -> Matrix:
        return self._binary(o, np.right_shift)

    def __and__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_and)

    def __rand__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_and)

    def __or__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_or)

    def __ror__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_or)

    def __xor__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_xor)

    def __rxor__(self, o: Any) -> Matrix:
        return self._binary(o, np.bitwise_xor)

    def __matmul__(self, o: Matrix) -> Any:
        return self._wrap(self._data @ o._data)

    def dot(self, o: Matrix) -> Any:
        return self._wrap(np.dot(self._data, o._data))

    def cross(self, o: Matrix) -> Any:
        return self._wrap(np.cross(self._data, o._data))

    def norm(self, eps: float = 0) -> float:
        return float(np.sqrt(np.sum(self._data * self._data) + eps))

    def norm_sqr(self) -> Any:
        return self._wrap(np.sum(self._data * self._data))

    def normalized(self, eps: float = 0) -> Matrix:
        return Matrix(self._data / self.norm(eps))

    def outer_product(self, o: Matrix) -> Matrix:
        return Matrix(np.outer(self._data, o._data))

    def transpose(self) -> Matrix:
        if self._data.ndim != 2:
            raise TaichiTypeError(VECTOR_TRANSPOSE)
        return Matrix(self._data.T)

    @property
    def T(self) -> Matrix:  # noqa: N802 - NumPy's and Taichi's name
        return self.transpose()

    def determinant(self) -> float:
        return float(np.linalg.det(self._data))

    def inverse(self) -> Matrix:
        self._check_square("inverse")
        return Matrix(np.linalg.inv(self._data))

    def trace(self) -> Any:
        self._check_square("trace")
        return self._wrap(np.trace(self._data))

    def _check_square(self, method: str) -> None:
        shape = self._data.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise TaichiCompilationError(
                f"{method}() needs a square matrix: expected a square matrix, got shape {shape}"
            )

    def sum(self) -> Any:
        return self._wrap(self._data.sum())

    def max(self) -> Any:
        return self._wrap(self._data.max())

    def min(self) -> Any:
        return self._wrap(self._data.min())

    def cast(self, dt: Any) -> Matrix:
        return Matrix(self._data, dt)

    # --- constructors (also usable inside kernels) ----------------------------------------

    @staticmethod
    def zero(dt: Any, n: int, m: int | None = None) -> Matrix:
        return Matrix(np.zeros((n,) if m is None else (n, m)), dt)

    @staticmethod
    def one(dt: Any, n: int, m: int | None = None) -> Matrix:
        return Matrix(np.ones((n,) if m is None else (n, m)), dt)

    @staticmethod
    def identity(dt: Any, n: int) -> Matrix:
        return Matrix(np.eye(n), dt)

    @staticmethod
    def rows(rows: list[Any]) -> Matrix:
        return Matrix([np.asarray(r.to_numpy() if isinstance(r, Matrix) else r) for r in rows])

    @staticmethod
    def cols(cols: list[Any]) -> Matrix:
        return Matrix.rows(cols).transpose()

    @staticmethod
    def unit(n: int, i: int, dt: Any = None) -> Matrix:
        data = np.zeros(n)
        data[i] = 1
        return Matrix(data, dt if dt is not None else float)

    @staticmethod
    def field(n: int, m: int, dtype: Any, shape: Any = None, **kwargs: Any) -> Any:
        from tistudio.lang.matrix_field import matrix_field

        return matrix_field((n, m), dtype, shape, **kwargs)

    @staticmethod
    def ndarray(n: int, m: int, dtype: Any, shape: Any) -> Any:
        from tistudio.lang.matrix_field import matrix_ndarray

        return matrix_ndarray((n, m), dtype, shape)


class Vector(Matrix):
    """`ti.Vector([...])`: a one-dimensional `Matrix`."""

    __ti_builtin__ = "Vector"

    def __init__(self, arr: Any, dt: Any = None) -> None:
        super().__init__(arr, dt)
        if self._data.ndim != 1:
            raise ValueError(f"ti.Vector needs a flat list, got shape {self._data.shape}")

    @staticmethod
    def zero(dt: Any, n: int, m: int | None = None) -> Matrix:
        return Matrix(np.zeros(n), dt)

    @staticmethod
    def field(n: int, dtype: Any, shape: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        from tistudio.lang.matrix_field import matrix_field

        return matrix_field((n,), dtype, shape, **kwargs)

    @staticmethod
    def ndarray(n: int, dtype: Any, shape: Any) -> Any:  # type: ignore[override]
        from tistudio.lang.matrix_field import matrix_ndarray

        return matrix_ndarray((n,), dtype, shape)


for _cls, _names in (
    (Matrix, ("zero", "one", "identity", "unit", "rows", "cols")),
    (Vector, ("zero",)),
):
    for _name in _names:
        getattr(_cls, _name).__ti_builtin__ = f"{_cls.__name__}.{_name}"


@dataclass(frozen=True)
class MatrixType:
    """`ti.types.vector(3, ti.f32)`, `ti.types.matrix(2, 2, float)`, `ti.math.vec3`."""

    shape: tuple[int, ...]
    dtype: Any = None  # a Taichi dtype, or Python int/float for the defaults

    @property
    def _ti_matrix_type(self) -> tuple[tuple[int, ...], Any]:
        return self.shape, self.dtype

    @property
    def n(self) -> int:
        return self.shape[0]

    @property
    def m(self) -> int:
        return self.shape[1] if len(self.shape) == 2 else 1

    def __call__(self, *args: Any) -> Matrix:
        flat: list[Any] = []
        for a in args:
            flat.extend(np.asarray(a.to_numpy() if isinstance(a, Matrix) else a).reshape(-1))
        size = int(np.prod(self.shape))
        if len(flat) == 1:
            flat = flat * size
        if len(flat) != size:
            raise ValueError(f"{self} takes {size} values, got {len(flat)}")
        return Matrix(np.array(flat).reshape(self.shape), self.dtype or float)

    def field(self, shape: Any = None, **kwargs: Any) -> Any:
        from tistudio.lang.matrix_field import matrix_field

        return matrix_field(self.shape, self.dtype or float, shape, **kwargs)

    def ndarray(self, shape: Any) -> Any:
        from tistudio.lang.matrix_field import matrix_ndarray

        return matrix_ndarray(self.shape, self.dtype or float, shape)

    def __repr__(self) -> str:
        kind = "vector" if len(self.shape) == 1 else "matrix"
        return f"ti.types.{kind}({', '.join(map(str, self.shape))}, {self.dtype})"


def vector(n: int, dtype: Any = None) -> MatrixType:
    return MatrixType((int(n),), dtype)


def matrix(n: int, m: int, dtype: Any = None) -> MatrixType:
    return MatrixType((int(n), int(m)), dtype)
