"""NumPy-like access to a field under sparse SNodes, for Python scope (`x[i]`, `to_numpy`,
`from_numpy`, `fill`): the elements are found by walking the tree's slots, masks and lengths
(`ir/sparse.py`), not by strides.

As in Taichi: reading an element never activates anything (an inactive pointer cell reads 0, a
deactivated bitmasked cell still reads its data); writing one element activates its path;
`to_numpy` gives 0 for every inactive element; `from_numpy`, `fill` and `copy_from` write only
the active elements (Taichi runs them as struct-fors).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiRuntimeError
from tistudio.ir import sparse
from tistudio.ir.snode import SNode


class SparseView:
    """The elements of the field placed at `snode`, inside its tree's `buffer`."""

    def __init__(self, buffer: np.ndarray, snode: SNode, dtype: np.dtype) -> None:
        self.buffer, self.snode, self.dtype = buffer, snode, np.dtype(dtype)
        self.shape = snode.shape

    def _flat(self) -> np.ndarray:
        size = self.dtype.itemsize
        return self.buffer[: self.buffer.nbytes // size * size].view(self.dtype)

    def _all(self) -> tuple[np.ndarray, np.ndarray]:
        offsets, active = sparse.cells(self.buffer, self.snode, sparse.all_cells(self.shape))
        return offsets.reshape(self.shape), active.reshape(self.shape)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple) and all(isinstance(k, int) for k in key):
            offsets, _, _ = sparse.walk(self.buffer, self.snode, [np.int64(k) for k in key])
            return self._flat()[int(offsets) // self.dtype.itemsize]
        return self.copy()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, tuple) and all(isinstance(k, int) for k in key):
            index = [np.int64(k) for k in key]
            offsets, _, _ = sparse.walk(self.buffer, self.snode, index, activate=True)
            self._check_pools()
            self._flat()[int(offsets) // self.dtype.itemsize] = value
            return
        if key is not Ellipsis:
            raise TypeError(f"a sparse field takes an element index or ..., not {key!r}")
        offsets, active = self._all()
        values = value.copy() if isinstance(value, SparseView) else np.asarray(value)
        values = np.broadcast_to(values, self.shape)
        self._flat()[offsets[active] // self.dtype.itemsize] = values[active]

    def copy(self) -> np.ndarray:
        offsets, active = self._all()
        out = np.zeros(self.shape, self.dtype)
        out[active] = self._flat()[offsets[active] // self.dtype.itemsize]
        return out

    def _check_pools(self) -> None:
        exhausted = sparse.collect(self.buffer, self.snode.path()[0])
        if exhausted:
            raise TaichiRuntimeError(sparse.exhausted_message(exhausted[0]))


def active_cells(field: Any, snode: SNode | None = None) -> np.ndarray | None:
    """Read only: whether each element of `field` (or each cell of `snode`, a node on its
    path) is active, every sparse level above it included, in the shape of its index space;
    None for a field on an all-dense path. Activates nothing (the field viewer's picture)."""
    view = field._host_view()
    if not isinstance(view, SparseView):
        return None
    node = snode or view.snode
    mask = sparse.active_mask(view.buffer, node, sparse.all_cells(node.shape))
    return np.asarray(mask, bool).reshape(node.shape)
