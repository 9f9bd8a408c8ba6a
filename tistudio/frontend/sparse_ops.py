"""Taichi's sparse-SNode functions inside kernels: `ti.activate`, `ti.deactivate`,
`ti.is_active`, `ti.append`, `ti.length`, `ti.rescale_index`, `ti.no_activate`, and the
`x[i].append(v)` / `x[i].length()` of a field under a `dynamic` node.

Each becomes a frontend `SNodeOpExpr` on the node's cell (indices in the node's own index
space, as Taichi's: `ti.is_active(ptr, [1])` is cell 1 of `ptr`); `lower_ast` turns it into an
`SNodeOp` statement and `lower_access` walks down to the cell (docs/sparse-design.md).
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.values import ExprVector, StructValue
from tistudio.ir import frontend as fe
from tistudio.ir.ops import BinaryOpType, SNodeOpType
from tistudio.ir.snode import SNode
from tistudio.ir.types import i32, u64


def node_of(value: Any, name: str, loc: Any) -> SNode:
    """The SNode a user handle stands for (`ti.root.pointer(...)`, `x.parent()`)."""
    snode = getattr(value, "ptr", None)
    if not isinstance(snode, SNode):
        raise TaichiSyntaxError(
            f"ti.{name}() needs an SNode (such as ti.root.pointer(...) or x.parent()) as its "
            f"first argument, got {type(value).__name__}",
            loc,
        )
    return snode


def _index_list(t: Any, loc: Any, indices: Any) -> list[fe.Expr]:
    if isinstance(indices, ExprVector):
        items = list(indices.elements)
    elif isinstance(indices, (list, tuple)):
        items = list(indices)
    else:
        items = [indices]
    return [t.index_expr(i, loc) for i in items]


def cell_indices(
    t: Any, loc: Any, name: str, snode: SNode, indices: Any, own_axis_optional: bool = False
) -> list[fe.Expr]:
    """`indices` of a cell of `snode`, one per axis of its index space. For append and length
    on a dynamic node the node's own axis may be left out (it is then 0)."""
    items = _index_list(t, loc, indices)
    if own_axis_optional and len(items) == snode.num_axes - len(snode.axes):
        for position in sorted(snode.index_positions(snode)):
            items.insert(position, fe.ConstExpr(0, dtype=i32, loc=loc))
    if len(items) != snode.num_axes:
        raise TaichiSyntaxError(
            f"ti.{name}() on {snode.ref()} needs {snode.num_axes} index(es), got {len(items)}",
            loc,
        )
    return items


def _op(op: SNodeOpType) -> Any:
    dtype = i32 if op is SNodeOpType.is_active else None

    def impl(t: Any, loc: Any, node: Any, indices: Any) -> Any:
        snode = node_of(node, op.value, loc)
        dynamic = snode.type == "dynamic"  # Taichi: the list's parent cell, its index too
        items = cell_indices(t, loc, op.value, snode, indices, own_axis_optional=dynamic)
        if not snode.is_sparse:  # a dense cell is always active
            return fe.ConstExpr(1, dtype=i32, loc=loc) if dtype else None
        expr = fe.SNodeOpExpr(op, snode, items, dtype=dtype, loc=loc)
        if dtype is None:
            t.emit(fe.FrontendExprStmt(expr, loc=loc))
            return None
        return expr

    return impl


def _dynamic(t: Any, loc: Any, name: str, node: Any) -> SNode:
    snode = node_of(node, name, loc)
    if snode.type != "dynamic":
        raise TaichiSyntaxError(f"ti.{name}() needs a dynamic SNode, got {snode.ref()}", loc)
    return snode


def length(t: Any, loc: Any, node: Any, indices: Any = ()) -> fe.Expr:
    snode = _dynamic(t, loc, "length", node)
    items = cell_indices(t, loc, "length", snode, indices, own_axis_optional=True)
    return fe.SNodeOpExpr(SNodeOpType.length, snode, items, dtype=i32, loc=loc)


def append(t: Any, loc: Any, node: Any, indices: Any, value: Any, field: Any = None) -> fe.Expr:
    """Take the next index of the list (an atomic add on its length), store `value` there
    (in `field`, or in the fields placed under the node: a vector's elements in order), give
    the index."""
    snode = _dynamic(t, loc, "append", node)
    items = cell_indices(t, loc, "append", snode, indices, own_axis_optional=True)
    op = fe.SNodeOpExpr(SNodeOpType.append, snode, items, dtype=i32, loc=loc)
    var = t.new_var(i32, "", op, loc)
    at = fe.IdExpr(var, dtype=i32, loc=loc)
    (position,) = snode.index_positions(snode)
    element = [*items[:position], at, *items[position + 1 :]]
    places = [c for c in snode.children if c.type == "place"]
    values = value.elements if isinstance(value, ExprVector) else [value]
    if field is None and len(values) != len(places):
        raise TaichiSyntaxError(
            f"ti.append(): {len(values)} value(s) for the {len(places)} field(s) under "
            f"{snode.ref()}",
            loc,
        )
    # A full list keeps its cells: the index past its end is given, the value dropped (Taichi).
    room = fe.FrontendIf(t.ops.binary(BinaryOpType.cmp_lt, at, snode.num_cells, loc), loc=loc)
    t.blocks.append(room.true_block)
    try:
        if field is not None:  # x[i].append(v): v as x's element type (a vector, a struct)
            t.store(field._ti_subscript(element, loc), value, loc)
        for place, v in zip(places, values) if field is None else ():
            t.store(fe.FieldIndexExpr(place, element, dtype=place.dtype, loc=loc), v, loc)
    finally:
        t.blocks.pop()
    t.emit(room)
    return at


