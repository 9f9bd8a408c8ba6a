"""Build frontend IR for a Python function without launching anything (for pass tests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tistudio.frontend.kernel_builder import ParamSpec, build_frontend_ir
from tistudio.frontend.source import parse_function
from tistudio.ir.config import CompileConfig
from tistudio.ir.stmt import Kernel
from tistudio.ir.types import PrimitiveType


def frontend_ir(
    fn: Callable[..., Any],
    params: dict[str, PrimitiveType] | None = None,
    ret: list[PrimitiveType] | None = None,
    config: CompileConfig | None = None,
) -> Kernel:
    specs = [ParamSpec(n, "scalar", t) for n, t in (params or {}).items()]
    return build_frontend_ir(
        fn, parse_function(fn), specs, {}, {}, ret or [], config or CompileConfig(), fn.__name__
    )
