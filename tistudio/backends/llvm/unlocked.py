"""The optimiser thread's two long LLVM calls, made without llvmlite's process-wide lock.

llvmlite wraps every call into LLVM in one global lock (`llvmlite.binding.ffi.lib._lock`). The
optimiser thread (`tiering.py`) spends ~30-150 ms per kernel in two calls, the O3 pass pipeline
and the code generator; while it held the lock, the user's thread could not even parse its next
kernel: the second kernel of a process waited 12-15 ms of its ~45 ms first call for the first
kernel's O3 (`benchmarks/cases/compile_next.py`).

LLVM itself needs no lock between threads that share no LLVMContext, module or TargetMachine,
and the optimiser has its own context and TargetMachine (`OptimiserThreadState`). So these two
calls, and only these, go to the ctypes function under llvmlite's wrapper. Nothing else of the
optimiser skips the lock: an earlier attempt (9941373, reverted in 5b38b14) skipped it for every
call of that thread, including destructors that Python's garbage collector happened to run there
on objects of the global context. During one of these calls the thread runs no Python at all
(ctypes has released the GIL and LLVM calls nothing back), so no such destructor can run inside.

`CALL_LOCK` is held around each call, and a fork takes it first, so that a child is never
copied from a parent in the middle of one (`Optimiser._before_fork` waits for llvmlite's lock
the same way). One lock for all optimisers: a per-optimiser fork handler taking this one
process-wide lock deadlocked on the second optimiser.
"""

from __future__ import annotations

import ctypes
import os
import threading

import llvmlite.binding as llvm
from llvmlite.binding import ffi

CALL_LOCK = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=CALL_LOCK.acquire,
        after_in_parent=CALL_LOCK.release,
        after_in_child=CALL_LOCK.release,
    )


def _unwrapped(name: str) -> ctypes._CFuncPtr:
    """llvmlite's ctypes function `name` without its lock-taking wrapper (argtypes and restype
    are the ones llvmlite set on it)."""
    return getattr(ffi.lib, name)._cfn


def run_module_passes(
    passes: llvm.ModulePassManager, module: llvm.ModuleRef, builder: llvm.PassBuilder
) -> None:
    """`passes.run(module, builder)`, without llvmlite's lock."""
    run = _unwrapped("LLVMPY_RunNewModulePassManager")
    with CALL_LOCK:
        run(passes, module, builder)


def emit_object(machine: llvm.TargetMachine, module: llvm.ModuleRef) -> bytes:
    """`machine.emit_object(module)`, without llvmlite's lock for the code generation."""
    emit = _unwrapped("LLVMPY_TargetMachineEmitToMemory")
    with ffi.OutputString() as error:
        with CALL_LOCK:
            buffer = emit(machine, module, 1, error)
        if not buffer:
            raise RuntimeError(str(error))
    try:
        start = ffi.lib.LLVMPY_GetBufferStart(buffer)
        return ctypes.string_at(start, ffi.lib.LLVMPY_GetBufferSize(buffer))
    finally:
        ffi.lib.LLVMPY_DisposeMemoryBuffer(buffer)
