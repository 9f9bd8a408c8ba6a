"""The CPU back end: final IR -> LLVM IR (`llir`) -> native code (llvmlite), and a parallel runtime.

`compile_kernel(kernel, config)` returns a `CpuExecutable`; `launch(args, roots)` runs it. See
`context.py` for the argument buffer every task receives and `codegen.py` for the task ABI.
"""

from tistudio.backends.llvm.backend import CpuBackend, compile_kernel, default_backend
from tistudio.backends.llvm.executable import CpuExecutable

__all__ = ["CpuBackend", "CpuExecutable", "compile_kernel", "default_backend"]
