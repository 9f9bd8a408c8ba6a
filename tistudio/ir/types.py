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

    pointee: PrimitiveType | OpaqueType

    def __str__(self) -> str:
        return f"*{self.pointee}"

    def __repr__(self) -> str:
        return str(self)


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

DataType = PrimitiveType | PointerType | OpaqueType

PRIMITIVE_TYPES = (i8, i16, i32, i64, u1, u8, u16, u32, u64, f16, f32, f64)
TYPES_BY_NAME: dict[str, PrimitiveType] = {t.name: t for t in PRIMITIVE_TYPES}


def parse_type(text: str) -> DataType:
    """Inverse of `str(type)`: `f32`, `*f32`, `*gen`."""
    if text.startswith("*"):
        inner = text[1:]
        return PointerType(gen if inner == "gen" else TYPES_BY_NAME[inner])
    return TYPES_BY_NAME[text]


def signed_of(t: PrimitiveType) -> PrimitiveType:
    """The signed integer type of the same width (`u32` -> `i32`)."""
    return TYPES_BY_NAME[f"i{t.bits}"] if t.kind == "uint" else t


def unsigned_of(t: PrimitiveType) -> PrimitiveType:
    """The unsigned integer type of the same width (`i32` -> `u32`)."""
    return TYPES_BY_NAME[f"u{t.bits}"] if t.kind == "int" else t
