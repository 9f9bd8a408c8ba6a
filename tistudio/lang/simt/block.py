"""`ti.simt.block`: workgroup-shared arrays, the workgroup barrier and thread indices.

The names Taichi 1.7.4 spells (`SharedArray`, `sync`, `thread_idx`, `global_thread_idx`). In a
kernel the frontend compiles each call by its `__ti_builtin__` name (`frontend/simt.py`); only
the GPU back end runs them. Called outside a kernel they raise, as Taichi's do.
"""

from __future__ import annotations

from tistudio.lang.ops import _builtin

SharedArray = _builtin("simt.block.SharedArray")
sync = _builtin("simt.block.sync")
thread_idx = _builtin("simt.block.thread_idx")
global_thread_idx = _builtin("simt.block.global_thread_idx")

__all__ = ["SharedArray", "global_thread_idx", "sync", "thread_idx"]
