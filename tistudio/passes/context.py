"""What every pass receives besides the IR: the frozen config and a place for diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

from tistudio.ir.config import CompileConfig


@dataclass
class PassContext:
    """Per-compilation context. `warnings` collects (message, loc) pairs for the user."""

    config: CompileConfig = field(default_factory=CompileConfig)
    warnings: list[tuple[str, object]] = field(default_factory=list)

    @property
    def arch(self) -> str:
        return self.config.arch

    def warn(self, message: str, loc: object = None) -> None:
        self.warnings.append((message, loc))
