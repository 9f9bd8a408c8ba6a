"""Structs: `ti.types.struct(...)`, `@ti.dataclass`, `ti.Struct.field`, struct fields.

A struct type lists named members (scalars, vectors, matrices, other structs). A struct field
is one sub-field per member, placed together under one dense SNode, so `x.member` is an ordinary
field and `x[i]` in a kernel is a struct value whose members are element expressions. Methods of
a `@ti.dataclass` are `ti.func`s that receive the struct as `self`.
"""

from __future__ import annotations

import inspect
import numbers
from types import MethodType
from typing import Any

import numpy as np

from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.frontend.sparse_ops import first_row
from tistudio.frontend.values import StructValue
from tistudio.ir.snode import SNode
from tistudio.lang.kernel import Func
from tistudio.lang.types import as_shape, to_dtype


class StructType:
    """`ti.types.struct(x=ti.math.vec3, m=ti.f32)`; calling it makes a struct value."""

    def __init__(
        self, members: dict[str, Any], methods: dict[str, Func] | None = None, name: str = "Struct"
    ) -> None:
        self.members = dict(members)
        self.methods = dict(methods or {})
        self.__name__ = name

    @property
    def _ti_struct_type(self) -> StructType:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Struct:
        values = dict(zip(self.members, args))
        values.update(kwargs)
        return Struct(self, {n: _member(t, values.get(n, 0)) for n, t in self.members.items()})

    def field(self, shape: Any = None, name: str = "", **flags: Any) -> StructField:
        return struct_field(self, shape, name, **flags)

    def __repr__(self) -> str:
        return f"<ti.types.struct {self.__name__}({', '.join(self.members)})>"


def _member(member_type: Any, value: Any) -> Any:
    """A struct or vector member given one number (or nothing, 0) is that type made from it:
    `line3f(1)` fills the first member, `vec3f(1)` every element, as Taichi's."""
    if isinstance(member_type, StructType) and isinstance(value, dict):
        return member_type(**value)
    if isinstance(member_type, StructType) and not isinstance(value, Struct):
        return member_type(value)
    if hasattr(member_type, "_ti_matrix_type") and not isinstance(value, (dict, Struct)):
        return member_type(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):  # implicit cast
        dtype = to_dtype(member_type)
        if dtype.is_integral:
            return int(value)
        if dtype.is_float:
            return float(value)
    return value


class Struct:
    """A struct value in Python scope: attribute access to its members. Made as Taichi's,
    `ti.Struct({"a": 1, "b": v})` or `ti.Struct(a=1, b=v)`; in a kernel the same call builds a
    struct value (`frontend/structs.py`, `struct_literal`)."""

    __ti_builtin__ = "Struct"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and isinstance(args[0], StructType):  # a typed value: (type, {member: value})
            struct_type, values = args
        else:
            struct_type, values = _literal(args, kwargs)
        object.__setattr__(self, "_type", struct_type)
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        method = object.__getattribute__(self, "_type").methods.get(name)
        if method is not None:  # a @ti.dataclass method, with this value as `self`
            return MethodType(method, self)
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._values[name] = value
        write_back = self.__dict__.get("_write_back")
        if write_back is not None:  # an element of a struct field: write it through
            write_back(name, value)

    def to_dict(self) -> dict[str, Any]:
        return {k: v.to_dict() if isinstance(v, Struct) else v for k, v in self._values.items()}

    def __repr__(self) -> str:
        return f"{self._type.__name__}({self._values})"

    @staticmethod
    def field(
        members: dict[str, Any], shape: Any = None, name: str = "", **flags: Any
    ) -> StructField:
        """`ti.Struct.field({"x": ti.math.vec3, "m": ti.f32}, shape=8)`."""
        return struct_field(StructType(members), shape, name, **flags)


