"""`ti.ndarray(dtype, shape)`: an array container passed to `ti.types.ndarray()` parameters.

On the CPU it wraps a NumPy array that kernels read and write in place; vector and matrix
element types add trailing axes (`ti.Vector.ndarray(3, ti.f32, 10)` holds a `(10, 3)` array).
As in Taichi, the container is a `ScalarNdarray`, `VectorNdarray` or `MatrixNdarray` by its
element type, so Taichi programs can ask `arr.n`, `arr.m`, `arr.element_type`, and index
`arr[i]` in Python scope to get a vector that writes back into the array.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiIndexError
from tistudio.ir.assertions import TaichiRuntimeError
from tistudio.lang.types import as_shape, numpy_dtype, to_dtype

_MAX_SIZE = 2**31  # Taichi indexes ndarrays with i32: an axis of 2**31 is not a valid shape


class TensorType:
    """The element type of a vector or matrix ndarray; prints as Taichi's `[Tensor (3) f32]`."""

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self._shape = tuple(shape)
        self._dtype = dtype

    def shape(self) -> list[int]:
        return list(self._shape)

    def element_type(self) -> Any:
        return self._dtype

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorType) and (self._shape, self._dtype) == (
            other._shape,
            other._dtype,
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype))

    def __repr__(self) -> str:
        return f"[Tensor ({', '.join(map(str, self._shape))}) {self._dtype}]"


class ShapeTypeError(TaichiRuntimeError, TypeError):
    """A shape that is not made of ints: Taichi's TaichiRuntimeError, and a TypeError as
    for fields."""


class ShapeValueError(TaichiRuntimeError, ValueError):
    """A size below 1 or of 2**31 and above: Taichi's TaichiRuntimeError, and a ValueError."""


def valid_shape(shape: Any) -> tuple[int, ...]:
    """`shape` as a tuple of sizes, each in [1, 2**31); else an error that is Taichi's
    TaichiRuntimeError and says, like Taichi, that it "is not a valid shape for ndarray"."""
    shown = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    try:
        sizes = as_shape(shape)
    except TypeError as e:
        raise ShapeTypeError(f"{e}: {shown} is not a valid shape for ndarray") from None
    except ValueError as e:
        raise ShapeValueError(f"{e}: {shown} is not a valid shape for ndarray") from None
    if any(not 0 < size < _MAX_SIZE for size in sizes):
        raise ShapeValueError(f"{shown} is not a valid shape for ndarray")
    return sizes


