"""Structs inside kernels (`ti.types.struct`, `@ti.dataclass`).

A struct value is a `StructValue`: one frontend value per member. A local struct variable is a
`StructVar` with one variable per member, so `p.x = 1` writes a plain variable and
`field[i] = p` copies member by member. Struct types come from `tistudio.lang.struct`; the
frontend only asks them for `members` and `methods`.
"""

from __future__ import annotations

import math
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.values import (
    BoundStructMethod,
    ExprVector,
    StructValue,
    StructVar,
    VectorVar,
)
from tistudio.ir import frontend as fe


class InferredMatrixType:
    """The member type of a vector value in `ti.Struct(v=ti.Vector([...]))`: its shape and
    element type, as `ti.types.vector` would give them."""

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self._ti_matrix_type = (shape, dtype)


class InferredStructType:
    """The type of `ti.Struct(a=..., b=...)` in a kernel: members typed by their values."""

    def __init__(self, members: dict[str, Any]) -> None:
        self.members = members
        self.methods: dict[str, Any] = {}
        self.__name__ = "Struct"

    @property
    def _ti_struct_type(self) -> InferredStructType:
        return self


def struct_literal(t: Any, loc: Any, *args: Any, **kwargs: Any) -> StructValue:
    """`ti.Struct(a=1, b=v)` or `ti.Struct({"a": 1, "b": v})` in a kernel (Taichi's forms): a
    struct value whose member types are those of the values (nested dicts are structs)."""
    entries: dict[str, Any] = {}
    for a in args:
        if not isinstance(a, dict):
            raise TaichiSyntaxError("ti.Struct() takes a dict of members or member=value", loc)
        entries.update(a)
    entries.update(kwargs)
    members = {
        n: struct_literal(t, loc, v) if isinstance(v, dict) else v for n, v in entries.items()
    }
    types = {n: _value_type(t, v, loc) for n, v in members.items()}
    return StructValue(InferredStructType(types), members)


def _value_type(t: Any, value: Any, loc: Any) -> Any:
    if isinstance(value, StructValue):
        return value.type
    if isinstance(value, ExprVector):
        return InferredMatrixType(value.shape, t.element_type(value, loc))
    return t.ops.const(value, loc).dtype


class StructsMixin:
    """Struct support of the transformer (see `transformer.Transformer`)."""

    def construct_struct(
        self, struct_type: Any, args: list[Any], kwargs: dict[str, Any], loc: Any
    ) -> StructValue:
        values = dict(zip(struct_type.members, args))
        values.update(kwargs)
        unknown = set(values) - set(struct_type.members)
        if unknown:
            raise TaichiSyntaxError(
                f"{struct_type.__name__} has no member(s) {sorted(unknown)}", loc
            )
        members = {
            n: self.member_value(t, values.get(n, 0), loc) for n, t in struct_type.members.items()
        }
        return StructValue(struct_type, members)

    def member_value(self, member_type: Any, value: Any, loc: Any) -> Any:
        """`value` shaped as a member of type `member_type` (casts, broadcast zeros)."""
        if hasattr(member_type, "_ti_struct_type"):
            if isinstance(value, StructValue):
                return value
            if isinstance(value, dict):
                return self.construct_struct(member_type._ti_struct_type, [], value, loc)
            # one value fills the first member (`line3f(1)`), as Taichi's
            return self.construct_struct(member_type._ti_struct_type, [value], {}, loc)
        if hasattr(member_type, "_ti_matrix_type"):
            if isinstance(value, ExprVector):
                return value
            return self.construct_matrix_type(member_type, [value], loc)
        return self.typed(value, self.resolve_dtype(member_type, loc), loc)

    def declare_struct(self, name: str, value: StructValue, loc: Any) -> StructVar:
        members: dict[str, Any] = {}
        for n, v in value.members.items():
            member_type = value.type.members[n]
            v = self.member_value(member_type, v, loc)
            label = f"{name}.{n}" if name else n
            if isinstance(v, StructValue):
                members[n] = self.declare_struct(label, v, loc)
            elif isinstance(v, ExprVector):
                members[n] = self.declare_matrix(label, v, loc)
            else:
                members[n] = self.new_var(self.ops.const(v, loc).dtype, label, v, loc)
        return StructVar(value.type, members)

    def read_struct_var(self, sv: StructVar, loc: Any) -> StructValue:
        return StructValue(sv.type, {n: self.read_member(m, loc) for n, m in sv.members.items()})

    def read_member(self, member: Any, loc: Any) -> Any:
        if isinstance(member, StructVar):
            return self.read_struct_var(member, loc)
        if isinstance(member, VectorVar):  # lvalue elements, so `p.v.x = 1` writes the variable
            return self.vector_var_places(member, loc)
        return fe.IdExpr(member, dtype=member.dtype, loc=loc)

    def store_struct(self, lhs: StructValue, value: Any, loc: Any) -> None:
        if not isinstance(value, StructValue):
            raise TaichiTypeError(f"cannot assign a {type(value).__name__} to a struct", loc)
        value = self.materialize(value, loc)
        for n, target in lhs.members.items():
            if n not in value.members:
                raise TaichiTypeError(f"the struct assigned has no member '{n}'", loc)
            self.store(target, value.members[n], loc)

    def struct_attribute(self, value: StructValue, name: str, loc: Any) -> Any:
        if name in value.members:
            return value.members[name]
        method = getattr(value.type, "methods", {}).get(name)
        if method is not None and not hasattr(method, "__ti_func__"):
            raise TaichiSyntaxError(
                f"method '{name}' of struct {value.type.__name__} is a plain Python function, "
                "which tistudio runs in Python scope only; decorate it with @ti.func to call it "
                "in a kernel",
                loc,
            )
        if method is not None:
            return BoundStructMethod(method, value)
        raise TaichiSyntaxError(f"struct {value.type.__name__} has no member '{name}'", loc)

    def flatten_struct(self, value: StructValue) -> list[Any]:
        out: list[Any] = []
        for v in value.members.values():
            if isinstance(v, StructValue):
                out.extend(self.flatten_struct(v))
            elif isinstance(v, ExprVector):
                out.extend(v.elements)
            else:
                out.append(v)
        return out

    def struct_scalar_types(self, struct_type: Any, loc: Any) -> list[Any]:
        """The scalar types of a struct's members, flattened in member order."""
        out: list[Any] = []
        for t in struct_type.members.values():
            if hasattr(t, "_ti_struct_type"):
                out.extend(self.struct_scalar_types(t._ti_struct_type, loc))
            elif hasattr(t, "_ti_matrix_type"):
                shape, elem = t._ti_matrix_type
                out.extend([self.resolve_dtype(elem or float, loc)] * math.prod(shape))
            else:
                out.append(self.resolve_dtype(t, loc))
        return out

    def unflatten_struct(self, struct_type: Any, scalars: list[Any], loc: Any) -> StructValue:
        """A struct value whose leaves are `scalars`, consumed in member order."""
        rest = list(scalars)
        members: dict[str, Any] = {}
        for n, t in struct_type.members.items():
            if hasattr(t, "_ti_struct_type"):
                count = len(self.struct_scalar_types(t._ti_struct_type, loc))
                members[n] = self.unflatten_struct(t._ti_struct_type, rest[:count], loc)
            elif hasattr(t, "_ti_matrix_type"):
                shape = tuple(t._ti_matrix_type[0])
                count = math.prod(shape)
                members[n] = ExprVector(rest[:count], shape)
            else:
                count = 1
                members[n] = rest[0]
            rest = rest[count:]
        return StructValue(struct_type, members)
