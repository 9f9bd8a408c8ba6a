"""Vector and matrix fields (`ti.Vector.field`, `ti.math.vec3.field`) and ndarrays of them.

A vector field is one scalar field per component, placed together under one dense SNode, so
components of an element sit side by side in memory (Taichi's default AOS layout). In a kernel,
`x[i]` is a vector whose elements are the components' element expressions, so `x[i] = v`,
`x[i] += v` and `x[i][1]` all work element by element.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from tistudio.frontend.sparse_ops import first_row
from tistudio.frontend.values import ExprVector
from tistudio.ir import frontend as fe
from tistudio.ir.snode import SNode
from tistudio.lang.field import Field, check_offset, place_companions, quant_or_plain_field
from tistudio.lang.field_funcs import fill_in_kernel, kernel_scope
from tistudio.lang.matrix import Matrix
from tistudio.lang.types import as_shape, numpy_dtype


class MatrixField:
    """A field whose elements are vectors (`n` components) or matrices (`n` x `m`)."""

    def __init__(self, components: list[Field], element_shape: tuple[int, ...], name: str = ""):
        self.components = components
        self.element_shape = element_shape
        self.dtype = components[0].dtype
        self._name = name

    # --- what the frontend uses --------------------------------------------------------------

    @property
    def _ti_place_snode(self) -> SNode:
        return self.components[0]._ti_place_snode

    def _ti_leaves(self) -> list[Field]:
        return list(self.components)

    def _ti_subscript(self, indices: list[fe.Expr], loc: Any) -> ExprVector:
        value = ExprVector(
            [c._ti_subscript(indices, loc) for c in self.components], self.element_shape
        )
        row = first_row(value)  # x[i] under a dynamic node: x[i].append(v), x[i].length()
        return row.of(self) if row is not None else value

    # --- properties --------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self.components[0].shape

    @property
    def offset(self) -> tuple[int, ...]:
        return self.components[0].offset

    @property
    def n(self) -> int:
        return self.element_shape[0]

    @property
    def m(self) -> int:
        return self.element_shape[1] if len(self.element_shape) == 2 else 1

    @property
    def snode(self) -> Any:
        from tistudio.lang.snode import SNodeHandle

        return SNodeHandle(self._ti_place_snode, self._name)

    def parent(self, n: int = 1) -> Any:
        """The SNode `n` levels above this field's (Taichi's `x.parent()`)."""
        return self.snode.parent(n)

    @property
    def name(self) -> str:
        return self._name

    @property
    def grad(self) -> MatrixField | None:
        """The gradient field (autodiff): one `.grad` per component, same element shape."""
        return self._companion("grad")

    @property
    def dual(self) -> MatrixField | None:
        return self._companion("dual")

    def _companion(self, kind: str) -> MatrixField | None:
        parts = [getattr(c, kind) for c in self.components]
        if None in parts:
            return None
        name = f"{self._name}.{kind}" if self._name else ""
        return MatrixField(parts, self.element_shape, name)  # type: ignore[arg-type]

    def get_scalar_field(self, *index: int) -> Field:
        flat = index[0] if len(index) == 1 else index[0] * self.m + index[1]
        return self.components[flat]

    def _get_dynamic_index_stride(self) -> int | None:
        """Bytes from one element of the matrix to the next in memory, when the elements sit
        at one fixed distance from each other in every cell (Taichi's dynamic-index stride);
        None when the layout has no such distance. Needs the field's tree laid out."""
        return uniform_stride([c._ti_place_snode for c in self.components])

    def __repr__(self) -> str:
        return f"<ti.Matrix.field {self.dtype}{list(self.shape)} x {list(self.element_shape)}>"

    # --- NumPy ---------------------------------------------------------------------------------

    def to_numpy(self, dtype: Any = None) -> np.ndarray:
        parts = [c.to_numpy() for c in self.components]
        out = np.stack(parts, axis=-1).reshape(self.shape + self.element_shape)
        return out if dtype is None else out.astype(dtype)

    def from_numpy(self, arr: Any) -> None:
        arr = np.asarray(arr)
        want = self.shape + self.element_shape
        if arr.shape != want:
            raise ValueError(f"from_numpy: array shape {arr.shape} != {want}")
        flat = arr.reshape(self.shape + (-1,))
        for k, c in enumerate(self.components):
            c.from_numpy(flat[..., k])

    # --- PyTorch / DLPack (tistudio.lang.interop; torch is imported only when called) -----

    def to_torch(self, device: Any = None) -> Any:
        """A new tensor of shape `shape + element_shape` holding a copy of the field."""
        from tistudio.lang import interop

        return interop.to_torch(self.to_numpy(), device)

    def from_torch(self, tensor: Any) -> None:
        from tistudio.lang import interop

        self.from_numpy(interop.from_torch_checked(tensor))

    def from_dlpack(self, obj: Any) -> None:
        from tistudio.lang import interop

        self.from_numpy(interop.as_numpy(obj))

    def __dlpack__(self, **kwargs: Any) -> Any:
        """DLPack export of a *copy* of the field (`to_numpy()`)."""
        return self.to_numpy().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    @kernel_scope(fill_in_kernel)
    def fill(self, value: Any) -> None:
        values = _element_values(value, len(self.components))
        for c, v in zip(self.components, values):
            c.fill(v)

    def __getitem__(self, key: Any) -> Matrix:
        values = [c[key] for c in self.components]
        dtype = numpy_dtype(self.dtype)
        element = Matrix(np.array(values, dtype=dtype).reshape(self.element_shape))
        element._write_back = lambda data: self.__setitem__(key, data)  # v[i][c] = x writes
        return element

    def __setitem__(self, key: Any, value: Any) -> None:
        for c, v in zip(self.components, _element_values(value, len(self.components))):
            c[key] = v

    def __iter__(self) -> Any:
        raise NotImplementedError("Struct for is only available in Taichi scope.")


def uniform_stride(places: list[SNode]) -> int | None:
    """The fixed byte distance between consecutive `places` in every cell, or None.

    Their paths from the root must have one length and part at one depth; from there down,
    each level must be dense with the same cell size, and each place the same offset in its
    parent's cell, so that only the offsets at the parting depth differ, by the same amount
    from one place to the next."""
    if len(places) == 1:
        return 0
    paths = [p.path() for p in places]
    if len({len(path) for path in paths}) != 1 or any(p.quant is not None for p in places):
        return None
    depth = next(d for d in range(len(paths[0])) if len({id(path[d]) for path in paths}) > 1)
    for level in range(depth, len(paths[0])):
        nodes = [path[level] for path in paths]
        if level < len(paths[0]) - 1 and (
            any(n.type != "dense" for n in nodes) or len({n.cell_size for n in nodes}) != 1
        ):
            return None
        if level > depth and len({n.offset_in_parent_cell for n in nodes}) != 1:
            return None
    offsets = [path[depth].offset_in_parent_cell for path in paths]
    steps = {b - a for a, b in zip(offsets, offsets[1:])}
    return steps.pop() if len(steps) == 1 else None


def _element_values(value: Any, count: int) -> list[Any]:
    if isinstance(value, numbers.Number):
        return [value] * count
    data = value.to_numpy() if isinstance(value, Matrix) else np.asarray(value)
    flat = data.reshape(-1)
    if flat.size != count:
        raise ValueError(f"expected {count} values, got {flat.size}")
    return [x.item() for x in flat]


def matrix_field(
    element_shape: tuple[int, ...],
    dtype: Any,
    shape: Any = None,
    name: str = "",
    offset: Any = None,
    **flags: Any,
) -> MatrixField:
    """`ti.Vector.field(n, dtype, shape)` / `ti.Matrix.field(n, m, dtype, shape)`."""
    offset = check_offset(shape, offset, "shape cannot be None when offset is set")
    count = int(np.prod(element_shape))
    names = [f"{name}[{k}]" if name else "" for k in range(count)]
    components = [quant_or_plain_field(dtype, n) for n in names]
    field = MatrixField(components, tuple(element_shape), name)
    if shape is not None:
        from tistudio.lang.snode import Axis, root

        shape = as_shape(shape)
        root.dense(Axis(*range(len(shape))), shape).place(*components, offset=offset)
        place_companions(components, shape, flags, offset)
    return field


def matrix_ndarray(element_shape: tuple[int, ...], dtype: Any, shape: Any) -> Any:
    """`ti.Vector.ndarray(n, dtype, shape)`: an ndarray whose elements are vectors."""
    from tistudio.lang.ndarray import Ndarray

    return Ndarray(dtype, shape, element_shape)
