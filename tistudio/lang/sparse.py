"""Sparse SNodes from the user's side: `ti.activate`, `ti.deactivate`, `ti.is_active`,
`ti.append`, `ti.length`, `ti.rescale_index`, `ti.no_activate` (kernel builtins, see
`frontend/sparse_ops.py`), `ti.deactivate_all_snodes`, `ti.get_addr`, and the `ti.sparse`
namespace (`ti.sparse.grid`, `ti.sparse.usage`). Memory layout and meaning: `ir/sparse.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.sparse_ops import rescale_factors
from tistudio.ir import sparse as layout
from tistudio.lang import impl
from tistudio.lang.snode import deactivate_all_trees, ij, ijk, root


def _kernel_only(name: str) -> Any:
    def builtin(*args: Any, **kwargs: Any) -> Any:
        raise TaichiSyntaxError(f"ti.{name}() can only be called inside a kernel or ti.func")

    builtin.__name__ = name
    builtin.__ti_builtin__ = name  # type: ignore[attr-defined] - inside a kernel
    return builtin


activate = _kernel_only("activate")
deactivate = _kernel_only("deactivate")
is_active = _kernel_only("is_active")
append = _kernel_only("append")
length = _kernel_only("length")
no_activate = _kernel_only("no_activate")


def rescale_index(a: Any, b: Any, indices: Any) -> list[int]:
    """Indices of `a`'s index space (a field or an SNode) in `b`'s: each divided by the sizes
    of the levels of `a`'s path below `b` (in a kernel: `frontend/sparse_ops.py`)."""
    return [i // s for i, s in zip(indices, rescale_factors(_node(a), _node(b)))]


rescale_index.__ti_builtin__ = "rescale_index"  # type: ignore[attr-defined]


def _node(value: Any) -> Any:
    return value.ptr if hasattr(value, "ptr") else value._ti_place_snode


deactivate_all_snodes = deactivate_all_trees  # Taichi's name


def get_addr(f: Any, indices: Any) -> int:
    """The address of element `indices` of field `f` (in a kernel: `frontend/sparse_ops.py`)."""
    snode = f.snode.ptr if hasattr(f, "snode") else f.ptr
    tree = impl.get_program().tree_of(snode)
    key = indices if isinstance(indices, (list, tuple)) else [indices]
    offsets, _, _ = layout.walk(tree.buffer, snode, [np.int64(i) for i in key])
    return tree.address + int(offsets)


get_addr.__ti_builtin__ = "get_addr"  # type: ignore[attr-defined]


class _Namespace:
    """`ti.sparse`: sparse grids of structs."""

    @staticmethod
    def grid(field_dict: dict, shape: Any) -> Any:
        """A 2-D or 3-D struct field on a bitmasked node (Taichi's `ti.sparse.grid`)."""
        from tistudio.lang.struct import Struct

        x = Struct.field(field_dict)
        if len(shape) not in (2, 3):
            raise Exception("Only 2D and 3D sparse grids are supported")
        root.bitmasked(ij if len(shape) == 2 else ijk, shape).place(x)
        return x

    @staticmethod
    def usage(x: Any) -> float:
        """The fraction of the grid's cells that are active, in [0, 1]."""
        node = x.parent().ptr
        program = impl.get_program()
        tree = program.tree_of(node)
        program.before_host_read(node)
        return layout.usage(tree.buffer, node)


sparse = _Namespace()
