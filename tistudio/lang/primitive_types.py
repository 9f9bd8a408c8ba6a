"""`ti.types.primitive_types`: Taichi's lists of the scalar types, which tests parametrize over
(`@pytest.mark.parametrize("dt", ti.types.primitive_types.all_types)`).

The lists hold what Taichi 1.7.4's hold, in its order, Python's `float`, `int` and `bool`
included (they stand for the current program's default types). Taichi has no lists of signed
or unsigned types; `ti.types.is_signed` answers that per type.
"""

from __future__ import annotations

from tistudio.ir.types import f16, f32, f64, i8, i16, i32, i64, u1, u8, u16, u32, u64

float16, float32, float64 = f16, f32, f64
int8, int16, int32, int64 = i8, i16, i32, i64
uint1, uint8, uint16, uint32, uint64 = u1, u8, u16, u32, u64

real_types = [f16, f32, f64, float]
integer_types = [i8, i16, i32, i64, u1, u8, u16, u32, u64, int, bool]
all_types = real_types + integer_types

__all__ = [
    "all_types",
    "f16",
    "f32",
    "f64",
    "float16",
    "float32",
    "float64",
    "i8",
    "i16",
    "i32",
    "i64",
    "int8",
    "int16",
    "int32",
    "int64",
    "integer_types",
    "real_types",
    "u1",
    "u8",
    "u16",
    "u32",
    "u64",
    "uint1",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
