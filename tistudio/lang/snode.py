"""`ti.root` and the SNode-building API: `ti.root.dense(ti.ij, (16, 8)).place(x)`."""

from __future__ import annotations

import numbers
from typing import Any

from tistudio.frontend.errors import TaichiRuntimeError
from tistudio.ir import sparse
from tistudio.ir.snode import SNode
from tistudio.ir.types import TYPES_BY_NAME
from tistudio.lang import impl
from tistudio.lang.types import as_shape


class Axis:
    """`ti.i`, `ti.ij`, `ti.axes(0, 2)`: which field axes a dense level indexes."""

    def __init__(self, *axes: int) -> None:
        self.axes = tuple(axes)


i, j, k, l = Axis(0), Axis(1), Axis(2), Axis(3)  # noqa: E741 - Taichi's names
ij, ik, jk, ijk, ijkl = Axis(0, 1), Axis(0, 2), Axis(1, 2), Axis(0, 1, 2), Axis(0, 1, 2, 3)


def axes(*indices: int) -> Axis:
    return Axis(*indices)


class SNodeBuilder:
    """A user handle on an SNode under construction (`ti.root`, the result of `.dense`)."""

    def __init__(self, snode: SNode | None) -> None:
        self._snode = snode  # None: the current program's pending root, resolved on use

    @property
    def ptr(self) -> SNode:
        return self._snode if self._snode is not None else impl.get_program().pending_root

    def dense(self, axis: Axis, dimensions: Any, kind: str = "dense") -> SNodeBuilder:
        if isinstance(dimensions, numbers.Integral):  # one size for every axis
            dimensions = (dimensions,) * len(axis.axes)
        sizes = as_shape(dimensions, "dense() sizes")
        if len(sizes) == 1:  # Taichi's too: `dense(ti.ij, (n,))` is n along each axis
            sizes = sizes * len(axis.axes)
        if len(sizes) != len(axis.axes):
            raise ValueError(f"dense() got {len(axis.axes)} axes but {len(sizes)} sizes")
        for position, size in enumerate(sizes):
            if size <= 0:
                raise FieldShapeError(
                    "Every dimension of a Taichi field should be positive, got "
                    f"{size} in dimension {position} (shape/sizes {tuple(sizes)})"
                )
        program = impl.get_program()
        parent = self.ptr
        self._check_open(parent, program)
        sizes = tuple(int(s) for s in sizes)
        if kind != "dense":  # a sparse kind (ir/sparse.py)
            return SNodeBuilder(parent.sparse(kind, axis.axes, sizes, program.new_snode_id()))
        return SNodeBuilder(parent.dense(axis.axes, sizes, program.new_snode_id()))

    def place(self, *fields: Any, offset: Any = None) -> SNodeBuilder:
        """Place `fields` in each cell of this node; `offset` is the index of their first
        element along each axis (Taichi's `place(x, offset=(-2, 3))`)."""
        program = impl.get_program()
        parent = self.ptr
        self._check_open(parent, program)
        offsets = _place_offsets(parent, offset)
        for f in fields:
            if hasattr(f, "_ti_place_in"):  # ti.BitpackedFields: a bit_struct node of fields
                f._ti_place_in(parent, program.new_snode_id, offsets)
                continue
            leaves = f._ti_leaves() if hasattr(f, "_ti_leaves") else [f]
            for component in leaves:  # a vector or struct field places each scalar field
                snode = parent.place(
                    component.dtype, program.new_snode_id(), component._name, offsets
                )
                component._attach(snode)
        return self

    def lazy_grad(self) -> None:
        """Place the `.grad` of every real field under this node that has none yet, next to
        its primal (Taichi's `ti.root.lazy_grad()`)."""
        lazy_grad(self.ptr)

    def lazy_dual(self) -> None:
        """Place the `.dual` (forward mode's) of every real field under this node that has
        none yet, next to its primal (Taichi's `ti.root.lazy_dual()`)."""
        lazy_grad(self.ptr, "dual")

    def quant_array(self, axis: Axis, dimensions: Any, max_num_bits: int) -> SNodeBuilder:
        """Cells that are bit slices of one `max_num_bits`-bit word: place one quant field
        under it, `dimensions` of its elements to a word (`lang/bitpacked.py`)."""
        if max_num_bits not in (8, 16, 32, 64):
            raise ValueError(f"max_num_bits must be 8, 16, 32 or 64, got {max_num_bits!r}")
        node = self.dense(axis, dimensions).ptr
        node.type, node.dtype = "quant_array", TYPES_BY_NAME[f"u{max_num_bits}"]
        return SNodeBuilder(node)

    def pointer(self, axis: Axis, dimensions: Any) -> SNodeBuilder:
        """Cells allocated when written and freed by `ti.deactivate` (a pool per node)."""
        return self.dense(axis, dimensions, "pointer")

    def bitmasked(self, axis: Axis, dimensions: Any) -> SNodeBuilder:
        """Dense cells with one activity bit each."""
        return self.dense(axis, dimensions, "bitmasked")

    def dynamic(self, axis: Axis, dimension: Any, chunk_size: int | None = None) -> SNodeBuilder:
        """A list of up to `dimension` cells along one axis (`ti.append`, `ti.length`);
        `chunk_size` is Taichi's allocation unit, kept for its API (the cells are reserved
        whole here)."""
        if len(axis.axes) != 1:
            raise ValueError("dynamic() takes exactly one axis, e.g. ti.i or ti.j")
        node = self.dense(axis, dimension, "dynamic")
        node.ptr.chunk_size = int(chunk_size) if chunk_size else node.ptr.num_cells
        return node

    def deactivate_all(self) -> None:
        """Deactivate every cell of this node and of the sparse nodes below it (`ti.root`:
        of every tree)."""
        if self._snode is None:
            deactivate_all_trees()
        else:
            deactivate_all(self.ptr)

    def parent(self, n: int = 1) -> SNodeHandle | None:
        return SNodeHandle(self.ptr).parent(n)

    # `for I in ti.grouped(node)`: a struct-for over this node's cells (its active ones)
    @property
    def _ti_place_snode(self) -> SNode:
        return self.ptr

    def _ti_leaves(self) -> list:
        return []

    @staticmethod
    def _check_open(node: SNode, program: Any) -> None:
        root = node.path()[0]
        if root.tree_id < len(program.trees):
            raise RuntimeError(
                "this SNode tree is already in use by a kernel or from Python; "
                "declare fields before launching kernels, or on a new ti.root"
            )

    @property
    def shape(self) -> tuple[int, ...]:
        return self.ptr.shape


