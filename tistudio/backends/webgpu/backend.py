"""`WebGpuBackend`: compile final IR for the device, against one program's field memory."""

from __future__ import annotations

from typing import Any

from tistudio.backends.webgpu.device import GpuDevice
from tistudio.backends.webgpu.executable import GpuExecutable
from tistudio.backends.webgpu.printing import GpuPrintBuffer
from tistudio.backends.webgpu.resources import ArgsLayout
from tistudio.ir.config import CompileConfig
from tistudio.ir.statements import Print
from tistudio.ir.stmt import Kernel


class WebGpuBackend:
    """Compiles kernels of one `Program` for `device`; `memory` holds that program's trees
    (see `tistudio.runtime.gpu_memory.GpuMemory`)."""

    def __init__(self, device: GpuDevice, memory: Any) -> None:
        self.device, self.memory = device, memory
        self._prints: GpuPrintBuffer | None = None  # made for the first kernel that prints

    def compile(self, kernel: Kernel, config: CompileConfig) -> GpuExecutable:
        """Final IR of `kernel` -> a launchable `GpuExecutable` (pipelines created here)."""
        args = ArgsLayout.of(kernel)
        args.uniform = not args.fits(self.device.caps)  # too many for immediates, or none
        if self._prints is None and any(isinstance(x, Print) for x in kernel.walk()):
            self._prints = GpuPrintBuffer(self.device)
        return GpuExecutable(kernel, self.device, self.memory, args, self._prints)
