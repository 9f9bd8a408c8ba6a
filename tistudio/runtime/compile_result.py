"""`CompileResult`: what compiling one kernel instantiation produced, however it was made.

`Program.compile` returns one for a fresh compile and `offline_cache.lookup` for a disk-cache
hit; `lang/kernel.py` keeps it in the kernel's cache entry and the studio shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tistudio.backends.protocol import Executable
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Kernel, SourceLoc

if TYPE_CHECKING:
    from tistudio.passes.pipeline import PassRecord


@dataclass
class CompileResult:
    """What compiling one kernel instantiation produced."""

    executable: Executable
    records: list[PassRecord]
    warnings: list[tuple[str, SourceLoc | None]]
    final_ir: Kernel | None  # None when the code came from the offline cache
    frontend_ms: float = 0.0
    passes_ms: float = 0.0
    backend_ms: float = 0.0
    written_snodes: list[SNode] = field(default_factory=list)
    cache: str = "off"  # the offline cache: "off" (bypassed), "miss" or "hit"
    stage_ms: dict[str, float] = field(default_factory=dict)  # pass groups, LLVM stages
