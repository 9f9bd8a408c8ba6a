"""`taichi.lang.util`: the optional-dependency checks and dtype conversions Taichi's tests and
programs import from there.

`has_pytorch()` looks for torch without importing it (importing torch takes seconds).
tistudio has no PaddlePaddle interop and no external C++ functions, so `has_paddle()` and
`has_clangpp()` say False, and the tests that need them are skipped, not failed.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from tistudio.ir.types import PrimitiveType
from tistudio.lang.types import numpy_dtype, to_dtype


def has_pytorch() -> bool:
    """Whether PyTorch is installed (`field.to_torch()` and torch kernel arguments need it)."""
    return importlib.util.find_spec("torch") is not None


def has_paddle() -> bool:
    """False: tistudio has no PaddlePaddle interop."""
    return False


def has_clangpp() -> bool:
    """False: tistudio has no external C++ functions (`ti.extension.extfunc`)."""
    return False


def to_numpy_type(dtype: PrimitiveType) -> type:
    """The NumPy scalar type of a Taichi dtype (`ti.f32` -> `numpy.float32`, `ti.u1` ->
    `numpy.bool_`)."""
    if not isinstance(dtype, PrimitiveType):
        raise TypeError(f"{dtype!r} is not a Taichi primitive type")
    return numpy_dtype(dtype).type


def to_taichi_type(dtype: Any) -> PrimitiveType:
    """The Taichi dtype of a NumPy dtype or scalar type, a Taichi dtype, or Python `int` /
    `float` (the current program's defaults)."""
    return to_dtype(dtype)
