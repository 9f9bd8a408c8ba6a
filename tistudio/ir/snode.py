"""Structural nodes (SNodes): the layout of field memory, as in Taichi's SNode trees.

A tree starts at a `root` with one cell. A `dense` node holds a fixed grid of cells along some
axes; every cell holds one instance of each child, laid out one after another. A `place` node is a
leaf holding one scalar of a field. `ti.field(f32, shape=(16, 8))` is `root -> dense(ij, (16, 8))
-> place(f32)`. The compiler reads only this description; the runtime owns the memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tistudio.ir import sparse
from tistudio.ir.quant import QuantType
from tistudio.ir.types import PrimitiveType


@dataclass(eq=False)
class SNode:
    """One node of an SNode tree; `id` is unique within the program (printed as `S3dense`)."""

    id: int
    type: str  # "root" | "dense" | "place" | a sparse kind (SPARSE) | a bit container
    parent: SNode | None = None
    axes: tuple[int, ...] = ()  # for dense: which field axes this level indexes
    sizes: tuple[int, ...] = ()  # for dense: cells along each of `axes`
    dtype: PrimitiveType | None = None  # for place
    tree_id: int = 0
    name: str = ""  # the field's name, for messages
    children: list[SNode] = field(default_factory=list)
    offset_in_parent_cell: int = 0  # bytes, set by `finalize_layout`
    cell_size: int = 0  # bytes of one cell (for place: the scalar size)
    adjoint: SNode | None = field(default=None, repr=False)  # place of `x.grad` (autodiff)
    dual: SNode | None = field(default=None, repr=False)  # place of `x.dual` (forward mode)
    checkbit: SNode | None = field(default=None, repr=False)  # global data access rule (debug)
    # for place: the index of element 0 along each axis (`ti.field(..., offset=(-2, 3))`);
    # () when every axis starts at 0. Kernels see indices shifted back to start at 0.
    index_offsets: tuple[int, ...] = ()
    # Quantized types (ir/quant.py). A `bit_struct` or `quant_array` node is one unsigned word
    # (its `dtype`, the physical type) per cell of its parent; its places are bit slices of it.
    # A quant place's `dtype` is its compute type and `quant` its quant type; `bit_offset` is
    # its first bit in the word (for a quant_array element 0's), and a quant float's exponent
    # starts at `exponent_bit_offset`, shared with its siblings when `shared_exponent`.
    quant: QuantType | None = None
    bit_offset: int = 0
    exponent_bit_offset: int = -1
    shared_exponent: bool = False
    # Sparse kinds (ir/sparse.py, docs/sparse-design.md). A bitmasked node's mask words and a
    # dynamic node's length sit in the `header_bytes` just before its cells (its
    # `offset_in_parent_cell` is where the cells start). A pointer node's cells live in its
    # pool: `pool_offset` is the tree byte offset of pool cell 0 (the all-zero "ambient" cell
    # that inactive slots lead to), `pool_capacity` the cells it can hand out, `meta_offset`
    # its counters, free list and recycle list.
    chunk_size: int = 0
    header_bytes: int = 0
    pool_offset: int = 0
    pool_capacity: int = 0
    meta_offset: int = 0

    def __str__(self) -> str:
        return f"S{self.id}{self.type}<{self.dtype}>" if self.type == "place" else self.ref()

    def ref(self) -> str:
        """Printed reference: `S1dense`, `S2place<f32>`."""
        if self.type == "place" or self.type in BIT_CONTAINERS:
            return f"S{self.id}{self.type}<{self.dtype}>"
        return f"S{self.id}{self.type}"

    def dense(self, axes: tuple[int, ...], sizes: tuple[int, ...], new_id: int) -> SNode:
        child = SNode(new_id, "dense", self, tuple(axes), tuple(sizes), tree_id=self.tree_id)
        self.children.append(child)
        return child

    def sparse(
        self, kind: str, axes: tuple[int, ...], sizes: tuple[int, ...], new_id: int
    ) -> SNode:
        """A `pointer`, `bitmasked` or `dynamic` child (its cells as a dense child's)."""
        child = self.dense(axes, sizes, new_id)
        child.type = kind
        return child

    def place(
        self,
        dtype: PrimitiveType,
        new_id: int,
        name: str = "",
        index_offsets: tuple[int, ...] = (),
    ) -> SNode:
        child = SNode(new_id, "place", self, dtype=dtype, tree_id=self.tree_id, name=name)
        child.index_offsets = tuple(index_offsets)
        self.children.append(child)
        return child

    # --- derived geometry ------------------------------------------------------------------

    def path(self) -> list[SNode]:
        """Nodes from the root down to this one, inclusive."""
        nodes: list[SNode] = []
        node: SNode | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    @property
    def physical_axes(self) -> tuple[int, ...]:
        """The axes some level on the way down to this node indexes, ascending: the field's
        index number `p` runs along axis `physical_axes[p]` (Taichi's `physical_index_position`).
        `dense(ti.k, 8)` gives (2,), so its field has one index, not three."""
        return tuple(sorted({a for n in self.path() for a in n.axes}))

    @property
    def num_axes(self) -> int:
        """How many indices this node's field (or struct-for) takes."""
        return len(self.physical_axes)

    def index_positions(self, level: SNode) -> tuple[int, ...]:
        """`level.axes` (of a node on this node's path) as positions among this node's indices.

        The same as `level.axes` when the active axes are 0, 1, ... (the usual case)."""
        physical = self.physical_axes
        return tuple(physical.index(a) for a in level.axes)

    def levels(self) -> list[tuple[SNode, tuple[int, ...]]]:
        """Each node from the root down to this one, with the index positions it splits."""
        physical = self.physical_axes
        return [(node, tuple(physical.index(a) for a in node.axes)) for node in self.path()]

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent along each index: the product of the sizes of every level on its axis."""
        extent = [1] * self.num_axes
        for node, positions in self.levels():
            for position, size in zip(positions, node.sizes):
                extent[position] *= size
        return tuple(extent)

    @property
    def num_cells(self) -> int:
        """Cells of this node per cell of its parent."""
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @property
    def is_sparse(self) -> bool:
        return self.type in SPARSE

    def is_path_all_dense(self) -> bool:
        return all(n.type in ("root", "dense", "place", *BIT_CONTAINERS) for n in self.path())


# SNode kinds whose cells may be inactive (Taichi's sparse SNodes; ir/sparse.py).
SPARSE = ("pointer", "bitmasked", "dynamic")

# SNode kinds whose cells are bit slices of one word (Taichi's bit_struct and quant_array).
BIT_CONTAINERS = ("bit_struct", "quant_array")


def finalize_layout(root: SNode, tree_bytes: int | None = None) -> int:
    """Assign cell sizes and child offsets bottom-up; return the root's size in bytes
    (`tree_bytes`, if given, caps it: pointer pools are sized to fit, `sparse.place_pools`).

    A cell holds its children back to back, each aligned to its own alignment (at most 8 bytes),
    so fields placed under one dense node are interleaved, as Taichi lays them out.
    """

    def size_of(node: SNode) -> tuple[int, int]:  # (bytes of the whole node, alignment)
        if node.type in BIT_CONTAINERS:  # one word, whatever its places and cells
            assert node.dtype is not None
            node.cell_size = node.dtype.nbytes
            return node.cell_size, node.cell_size
        if node.type == "place":
            assert node.dtype is not None
            node.cell_size = node.dtype.nbytes
            return node.cell_size, node.cell_size
        offset, align = 0, 1
        for child in node.children:
            child_size, child_align = size_of(child)
            offset = (offset + child_align - 1) // child_align * child_align
            child.offset_in_parent_cell = offset + child.header_bytes  # (sparse headers)
            offset += child_size
            align = max(align, child_align)
        node.cell_size = (offset + align - 1) // align * align if offset else 0
        if node.type in SPARSE:
            return sparse.container_size(node, align)
        return node.cell_size * node.num_cells, align

    total, _ = size_of(root)
    return sparse.place_pools(root, total, tree_bytes)
