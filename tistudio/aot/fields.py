"""Fields in a module's metadata: where each element lives in its SNode tree's buffer.

A field entry names the tree and, per component (one for a scalar field, one per element of
a vector or matrix field), the byte offset of element 0 and the byte stride of each axis, so
the loader can lay a NumPy view over the tree's memory with no SNode machinery.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def field_entry(name: str, field: Any, program: Any) -> dict:
    """The metadata of `field` added as `name` (see docs/aot-format.md, "fields")."""
    leaves = field._ti_leaves()
    element_shape = list(getattr(field, "element_shape", ()))
    tree = program.tree_of(leaves[0]._ti_place_snode)
    components = [_component(name, leaf, tree) for leaf in leaves]
    dtype = leaves[0].dtype
    return {
        "field_name": name,
        "dtype": str(dtype),
        "is_scalar": not element_shape,
        "shape": list(field.shape),
        "element_shape": element_shape,
        "tree": tree.id,
        "mem_offset_in_parent": components[0]["offset"],
        "components": components,
    }


def _component(name: str, leaf: Any, tree: Any) -> dict:
    if program_tree(leaf) is not tree:
        raise ValueError(f"field {name!r}: its components live in different SNode trees")
    sparse = [n for n in leaf._ti_place_snode.path() if n.is_sparse]
    if sparse:  # the C and browser runners have no pool allocator (docs/sparse-design.md)
        raise ValueError(
            f"field {name!r} lies under a {sparse[0].type} SNode ({sparse[0].ref()}): AOT "
            "modules do not carry sparse SNodes yet; add dense fields only"
        )
    view = leaf._view()
    if not isinstance(view, np.ndarray):
        raise ValueError(
            f"field {name!r} has a blocked layout (nested dense levels on one axis); AOT "
            "modules take fields laid out by ti.field or ti.root.dense(...).place(...)"
        )
    offset = view.__array_interface__["data"][0] - tree.address
    return {"offset": int(offset), "strides": [int(s) for s in view.strides]}


def program_tree(leaf: Any) -> Any:
    return leaf._program.tree_of(leaf._ti_place_snode)