class StructField:
    """A field of structs: one sub-field per member, reachable as `field.member`."""

    def __init__(self, struct_type: StructType, members: dict[str, Any], name: str = "") -> None:
        self._type = struct_type
        self._members = members
        self._name = name

    def __getattr__(self, name: str) -> Any:
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        raise AttributeError(name)

    @property
    def _ti_place_snode(self) -> SNode:
        return _leaves(self)[0]._ti_place_snode

    def _ti_subscript(self, indices: list[Any], loc: Any) -> StructValue:
        value = StructValue(
            self._type, {n: m._ti_subscript(indices, loc) for n, m in self._members.items()}
        )
        row = first_row(value)  # x[i] under a dynamic node: x[i].append(v), x[i].length()
        return row.of(self) if row is not None else value

    @property
    def shape(self) -> tuple[int, ...]:
        return _leaves(self)[0].shape

    @property
    def snode(self) -> Any:
        from tistudio.lang.snode import SNodeHandle

        return SNodeHandle(self._ti_place_snode)

    def parent(self, n: int = 1) -> Any:
        """The SNode `n` levels above this field's (Taichi's `x.parent()`)."""
        return self.snode.parent(n)

    @property
    def offset(self) -> tuple[int, ...]:
        return _leaves(self)[0].offset

    @property
    def dtype(self) -> StructType:
        """The struct type of an element (Taichi's StructField.dtype)."""
        return self._type

    @property
    def keys(self) -> list[str]:
        return list(self._members)

    def _ti_leaves(self) -> list[Any]:
        return _leaves(self)

    def to_numpy(self) -> dict[str, Any]:
        return {n: m.to_numpy() for n, m in self._members.items()}

    def from_numpy(self, values: dict[str, Any]) -> None:
        for n, v in values.items():
            self._members[n].from_numpy(v)

    def to_torch(self, device: Any = None) -> dict[str, Any]:
        """One tensor per member (a nested struct gives a nested dict), as Taichi's."""
        return {n: m.to_torch(device=device) for n, m in self._members.items()}

    def from_torch(self, tensors: dict[str, Any]) -> None:
        """Copy in from a dict of tensors keyed like `keys()` (members left out are kept)."""
        for n, t in tensors.items():
            self._member(n).from_torch(t)

    def _member(self, name: str) -> Any:
        if name not in self._members:
            raise KeyError(f"struct field has no member {name!r}; members: {list(self._members)}")
        return self._members[name]

    def fill(self, value: Any) -> None:
        for m in self._members.values():
            m.fill(value)

    def __getitem__(self, key: Any) -> Struct:
        element = Struct(self._type, {n: m[key] for n, m in self._members.items()})
        object.__setattr__(
            element, "_write_back", lambda name, value: self._members[name].__setitem__(key, value)
        )
        return element

    def __setitem__(self, key: Any, value: Any) -> None:
        items = value.to_dict() if isinstance(value, Struct) else dict(value)
        for n, v in items.items():
            self._members[n][key] = v


def _leaves(field: Any) -> list[Any]:
    """Scalar fields under a (vector or struct) field, in placement order."""
    if isinstance(field, StructField):
        return [leaf for m in field._members.values() for leaf in _leaves(m)]
    return list(getattr(field, "components", [field]))


def _member_field(dtype: Any, name: str) -> Any:
    from tistudio.lang.field import Field
    from tistudio.lang.matrix_field import matrix_field

    if isinstance(dtype, StructType):
        return struct_field(dtype, None, name)
    if hasattr(dtype, "_ti_matrix_type"):
        shape, elem = dtype._ti_matrix_type
        return matrix_field(tuple(shape), elem or float, None, name)
    return Field(to_dtype(dtype), name)


def _literal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[StructType, dict]:
    """The type and members of `ti.Struct({...})` / `ti.Struct(a=...)`: lists become
    matrices, dicts structs, and each member's type is its value's."""
    from tistudio.lang.matrix import Matrix

    if len(args) == 1 and not kwargs and isinstance(args[0], dict):
        entries = dict(args[0])
    elif not args:
        entries = dict(kwargs)
    else:
        raise TaichiSyntaxError(
            "Custom structs need to be initialized using either dictionary or keyword arguments"
        )
    values: dict[str, Any] = {}
    types: dict[str, Any] = {}
    for n, v in entries.items():
        if isinstance(v, (list, tuple)):
            v = Matrix(v)
        if isinstance(v, dict):
            v = Struct(v)
        values[n] = v
        types[n] = _type_of(v)
    return StructType(types), values