root = SNodeBuilder(None)


class FieldShapeError(TaichiRuntimeError, ValueError):
    """A field or SNode size that is not positive: Taichi's TaichiRuntimeError, and a
    ValueError (a bad value) to Python code that expects one."""


class UnsupportedSNodeError(TaichiRuntimeError, NotImplementedError):
    """A sparse SNode where a back end has none (Taichi's error for such a back end)."""


def deactivate_all_trees() -> None:
    """Deactivate every cell of every sparse SNode of the program's trees."""
    program = impl.get_program()
    program.materialize()
    for tree in program.trees:
        deactivate_all(tree.root)


def deactivate_all(node: SNode) -> None:
    """Deactivate every cell of `node` and of the sparse nodes below it (host side)."""
    program = impl.get_program()
    tree = program.tree_of(node)
    program.before_host_read(node)
    sparse.deactivate_all(tree.buffer, node)
    program.after_host_write(node)


def _place_offsets(parent: SNode, offset: Any) -> tuple[int, ...]:
    """`offset` for fields placed under `parent`: () for none or all zeros, else one int per
    axis of `parent` (Taichi asserts the count; here it is Taichi's `ti.field` error)."""
    from tistudio.frontend.errors import TaichiSyntaxError
    from tistudio.lang.field import as_offset

    if offset is None:
        return ()
    offsets = as_offset(offset)
    if not offsets:
        return ()
    dim = len(parent.shape)
    if len(offsets) != dim:
        raise TaichiSyntaxError(
            f"The dimensionality of shape and offset must be the same ({dim} != {len(offsets)})"
        )
    return offsets if any(offsets) else ()


def lazy_grad(node: SNode, kind: str = "grad") -> None:
    """Place the missing `.grad` (or `.dual`, `kind`) of the real fields under `node`, each
    next to its primal (`ti.ad.lazy_grad`)."""
    fields = impl.get_program().fields_by_snode
    for child in [c for c in node.children if c.type != "place"]:
        lazy_grad(child, kind)
    for child in list(node.children):  # each next to its primal, with the primal's offset
        primal = fields.get(child.id) if child.type == "place" else None
        companion = getattr(primal, kind, None)
        if companion is not None and companion._snode is None:
            SNodeBuilder(node).place(companion, offset=child.index_offsets or None)


class SNodeHandle:
    """`field.snode`: a read-only view of a field's SNode (`.shape`, `.parent()`, `.id`)."""

    def __init__(self, snode: SNode, name: str = "") -> None:
        self.ptr = snode
        self._field_name = name

    @property
    def id(self) -> int:
        return self.ptr.id

    @property
    def _name(self) -> str:
        """The name of the field this handle came from (Taichi's `x.snode._name`)."""
        return self._field_name or self.ptr.name

    @property
    def shape(self) -> tuple[int, ...]:
        return self.ptr.shape

    def deactivate_all(self) -> None:
        """Deactivate every cell of this node and of the sparse nodes below it."""
        deactivate_all(self.ptr)

    @property
    def _ti_place_snode(self) -> SNode:  # a struct-for over this node's (active) cells
        return self.ptr

    def _ti_leaves(self) -> list:
        return []

    def parent(self, n: int = 1) -> SNodeHandle | None:
        node: SNode | None = self.ptr
        for _ in range(n):
            node = node.parent if node is not None else None
        return SNodeHandle(node) if node is not None else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SNodeHandle) and other.ptr is self.ptr

    def __hash__(self) -> int:
        return hash(self.ptr.id)

    def __repr__(self) -> str:
        return f"<ti.SNode {self.ptr.ref()}>"
