"""`ti.field`: a scalar field, its Python-scope access and NumPy conversion.

On the CPU a field's memory is part of its SNode tree's NumPy buffer, so Python-scope reads,
writes, `fill`, `to_numpy` and `from_numpy` work on a strided NumPy view of that buffer and
never launch a kernel.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from tistudio.frontend.sparse_ops import DynamicRow
from tistudio.ir import frontend as fe
from tistudio.ir.assertions import TaichiAssertionError
from tistudio.ir.ops import BinaryOpType
from tistudio.ir.snode import SNode
from tistudio.ir.statements import normalize_value
from tistudio.ir.types import PrimitiveType, i32
from tistudio.lang import impl
from tistudio.lang.field_funcs import fill_in_kernel, kernel_scope
from tistudio.lang.sparse_view import SparseView
from tistudio.lang.types import as_shape, numpy_dtype, to_dtype

STALE_FIELD = "{what} belongs to a program that ti.init()/ti.reset() ended: create it again"


def is_usable(field: Any) -> bool:
    """Whether every part of `field` (a field, vector field or struct field) has memory a kernel
    may use: it belongs to the program `ti.init` made last, and its tree was allocated."""
    return not any(leaf._unusable() for leaf in field._ti_leaves())


class Field:
    """A field of scalars (`ti.field(ti.f32, shape=(16, 8))`)."""

    def __init__(self, dtype: PrimitiveType, name: str = "", companions: bool = True) -> None:
        self.dtype = dtype
        self._name = name
        self._snode: SNode | None = None
        self._program = impl.get_program()
        self._view_cache: np.ndarray | None = None
        # autodiff: a real field has `grad` and `dual` fields, placed by needs_grad/needs_dual
        # or ti.root.lazy_grad(); they point back with `_primal = (field, SNode attribute)`
        self._primal: tuple[Field, str] | None = None
        self.grad: Field | None = None
        self.dual: Field | None = None
        self.checkbit: Field | None = None  # debug: Tape(validation=True) checks reads here
        if companions and dtype.is_float:
            self.grad, self.dual = _companion(self, "grad"), _companion(self, "dual")

    def _attach(self, snode: SNode) -> None:
        if self._snode is not None:
            raise RuntimeError("this field is already placed")
        self._snode = snode
        self._program.fields_by_snode[snode.id] = self
        if self._primal is not None and self._primal[0]._snode is not None:
            setattr(self._primal[0]._snode, self._primal[1], snode)
        for kind, other in (
            ("adjoint", self.grad),
            ("dual", self.dual),
            ("checkbit", self.checkbit),
        ):
            if other is not None and other._snode is not None:
                setattr(snode, kind, other._snode)

    # --- what the frontend uses --------------------------------------------------------------

    @property
    def _ti_place_snode(self) -> SNode:
        if self._snode is None:
            raise RuntimeError("this field has no memory yet: place it with ti.root...place()")
        return self._snode

    def _ti_leaves(self) -> list[Field]:
        return [self]

    def _what(self) -> str:
        return f"field {self._name!r}" if self._name else "this field"

    def _ti_check_usable(self, loc: Any) -> None:
        """A kernel compiles for the current program, whose trees hold its own fields: a field
        of an ended one laid out its old tree's offsets over the new one's memory (a field
        kept across `ti.init()` wrote past the new tree's end: segmentation fault), and so did
        a field whose tree was never allocated (the next tree takes its tree id)."""
        from tistudio.frontend.errors import TaichiSyntaxError

        problem = self._unusable()
        if problem:
            raise TaichiSyntaxError(problem, loc)

    def _unusable(self) -> str:
        """Why this field's memory cannot be used ("" when it can): its program ended, or
        allocating its tree failed (`Program.materialize`)."""
        if self._program is not impl.current.program:
            return STALE_FIELD.format(what=self._what())
        discarded = self._program.discarded_roots
        if discarded and self._snode is not None and self._snode.path()[0].id in discarded:
            return f"{self._what()} was discarded when its memory could not be allocated"
        return ""

    def _ti_subscript(self, indices: list[fe.Expr], loc: Any) -> fe.Expr:
        from tistudio.frontend.errors import TaichiSyntaxError

        self._ti_check_usable(loc)
        parent = self._ti_place_snode.parent
        if len(indices) == len(self.shape) - 1 and parent and parent.type == "dynamic":
            return DynamicRow(parent, indices, loc, self)  # x[i].append(v), x[i].length()
        if len(indices) != len(self.shape):
            raise TaichiSyntaxError(
                f"field '{self._name or 'field'}' has {len(self.shape)} dimension(s) but was "
                f"accessed with {len(indices)} index(es)",
                loc,
            )
        snode = self._ti_place_snode
        if snode.index_offsets:  # x[i, j] of a field starting at (-2, 3) is element (i+2, j-3)
            indices = [_shift(e, -o) for e, o in zip(indices, snode.index_offsets)]
        return fe.FieldIndexExpr(snode, indices, dtype=self.dtype, loc=loc)

    # --- properties --------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._ti_place_snode.shape

    @property
    def offset(self) -> tuple[int, ...]:
        """The index of the first element along each axis (`ti.field(..., offset=...)`)."""
        return domain_start(self._ti_place_snode)

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

    def __repr__(self) -> str:
        return f"<ti.field {self.dtype}{list(self.shape)}>"

    # --- memory ------------------------------------------------------------------------------

    def _view(self) -> np.ndarray:
        """A NumPy view of this field's elements inside its tree's buffer."""
        problem = self._unusable()
        if problem:  # (before its cached view too)
            raise RuntimeError(problem)
        if self._view_cache is not None:
            return self._view_cache
        snode = self._ti_place_snode
        tree = self._program.tree_of(snode)
        if not snode.is_path_all_dense():  # pointer, bitmasked, dynamic: walk the tree
            self._view_cache = SparseView(tree.buffer, snode, numpy_dtype(self.dtype))
            return self._view_cache
        if _is_blocked(snode):  # nested blocks along one axis: no strided view exists
            flat = tree.buffer.view(numpy_dtype(self.dtype))
            self._view_cache = _GatherView(flat, _element_offsets(snode) // flat.itemsize)
            return self._view_cache
        offset, strides = _layout_of(snode)
        self._view_cache = np.ndarray(
            self.shape, numpy_dtype(self.dtype), tree.buffer, offset, strides
        )
        return self._view_cache

    def _host_view(self, key: tuple | None = None) -> np.ndarray:
        """`_view()` once the host copy of this field (or of element `key`) is current: on
        the GPU, after the device's writes. Host writes call `after_host_write` likewise."""
        view = self._view()
        self._program.before_host_read(self._ti_place_snode, view, key)
        return view

    def to_numpy(self, dtype: Any = None) -> np.ndarray:
        out = self._host_view().copy()
        return out if dtype is None else out.astype(dtype)

    def from_numpy(self, arr: Any) -> None:
        arr = np.asarray(arr)
        if tuple(arr.shape) != tuple(self.shape):
            raise ValueError(f"from_numpy: array shape {arr.shape} != field shape {self.shape}")
        self._host_view()[...] = _cast_like_taichi(arr, self.dtype)
        self._program.after_host_write(self._ti_place_snode, self._view())

    # --- PyTorch / DLPack (tistudio.lang.interop; torch is imported only when called) -----

    def to_torch(self, device: Any = None) -> Any:
        """A new tensor holding a copy of the field (on `device` if given)."""
        from tistudio.lang import interop

        return interop.to_torch(self.to_numpy(), device)

    def from_torch(self, tensor: Any) -> None:
        from tistudio.lang import interop

        self.from_numpy(interop.from_torch_checked(tensor))

    def from_dlpack(self, obj: Any) -> None:
        """Copy in from any DLPack producer (a tensor, a NumPy array, ...)."""
        from tistudio.lang import interop

        self.from_numpy(interop.as_numpy(obj))

    def __dlpack__(self, **kwargs: Any) -> Any:
        """DLPack export of a *copy* of the field (`to_numpy()`): later writes to either side
        are not shared."""
        return self.to_numpy().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    @kernel_scope(fill_in_kernel)
    def fill(self, value: Any) -> None:
        self._host_view()[...] = self._python_value(value)
        self._program.after_host_write(self._ti_place_snode, self._view())

    def copy_from(self, other: Field) -> None:
        if not isinstance(other, Field):
            raise TypeError(f"copy_from: cannot copy from a {type(other).__name__}, only a field")
        self._host_view()[...] = other._host_view()
        self._program.after_host_write(self._ti_place_snode, self._view())

    def _python_value(self, value: Any) -> Any:
        if isinstance(value, float) and self.dtype.is_float:
            # Taichi passes Python floats through default_fp (f32 unless ti.init says f64)
            fp = self._program.config.default_fp
            return float(np.dtype(fp.numpy_name).type(value))
        if isinstance(value, numbers.Number) and not isinstance(value, complex):
            if self.dtype.is_integral and not self.dtype.kind == "bool":
                value = int(value) if isinstance(value, numbers.Integral) else int(float(value))
            return normalize_value(value, self.dtype)
        return value

    def _key(self, key: Any) -> tuple:
        """The position in the NumPy view of element `key` (which counts from the offset)."""
        if key is None:
            key = ()
        if not isinstance(key, tuple):
            key = (key,)
        for index in key:  # Taichi's words
            if not isinstance(index, numbers.Integral):
                raise TypeError(
                    f"Detected illegal element of type: {type(index)}. Please be aware that "
                    "slicing a ti.field is not supported so far."
                )
        if len(key) != len(self.shape):
            raise FieldIndexError(
                f"Slicing is not supported on ti.field: a field of shape {self.shape} indexed "
                f"with {len(key)} index(es)"
            )
        start = domain_start(self._ti_place_snode)
        for index, extent, first in zip(key, self.shape, start):
            if not first <= index < first + extent:
                where = f" and offset {start}" if any(start) else ""
                raise FieldBoundsError(
                    f"index {key} is out of bounds for a field of shape {self.shape}{where}"
                )
        return tuple(int(x) - first for x, first in zip(key, start))

    def __getitem__(self, key: Any) -> Any:
        key = self._key(key)
        return self._host_view(key)[key].item()

    def __iter__(self) -> Any:
        raise NotImplementedError("Struct for is only available in Taichi scope.")

    def __setitem__(self, key: Any, value: Any) -> None:
        key = self._key(key)
        self._host_view(key)[key] = self._python_value(value)
        self._program.after_host_write(self._ti_place_snode, self._view(), key)


class FieldIndexError(IndexError, AssertionError):
    """A Python-scope field access with the wrong number of indices: Taichi asserts the count
    (an `AssertionError`); an `IndexError` is what Python code expects of a bad index."""


class FieldBoundsError(TaichiAssertionError, IndexError):
    """A Python-scope field access out of bounds: what Taichi's debug-mode check raises (a
    `TaichiAssertionError`), and an `IndexError`, as Python code expects of a bad index."""


def _companion(primal: Field, kind: str) -> Field:
    """`primal.grad` or `primal.dual`: a field of the same dtype, placed separately."""
    name = f"{primal._name}.{kind}" if primal._name else ""
    other = Field(primal.dtype, name, companions=False)
    other._primal = (primal, "adjoint" if kind == "grad" else "dual")
    return other


def domain_start(snode: SNode) -> tuple[int, ...]:
    """The index of a field's first element along each axis: its offset, or zeros."""
    return snode.index_offsets or (0,) * len(snode.shape)


def _shift(index: fe.Expr, by: int) -> fe.Expr:
    """`index + by` as an i32 expression. A constant folds; `(i + c) - c` is `i` (two's
    complement), so a struct-for's index into its own field is the loop index again."""
    if by == 0:
        return index
    if isinstance(index, fe.ConstExpr):
        return fe.ConstExpr(normalize_value(int(index.value) + by, i32), dtype=i32, loc=index.loc)
    if (
        isinstance(index, fe.BinaryOpExpr)
        and index.op is BinaryOpType.add
        and isinstance(index.rhs, fe.ConstExpr)
        and int(index.rhs.value) == -by
    ):
        return index.lhs
    amount = fe.ConstExpr(by, dtype=i32, loc=index.loc)
    return fe.BinaryOpExpr(BinaryOpType.add, index, amount, dtype=i32, loc=index.loc)


def check_offset(shape: Any, offset: Any, no_shape: str) -> tuple[int, ...] | None:
    """`offset` as a tuple matching `shape`, with the errors (and words) of Taichi's
    `ti.field`: `no_shape` when there is an offset but no shape, and a length mismatch."""
    from tistudio.frontend.errors import TaichiSyntaxError

    if offset is None:
        return None
    if shape is None:
        raise TaichiSyntaxError(no_shape)
    dim = len(as_shape(shape))
    offset = as_offset(offset)
    if len(offset) != dim:
        raise TaichiSyntaxError(
            f"The dimensionality of shape and offset must be the same ({dim} != {len(offset)})"
        )
    return offset


def as_offset(offset: Any) -> tuple[int, ...]:
    """An offset (an int, or a sequence of ints; each may be negative) as a tuple of ints."""
    if isinstance(offset, numbers.Integral):
        return (int(offset),)
    values = tuple(offset)
    if not all(isinstance(v, numbers.Integral) for v in values):
        raise TypeError(f"offset must be an int or a tuple of ints, got {offset!r}")
    return tuple(int(v) for v in values)


def place_companions(
    fields: list[Field],
    shape: tuple[int, ...],
    flags: dict[str, bool],
    offset: tuple[int, ...] | None = None,
) -> None:
    """Place the `.grad` (`needs_grad`) and `.dual` (`needs_dual`) fields of `fields`, each
    kind under its own dense SNode of `shape` next to the primal's (with the primal's
    `offset`), as Taichi lays them out."""
    from tistudio.lang.snode import Axis, root

    for kind in ("grad", "dual"):
        if flags.get(f"needs_{kind}"):
            companions = [getattr(f, kind) for f in fields]
            if None in companions:  # Taichi's words
                from tistudio.frontend.errors import TaichiRuntimeError

                dtype = fields[companions.index(None)].dtype
                raise TaichiRuntimeError(
                    f"{dtype} is not supported for field with `needs_grad=True` or "
                    "`needs_dual=True`."
                )
            root.dense(Axis(*range(len(shape))), shape).place(*companions, offset=offset)
    if flags.get("needs_grad") and impl.get_program().config.debug:
        for f in fields:  # Taichi's adjoint checkbit, an i32 (GPU atomics have no u8)
            f.checkbit = Field(i32, f"{f._name}.checkbit" if f._name else "", companions=False)
            f.checkbit._primal = (f, "checkbit")
        checkbits = [f.checkbit for f in fields]
        root.dense(Axis(*range(len(shape))), shape).place(*checkbits, offset=offset)


def _layout_of(snode: SNode) -> tuple[int, tuple[int, ...]]:
    """Byte offset of element 0 and byte strides of each axis, for dense paths where every
    axis is split across levels in order (the layouts `ti.field` and `dense().place()` make)."""
    offset = 0
    strides = [0] * len(snode.shape)
    for node, axes in snode.levels()[1:]:  # axes: positions among the field's indices
        offset += node.offset_in_parent_cell if node.type != "place" else 0
        if node.type == "dense":
            level_stride = node.cell_size
            for axis, size in reversed(list(zip(axes, node.sizes))):
                if strides[axis] == 0:
                    strides[axis] = level_stride
                level_stride *= size
    offset += snode.offset_in_parent_cell
    return offset, tuple(strides)


def _element_offsets(snode: SNode) -> np.ndarray:
    """Byte offset of every element (an array of the field's shape), for any dense layout:
    at each level, the cell index is the row-major combination of that level's share of each
    axis index, `(index // sizes of deeper levels) % size of this level` (as `lower_access`)."""
    shape = snode.shape
    index = np.indices(shape, dtype=np.int64) if shape else np.zeros((0,), np.int64)
    path = snode.levels()[1:]  # each node with its axes as positions among the field's indices
    deeper = [[1] * len(shape) for _ in path]
    for level in range(len(path) - 2, -1, -1):
        deeper[level] = list(deeper[level + 1])
        inner, inner_axes = path[level + 1]
        for axis, size in zip(inner_axes, inner.sizes):
            deeper[level][axis] *= size
    offsets = np.zeros(shape, np.int64)
    for level, (node, axes) in enumerate(path):
        offsets += node.offset_in_parent_cell
        if node.type == "dense":
            cell = np.zeros(shape, np.int64)
            for axis, size in zip(axes, node.sizes):
                cell = cell * size + (index[axis] // deeper[level][axis]) % size
            offsets += cell * node.cell_size
    return offsets


class _GatherView:
    """NumPy-like access to a field whose elements are not evenly strided in memory."""

    def __init__(self, flat: np.ndarray, positions: np.ndarray) -> None:
        self.flat, self.positions = flat, positions

    def __getitem__(self, key: Any) -> Any:
        return self.flat[self.positions[key]]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.flat[self.positions[key]] = value

    def copy(self) -> np.ndarray:
        return self.flat[self.positions]


def _is_blocked(snode: SNode) -> bool:
    seen: set[int] = set()
    for node in snode.path():
        for axis in node.axes:
            if axis in seen:
                return True
            seen.add(axis)
    return False


def _cast_like_taichi(arr: np.ndarray, dtype: PrimitiveType) -> np.ndarray:
    target = numpy_dtype(dtype)
    if arr.dtype == target:
        return arr
    if np.issubdtype(arr.dtype, np.floating) and dtype.is_integral:
        return np.trunc(arr).astype(np.int64).astype(target)
    return arr.astype(target)


def quant_or_plain_field(dtype: Any, name: str = "") -> Field:
    """A `Field` of `dtype`, or a quant field (`lang/bitpacked.py`) for a quant type."""
    from tistudio.lang.bitpacked import new_field

    return new_field(dtype, name) or Field(to_dtype(dtype), name)


def field(
    dtype: Any,
    shape: Any = None,
    name: str = "",
    offset: Any = None,
    needs_grad: bool = False,
    needs_dual: bool = False,
    **_: Any,
) -> Field:
    """`ti.field(dtype, shape)`: a scalar field; without `shape`, place it yourself. A
    vector or matrix `dtype` (`ti.types.vector(3, ti.f32)`, `ti.math.vec3`) makes a vector
    or matrix field, as `ti.Vector.field`/`ti.Matrix.field` would."""
    flags = {"needs_grad": needs_grad, "needs_dual": needs_dual}
    if hasattr(dtype, "_ti_matrix_type"):
        from tistudio.lang.matrix_field import matrix_field

        element_shape, element_dtype = dtype._ti_matrix_type
        if element_dtype is None:  # ti.types.vector(3): Taichi's ti.field has no default
            raise ValueError("Invalid data type None")
        return matrix_field(
            tuple(element_shape), element_dtype, shape, name, offset=offset, **flags
        )
    offset = check_offset(shape, offset, "shape cannot be None when offset is set")
    f = quant_or_plain_field(dtype, name)
    if shape is not None:
        from tistudio.lang.snode import Axis, root

        shape = as_shape(shape)
        root.dense(Axis(*range(len(shape))), shape).place(f, offset=offset)
        place_companions([f], shape, flags, offset)
    return f