def rescale_factors(from_node: SNode, to_node: SNode) -> list[int]:
    """Per index of `from_node`: the product of the sizes of its path's levels below
    `to_node` along that index's axis (`ti.rescale_index` divides by it)."""
    below = from_node.path()[len(to_node.path()) :]
    factors = []
    for axis in from_node.physical_axes:
        factors.append(math.prod(n.sizes[n.axes.index(axis)] for n in below if axis in n.axes))
    return factors


def rescale_index(t: Any, loc: Any, a: Any, b: Any, indices: Any) -> ExprVector:
    """Indices of field/SNode `a`'s index space in `b`'s, as Taichi's `ti.rescale_index`."""
    from_node = a.ptr if hasattr(a, "ptr") else a._ti_place_snode
    to_node = b.ptr if hasattr(b, "ptr") else b._ti_place_snode
    items = _index_list(t, loc, indices)
    out = []
    for item, scale in zip(items, rescale_factors(from_node, to_node)):
        floordiv = BinaryOpType.floordiv
        out.append(t.ops.binary(floordiv, item, scale, loc) if scale != 1 else item)
    return ExprVector(out)


def no_activate(t: Any, loc: Any, *nodes: Any) -> None:
    """Writes in this kernel do not activate cells of these nodes (Taichi's hint)."""
    for node in nodes:
        snode = node.ptr if hasattr(node, "ptr") else node._ti_place_snode
        t.no_activate.add(snode)
        for child in snode.path()[1:]:  # the path down to a field's place
            if child.is_sparse:
                t.no_activate.add(child)


class DynamicRow:
    """`x[i]` of a field under a dynamic node, one index short: `.append(v)`, `.length()`."""

    def __init__(self, node: SNode, indices: list[fe.Expr], loc: Any, field: Any) -> None:
        self.node, self.indices, self.loc, self.field = node, indices, loc, field

    def of(self, field: Any) -> DynamicRow:
        """The same row of `field` (a vector or struct field whose components gave this)."""
        return DynamicRow(self.node, self.indices, self.loc, field)

    @property
    def append(self) -> Any:
        node = _Handle(self.node)
        return _Bound(lambda t, loc, v: append(t, loc, node, self.indices, v, self.field))

    @property
    def length(self) -> Any:
        return _Bound(lambda t, loc: length(t, loc, _Handle(self.node), self.indices))


def first_row(value: Any) -> DynamicRow | None:
    """The `DynamicRow` a vector or struct field's components gave for `x[i]` (one index
    short of a field under a dynamic node), if they did."""
    while isinstance(value, (ExprVector, StructValue)):
        value = value.elements[0] if isinstance(value, ExprVector) else [*value.members.values()][0]
    return value if isinstance(value, DynamicRow) else None


class _Handle:
    def __init__(self, ptr: SNode) -> None:
        self.ptr = ptr


class _Bound:
    """A method of a frontend value: the transformer calls `_ti_frontend_call`."""

    def __init__(self, fn: Any) -> None:
        self._ti_frontend_call = fn


def get_addr(t: Any, loc: Any, field: Any, indices: Any) -> fe.Expr:
    """The address of element `indices` of `field`, a u64 (Taichi's `ti.get_addr`)."""
    leaves = field._ti_leaves() if hasattr(field, "_ti_leaves") else []
    if len(leaves) != 1 or leaves[0] is not field:
        raise TaichiSyntaxError("ti.get_addr() needs a scalar field", loc)
    snode = field._ti_place_snode
    items = [
        t.ops.binary(BinaryOpType.sub, i, o, loc) if o else i
        for i, o in zip(_index_list(t, loc, indices), snode.index_offsets or [0] * 8)
    ]
    if len(items) != snode.num_axes:
        raise TaichiSyntaxError(f"ti.get_addr() on a {snode.num_axes}-D field", loc)
    return fe.SNodeOpExpr(SNodeOpType.get_addr, snode, items, dtype=u64, loc=loc)


SPARSE_BUILTINS = {
    "activate": _op(SNodeOpType.activate),
    "deactivate": _op(SNodeOpType.deactivate),
    "is_active": _op(SNodeOpType.is_active),
    "append": append,
    "length": length,
    "rescale_index": rescale_index,
    "no_activate": no_activate,
    "get_addr": get_addr,
}
