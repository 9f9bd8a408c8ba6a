"""Data types of the IR: primitive scalars, pointers and the opaque SNode pointer `*gen`.

Types are frozen value objects, so they compare by value and can key dictionaries. They print the
way Taichi prints them (`f32`, `*f32`, `*gen`), and `TYPES_BY_NAME` parses them back.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrimitiveType:
    """A scalar type: `kind` is "int", "uint", "float" or "bool" (`u1`)."""

    name: str
    bits: int
    kind: str

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integral(self) -> bool:
        return self.kind in ("int", "uint", "bool")

    @property
    def is_signed(self) -> bool:
        return self.kind in ("int", "float")

    @property
    def is_unsigned(self) -> bool:
        return self.kind in ("uint", "bool")

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)

    @property
    def numpy_name(self) -> str:
        """The NumPy dtype name (`f32` -> `float32`, `u1` -> `bool`)."""
        if self.kind == "bool":
            return "bool"
        prefix = {"int": "int", "uint": "uint", "float": "float"}[self.kind]
        return f"{prefix}{self.bits}"


@dataclass(frozen=True)
class PointerType:
    """Address of a value of type `pointee`; `*gen` is an opaque pointer into SNode memory."""

    pointee: PrimitiveType | OpaqueType | TensorType

    def __str__(self) -> str:
        return f"*{self.pointee}"

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class TensorType:
    """A small vector or matrix of one primitive type, as a single value (`[Tensor (3) f32]`).

    Tensor values exist between the frontend and the `scalarize` pass, which splits every one of
    them into its scalar elements, so back ends only ever see scalars.
    """

    shape: tuple[int, ...]
    element: PrimitiveType

    def __str__(self) -> str:
        return f"[Tensor ({', '.join(map(str, self.shape))}) {self.element}]"

    def __repr__(self) -> str:
        return str(self)

    @property
    def num_elements(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass(frozen=True)
class OpaqueType:
    """The element type behind SNode pointers (`gen` in Taichi's printer)."""

    name: str = "gen"

    def __str__(self) -> str:
        return self.name


i8 = PrimitiveType("i8", 8, "int")
i16 = PrimitiveType("i16", 16, "int")
i32 = PrimitiveType("i32", 32, "int")
i64 = PrimitiveType("i64", 64, "int")
u1 = PrimitiveType("u1", 1, "bool")
u8 = PrimitiveType("u8", 8, "uint")
u16 = PrimitiveType("u16", 16, "uint")
u32 = PrimitiveType("u32", 32, "uint")
u64 = PrimitiveType("u64", 64, "uint")
f16 = PrimitiveType("f16", 16, "float")
f32 = PrimitiveType("f32", 32, "float")
f64 = PrimitiveType("f64", 64, "float")
gen = OpaqueType()

DataType = PrimitiveType | PointerType | OpaqueType | TensorType

# The largest count a 32-bit loop index or ndarray extent holds (both are i32, as in Taichi).
I32_MAX = 2**31 - 1

PRIMITIVE_TYPES = (i8, i16, i32, i64, u1, u8, u16, u32, u64, f16, f32, f64)
TYPES_BY_NAME: dict[str, PrimitiveType] = {t.name: t for t in PRIMITIVE_TYPES}


def parse_type(text: str) -> DataType:
    """Inverse of `str(type)`: `f32`, `*f32`, `*gen`, `[Tensor (2, 3) f32]`."""
    if text.startswith("*"):
        inner = parse_type(text[1:]) if text[1:] != "gen" else gen
        return PointerType(inner)  # type: ignore[arg-type]
    if text.startswith("[Tensor ("):
        dims, element = text[len("[Tensor (") : -1].split(") ")
        return TensorType(tuple(int(d) for d in dims.split(", ")), TYPES_BY_NAME[element])
    return TYPES_BY_NAME[text]


def element_type(t: DataType) -> DataType:
    """The scalar type inside a tensor type (a scalar type is its own element type)."""
    return t.element if isinstance(t, TensorType) else t


def signed_of(t: PrimitiveType) -> PrimitiveType:
    """The signed integer type of the same width (`u32` -> `i32`)."""
    return TYPES_BY_NAME[f"i{t.bits}"] if t.kind == "uint" else t


def unsigned_of(t: PrimitiveType) -> PrimitiveType:
    """The unsigned integer type of the same width (`i32` -> `u32`)."""
    return TYPES_BY_NAME[f"u{t.bits}"] if t.kind == "int" else t
