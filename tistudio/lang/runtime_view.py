"""`taichi.lang.impl.get_runtime()`: the few attributes of Taichi's runtime object that Taichi's
tests and programs read or set, over tistudio's current `Program`.

Taichi's runtime object is internal and large; tistudio reproduces what its tests use to read
the configuration (`default_fp`, `default_ip`, `prog.config().arch`), change the default types
(`get_runtime().default_ip = ti.u64`), count compiled kernels (`get_num_compiled_functions()`)
and allocate pending fields (`materialize()`). Anything else is an AttributeError, not a
stand-in.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tistudio.ir.config import CompileConfig
from tistudio.ir.types import PrimitiveType
from tistudio.lang.types import to_dtype


class ProgramView:
    """`get_runtime().prog`: Taichi's program handle; `config()` is the active configuration."""

    def __init__(self, program: Any) -> None:
        self._program = program

    def config(self) -> CompileConfig:
        return self._program.config


class RuntimeView:
    """`get_runtime()`: the current program's default types, its config and `materialize`."""

    def __init__(self, program: Any) -> None:
        self._program = program

    @property
    def prog(self) -> ProgramView:
        return ProgramView(self._program)

    @property
    def default_fp(self) -> PrimitiveType:
        return self._program.config.default_fp

    @default_fp.setter
    def default_fp(self, dtype: Any) -> None:
        self._program.config = replace(self._program.config, default_fp=to_dtype(dtype))

    @property
    def default_ip(self) -> PrimitiveType:
        return self._program.config.default_ip

    @default_ip.setter
    def default_ip(self, dtype: Any) -> None:
        self._program.config = replace(self._program.config, default_ip=to_dtype(dtype))

    def get_num_compiled_functions(self) -> int:
        """How many kernel instances the program has compiled: one per kernel and template
        key (a new field, dtype or ndarray rank), not per call."""
        return self._program.num_compiled

    def materialize(self) -> None:
        """Allocate the fields declared since the last allocation (Taichi does it before a
        kernel launch or a field access, as tistudio does; this makes it happen now)."""
        self._program.materialize()
