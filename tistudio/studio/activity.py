"""What the field viewer shows of a sparse field: which elements are active, the block grid of
its sparse levels, and the length of each list of a dynamic node.

A sparse field's inactive elements read 0, like active zeros, so a picture of its values alone
hides its structure; these are read from the host's view of sparse memory
(`lang/sparse_view.py`), which activates nothing. Plain NumPy, no widgets, so the viewer's
traits and its static picture are built from the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tistudio.lang.sparse_view import active_cells

SHOWN_LENGTHS = 8  # a dynamic node with more lists than this is summarised


@dataclass(frozen=True)
class Activity:
    """A sparse field's activity, in the shape of its elements."""

    mask: np.ndarray  # bool: every sparse level above the element is active
    blocks: list[list[int]]  # elements per cell of each sparse level, along each axis
    lengths: np.ndarray | None = None  # a dynamic node's length per parent cell
    capacity: int = 0  # the most elements one of those lists holds

    def text(self) -> str:
        """`N of M cells (x %)`."""
        n, m = int(self.mask.sum()), int(self.mask.size)
        share = 100.0 * n / m if m else 0.0
        return f"{n:,} of {m:,} cells ({share:.3g} %)"

    def lengths_text(self) -> str:
        """The lengths of a dynamic node's lists (summarised when there are many); ''."""
        if self.lengths is None:
            return ""
        flat = self.lengths.ravel()
        if flat.size <= SHOWN_LENGTHS:
            listed = ", ".join(str(int(n)) for n in flat)
        else:
            listed = f"min {flat.min()}, max {flat.max()}, mean {flat.mean():.3g} over {flat.size}"
        return f"{listed} (of {self.capacity})"


def read_activity(source: Any) -> Activity | None:
    """The activity of a field (a vector field: its first component's); None for an array or a
    field on an all-dense path."""
    part = (getattr(source, "components", None) or [source])[0]
    place = getattr(part, "_ti_place_snode", None)
    if place is None or place.is_path_all_dense():  # (a dense field's memory is not read)
        return None
    mask = active_cells(part)
    assert mask is not None
    dynamic = next((n for n in place.path() if n.type == "dynamic"), None)
    lengths, capacity = None, 0
    if dynamic is not None:
        cells = active_cells(part, dynamic)
        assert cells is not None
        lengths = cells.sum(axis=dynamic.index_positions(dynamic), dtype=np.int64)
        capacity = dynamic.num_cells
    return Activity(mask, block_sizes(place), lengths, capacity)


def block_sizes(place: Any) -> list[list[int]]:
    """For each sparse level above the place SNode `place` (outermost first), how many of the
    field's elements one of its cells spans along each axis; levels whose cells are single
    elements are left out (their grid would be every element's)."""
    out = []
    extent = [1] * place.num_axes
    for node, positions in place.levels():
        for position, size in zip(positions, node.sizes):
            extent[position] *= size
        if node.is_sparse:
            block = [whole // part for whole, part in zip(place.shape, extent)]
            if any(b > 1 for b in block):
                out.append(block)
    return out