def _type_of(value: Any) -> Any:
    from tistudio.lang.matrix import Matrix, MatrixType

    if isinstance(value, Struct):
        return value._type
    if isinstance(value, Matrix):
        kind = float if value.entries.dtype.kind == "f" else int
        return MatrixType(tuple(value.entries.shape), kind)
    return float if isinstance(value, float) else int


def struct_field(
    struct_type: StructType, shape: Any = None, name: str = "", offset: Any = None, **flags: Any
) -> StructField:
    """A field of structs; `needs_grad`/`needs_dual` give every member `.grad`/`.dual`;
    `offset` shifts the indices of every member."""
    from tistudio.lang.field import check_offset, place_companions

    offset = check_offset(shape, offset, "shape cannot be None when offset is being set")
    members = {
        n: _member_field(t, f"{name}.{n}" if name else n) for n, t in struct_type.members.items()
    }
    field = StructField(struct_type, members, name)
    if shape is not None:
        from tistudio.lang.snode import Axis, root

        shape = as_shape(shape)
        root.dense(Axis(*range(len(shape))), shape).place(*_leaves(field), offset=offset)
        place_companions(_leaves(field), shape, flags, offset)
    return field


def struct(**members: Any) -> StructType:
    """`ti.types.struct(a=ti.f32, b=ti.math.vec3)`."""
    return StructType(members)


def dataclass(cls: type) -> StructType:
    """`@ti.dataclass`: the class's annotations are the members, its `ti.func` functions the
    methods."""
    import sys

    module_globals = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    members = {
        n: eval(t, dict(module_globals)) if isinstance(t, str) else t  # noqa: S307
        for n, t in cls.__dict__.get("__annotations__", {}).items()
    }
    for n in members:
        if hasattr(cls, n):
            raise TaichiSyntaxError(
                f"@ti.dataclass {cls.__name__}: member '{n}' has a default value "
                f"({getattr(cls, n)!r}); struct members take none, so pass every member when "
                "you make a value: Default value in @dataclass is not supported."
            )
    return StructType(members, _methods(cls), cls.__name__)


def _methods(cls: type) -> dict[str, Any]:
    """As Taichi: every callable attribute whose name does not start with '__' is a method,
    its `ti.func`s (callable in kernels) and plain Python functions (callable on Python-scope
    values) alike."""
    methods = {}
    for name in dir(cls):
        if name.startswith("__"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, Func):  # the Func itself, not bound to the class
            methods[name] = raw
        elif callable(getattr(cls, name)):
            methods[name] = getattr(cls, name)
    return methods


def leaf_types(struct_type: StructType) -> list[tuple[str, Any]]:
    """(dotted member name, scalar or vector type) of every leaf member, in order."""
    out: list[tuple[str, Any]] = []
    for n, t in struct_type.members.items():
        if isinstance(t, StructType):
            out.extend((f"{n}.{sub}", st) for sub, st in leaf_types(t))
        else:
            out.append((n, t))
    return out


def pack_struct(struct_type: StructType, values: list[Any]) -> Struct:
    """A `Struct` from its leaves' scalar values, flat in member order (a kernel's return)."""
    from tistudio.lang.matrix import Matrix

    members: dict[str, Any] = {}
    pos = 0
    for n, t in struct_type.members.items():
        if isinstance(t, StructType):
            count = _scalar_count(t)
            members[n] = pack_struct(t, values[pos : pos + count])
        elif hasattr(t, "_ti_matrix_type"):
            shape, elem = t._ti_matrix_type
            count = int(np.prod(shape))
            data = np.array(values[pos : pos + count]).reshape(shape)
            members[n] = Matrix(data, to_dtype(elem or float))
        else:
            count = 1
            members[n] = values[pos]
        pos += count
    return Struct(struct_type, members)


def _scalar_count(struct_type: StructType) -> int:
    total = 0
    for _, t in leaf_types(struct_type):
        total += int(np.prod(t._ti_matrix_type[0])) if hasattr(t, "_ti_matrix_type") else 1
    return total
