"""What `kernel.compile_report(*args)` returns: one instantiation's pass records and code.

Kept apart from `lang/kernel.py` (which compiles and calls kernels) because the report is
what the studio and students read: the IR after every pass, the lineage of a source line
through them (`ir/lineage.py`), and the final LLVM IR, assembly or WGSL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tistudio.frontend.source import ParsedFunction
from tistudio.ir.lineage import Lineage, lineage
from tistudio.lang.bisect import Bisection, bisect


@dataclass
class CompileReport:
    """Pass records and machine code of one instantiation (what the pass explorer shows)."""

    name: str
    signature_text: str
    result: Any
    parsed: ParsedFunction | None = field(default=None, repr=False)  # the kernel's source
    kernel: Any = field(default=None, repr=False)  # the `ti.kernel` it came from, for bisect

    @property
    def passes(self) -> list[Any]:
        return self.result.records

    def lineage(self, lineno: int) -> Lineage:
        """Per pass, the statements that came from file line `lineno` of the kernel's source:
        those the pass created, rewrote and deleted, and those it left (ir/lineage.py)."""
        source = self.parsed.source_line(lineno) if self.parsed is not None else ""
        return lineage(self.passes, lineno, source)

    def bisect(self, *args: Any) -> Bisection:
        """Run the IR after each pass in the interpreter on copies of these arguments' data
        and name the first pass whose results differ from the first runnable IR's
        (lang/bisect.py)."""
        return bisect(self.kernel, args)

    @property
    def llvm_ir(self) -> str:
        return self.result.executable.llvm_ir_optimized

    @property
    def llvm_ir_unoptimized(self) -> str:
        return self.result.executable.llvm_ir

    @property
    def assembly(self) -> str:
        return self.result.executable.assembly

    @property
    def wgsl(self) -> str:
        """The WGSL of every task (GPU programs only)."""
        return self.result.executable.wgsl
