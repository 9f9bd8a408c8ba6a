"""`ti.ndarray(dtype, shape)`: an array container passed to `ti.types.ndarray()` parameters.

On the CPU it wraps a NumPy array that kernels read and write in place; vector and matrix
element types add trailing axes (`ti.Vector.ndarray(3, ti.f32, 10)` holds a `(10, 3)` array).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.lang.types import as_shape, numpy_dtype, to_dtype


class Ndarray:
    """A device-independent array handle; `to_numpy()` copies out, `from_numpy()` copies in."""

    def __init__(
        self, dtype: Any, shape: Any, element_shape: tuple[int, ...] = (), needs_grad: bool = False
    ) -> None:
        shape = as_shape(shape)
        self.dtype = to_dtype(dtype)
        self.shape = shape
        self.element_shape = tuple(element_shape)
        self._ti_numpy_storage = np.zeros(shape + self.element_shape, numpy_dtype(self.dtype))
        # autodiff: `kernel.grad(arr)` accumulates d/d(arr) here (see tistudio.ad)
        self.grad = Ndarray(dtype, shape, element_shape) if needs_grad else None

    @property
    def ndim(self) -> int:
        return self._ti_numpy_storage.ndim

    def to_numpy(self) -> np.ndarray:
        return self._ti_numpy_storage.copy()

    def from_numpy(self, arr: Any) -> None:
        arr = np.asarray(arr)
        if arr.shape != self._ti_numpy_storage.shape:
            raise ValueError(f"from_numpy: shape {arr.shape} != {self._ti_numpy_storage.shape}")
        self._ti_numpy_storage[...] = arr

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
        self._ti_numpy_storage[...] = value

    def __getitem__(self, key: Any) -> Any:
        value = self._ti_numpy_storage[key]
        if isinstance(value, np.generic):
            return value.item()
        if self.element_shape and value.shape == self.element_shape:  # one vector element
            from tistudio.lang.matrix import Matrix

            element = Matrix(value.copy())
            element._write_back = lambda data: self.__setitem__(key, data)
            return element
        return value.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        self._ti_numpy_storage[key] = value.to_numpy() if hasattr(value, "to_numpy") else value

    def __repr__(self) -> str:
        return f"<ti.ndarray {self.dtype}{list(self.shape)}>"


def ndarray(dtype: Any, shape: Any, needs_grad: bool = False) -> Ndarray:
    """`ti.ndarray(ti.f32, (4, 4))`, or with a vector type `ti.ndarray(ti.math.vec3, 8)`."""
    if hasattr(dtype, "_ti_matrix_type"):
        element_shape, elem = dtype._ti_matrix_type
        return Ndarray(elem or float, shape, element_shape, needs_grad)
    return Ndarray(dtype, shape, needs_grad=needs_grad)