class Ndarray:
    """A device-independent array handle; `to_numpy()` copies out, `from_numpy()` copies in.

    `Ndarray(dtype, shape, element_shape)` makes the subclass that fits the element shape."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Ndarray:
        if cls is not Ndarray:
            return super().__new__(cls)
        element_shape = args[2] if len(args) > 2 else kwargs.get("element_shape", ())
        kind = (ScalarNdarray, VectorNdarray, MatrixNdarray)[len(tuple(element_shape))]
        return super().__new__(kind)

    def __init__(
        self, dtype: Any, shape: Any, element_shape: tuple[int, ...] = (), needs_grad: bool = False
    ) -> None:
        shape = valid_shape(shape)
        self.dtype = to_dtype(dtype)
        self.shape = shape
        self.element_shape = tuple(element_shape)
        self._ti_numpy_storage = np.zeros(shape + self.element_shape, numpy_dtype(self.dtype))
        # autodiff: `kernel.grad(arr)` accumulates d/d(arr) here (see tistudio.ad)
        self.grad = Ndarray(dtype, shape, element_shape) if needs_grad else None

    @property
    def ndim(self) -> int:
        return self._ti_numpy_storage.ndim

    @property
    def element_type(self) -> Any:
        if not self.element_shape:
            return self.dtype
        return TensorType(self.element_shape, self.dtype)

    @property
    def arr(self) -> Ndarray:
        """Taichi's handle on the array's storage (`arr.arr.total_shape()`); here itself."""
        return self

    def total_shape(self) -> list[int]:
        """The array's axes followed by its elements' axes."""
        return list(self.shape + self.element_shape)

    def _get_element_size(self) -> int:
        return self._ti_numpy_storage.itemsize * int(np.prod(self.element_shape, dtype=int))

    def _get_nelement(self) -> int:
        return int(np.prod(self.shape, dtype=int))

    def to_numpy(self) -> np.ndarray:
        return self._ti_numpy_storage.copy()

    def from_numpy(self, arr: Any) -> None:
        arr = np.asarray(arr)
        if arr.shape != self._ti_numpy_storage.shape:
            raise ValueError(
                f"Mismatch shape: {self._ti_numpy_storage.shape} expected, but {arr.shape} provided"
            )
        self._ti_numpy_storage[...] = arr

    def copy_from(self, other: Ndarray) -> None:
        """Copy `other`'s elements in; both must have the same shape, element shape and dtype."""
        if not isinstance(other, Ndarray):
            raise TypeError(f"copy_from needs a ti.ndarray, got {type(other).__name__}")
        mine = (self.shape, self.element_shape, self.dtype)
        theirs = (other.shape, other.element_shape, other.dtype)
        if mine != theirs:
            raise ValueError(
                f"copy_from: shape, element shape and dtype {theirs} do not match {mine}"
            )
        self._ti_numpy_storage[...] = other._ti_numpy_storage

    def __deepcopy__(self, memo: dict[int, Any]) -> Ndarray:
        clone = Ndarray(self.dtype, self.shape, self.element_shape)
        clone._ti_numpy_storage[...] = self._ti_numpy_storage
        clone.grad = copy.deepcopy(self.grad, memo)
        return clone

    # --- PyTorch / DLPack (tistudio.lang.interop; torch is imported only when called) -----

    def to_torch(self, device: Any = None) -> Any:
        """A new tensor holding a copy of the array (on `device` if given)."""
        from tistudio.lang import interop

        return interop.to_torch(self.to_numpy(), device)

    def from_torch(self, tensor: Any) -> None:
        from tistudio.lang import interop

        self.from_numpy(interop.from_torch_checked(tensor))

    def from_dlpack(self, obj: Any) -> None:
        from tistudio.lang import interop

        self.from_numpy(interop.as_numpy(obj))

    def __dlpack__(self, **kwargs: Any) -> Any:
        """DLPack export of the storage itself (zero copy: the consumer sees kernel writes)."""
        return self._ti_numpy_storage.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def fill(self, value: Any) -> None:
        """Every element set to `value`: a scalar, or for vector/matrix elements a vector or
        matrix of the element shape (a scalar fills every component)."""
        self._ti_numpy_storage[...] = _as_values(value)

    # --- Python-scope element access -------------------------------------------------------

    def _key(self, key: Any) -> Any:
        """`key` as a tuple of indices; a count of integer indices that fits neither the array
        nor the array with its element axes is Taichi's TaichiIndexError."""
        if key is None:
            key = ()
        if not isinstance(key, tuple):
            key = (key,)
        if any(isinstance(k, slice) or k is Ellipsis for k in key):
            return key  # NumPy-style slices: a tistudio extension, read as NumPy reads them
        if len(key) not in (len(self.shape), len(self.shape) + len(self.element_shape)):
            raise TaichiIndexError(
                f"{len(self.shape)}d ndarray indexed with {len(key)}d indices: {key}"
            )
        return key

    def __getitem__(self, key: Any) -> Any:
        key = self._key(key)
        value = self._ti_numpy_storage[key]
        if isinstance(value, np.generic):
            return value.item()
        if self.element_shape and value.shape == self.element_shape:  # one vector element
            from tistudio.lang.matrix import Matrix, Vector

            kind = Vector if len(self.element_shape) == 1 else Matrix
            element = kind(value.copy())  # untyped, as Taichi: to_numpy() gives float64
            element._write_back = lambda data: self.__setitem__(key, data)
            return element
        return value.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        self._ti_numpy_storage[self._key(key)] = _as_values(value)

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype}{list(self.shape)}>"


class ScalarNdarray(Ndarray):
    """An ndarray of scalars (`ti.ndarray(ti.f32, shape)`)."""


class VectorNdarray(Ndarray):
    """An ndarray of vectors (`ti.Vector.ndarray(n, dtype, shape)`); `n` components each."""

    @property
    def n(self) -> int:
        return self.element_shape[0]

    def __repr__(self) -> str:
        return f"<ti.Vector.ndarray {self.dtype}{list(self.shape)} x {self.n}>"


class MatrixNdarray(Ndarray):
    """An ndarray of `n` x `m` matrices (`ti.Matrix.ndarray(n, m, dtype, shape)`)."""

    @property
    def n(self) -> int:
        return self.element_shape[0]

    @property
    def m(self) -> int:
        return self.element_shape[1]

    def __repr__(self) -> str:
        return f"<ti.Matrix.ndarray {self.dtype}{list(self.shape)} x {self.n}x{self.m}>"


def _as_values(value: Any) -> Any:
    """A `ti.Vector`/`ti.Matrix` value as its NumPy data; anything else as it is."""
    return value.to_numpy() if hasattr(value, "to_numpy") else value


def ndarray(dtype: Any, shape: Any, needs_grad: bool = False) -> Ndarray:
    """`ti.ndarray(ti.f32, (4, 4))`, or with a vector type `ti.ndarray(ti.math.vec3, 8)`."""
    if hasattr(dtype, "_ti_matrix_type"):
        element_shape, elem = dtype._ti_matrix_type
        return Ndarray(elem or float, shape, element_shape, needs_grad)
    return Ndarray(dtype, shape, needs_grad=needs_grad)
