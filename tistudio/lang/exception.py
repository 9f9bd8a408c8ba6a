"""`taichi.lang.exception`: where Taichi programs and tests import Taichi's error classes from.

The classes themselves live where tistudio raises them (`frontend/errors.py`, and the runtime
ones in `ir/assertions.py`); this module only gives them Taichi's import path, so that
`except TaichiTypeError` catches what tistudio raises. There is one hierarchy, Taichi's:
`TaichiCompilationError` over the syntax, name, index and type errors, `TaichiRuntimeError` over
the assertion and runtime type errors.
"""

from __future__ import annotations

from tistudio.frontend.errors import (
    TaichiAssertionError,
    TaichiCompilationError,
    TaichiIndexError,
    TaichiNameError,
    TaichiRuntimeError,
    TaichiRuntimeTypeError,
    TaichiSyntaxError,
    TaichiTypeError,
)

__all__ = [
    "TaichiAssertionError",
    "TaichiCompilationError",
    "TaichiIndexError",
    "TaichiNameError",
    "TaichiRuntimeError",
    "TaichiRuntimeTypeError",
    "TaichiSyntaxError",
    "TaichiTypeError",
]
