"""`ti.simt.block` inside kernels: shared arrays, the workgroup barrier and thread indices.

`ti.simt.block.SharedArray(shape, dtype)` declares an array that the invocations of one GPU
workgroup share (WGSL `var<workgroup>`); `ti.simt.block.sync()` makes every invocation of the
workgroup wait for the others; `thread_idx()` is the invocation's index in its workgroup and
`global_thread_idx()` its index in the dispatch. `ti.loop_config(block_dim=B)` sets the
workgroup size of the next parallel loop, so that `i % B == thread_idx()` for its index `i`.

They exist only on the GPU back end. On the CPU, Taichi 1.7.4 raises a ValueError for `sync()`
and fails inside LLVM for a shared array; here every one of them raises a TaichiSyntaxError at
the user's line. They must sit inside a parallel `for` loop: a workgroup is a slice of one.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from tistudio.frontend.errors import TaichiSyntaxError, TaichiTypeError
from tistudio.frontend.operators import is_runtime
from tistudio.ir import frontend as fe
from tistudio.ir.types import PrimitiveType, i32


class SharedArrayValue:
    """What `ti.simt.block.SharedArray(...)` evaluates to in a kernel: its declaration."""

    def __init__(self, decl: fe.FrontendSharedArray) -> None:
        self.decl = decl

    def _ti_shared_subscript(self, t: Any, indices: list[Any], loc: Any) -> fe.SharedIndexExpr:
        """`a[i, j]`: the element at the row-major offset of (i, j)."""
        shape = self.decl.shape
        if len(indices) != len(shape):
            raise TaichiSyntaxError(
                f"shared array '{self.decl.name}' has {len(shape)} dimensions but was indexed "
                f"with {len(indices)}",
                loc,
            )
        flat: Any = indices[0]
        for extent, index in zip(shape[1:], indices[1:]):
            flat = t.binary_value(ast.Add, t.binary_value(ast.Mult, flat, extent, loc), index, loc)
        return fe.SharedIndexExpr(
            self.decl, t.index_expr(flat, loc), dtype=self.decl.dtype, loc=loc
        )


def _check_place(t: Any, name: str, loc: Any) -> None:
    """GPU only, and inside a parallel loop (a workgroup is a slice of one)."""
    if t.config.arch != "gpu":
        raise TaichiSyntaxError(
            f"ti.simt.block.{name} needs the GPU back end (arch=ti.gpu); the CPU has no workgroups",
            loc,
        )
    if t.runtime_nesting == 0:  # in a ti.func, loop_kinds starts afresh; the nesting does not
        raise TaichiSyntaxError(
            f"ti.simt.block.{name} must be inside a parallel for loop (the outermost loop of "
            "the kernel), whose iterations the workgroups share",
            loc,
        )


def _shape_of(shape: Any, loc: Any) -> tuple[int, ...]:
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    ok = isinstance(shape, (tuple, list)) and all(
        isinstance(n, int) and not is_runtime(n) for n in shape
    )
    if not ok or not shape or any(n <= 0 for n in shape):
        raise TaichiSyntaxError(
            "ti.simt.block.SharedArray shape must be a positive integer or a tuple of positive "
            f"integers known at compile time, but got {shape!r}",
            loc,
        )
    return tuple(shape)


def _shared_array(t: Any, loc: Any, shape: Any, dtype: Any) -> SharedArrayValue:
    _check_place(t, "SharedArray", loc)
    dims = _shape_of(shape, loc)
    if not isinstance(dtype, PrimitiveType) and not isinstance(dtype, type):
        raise TaichiTypeError(
            "ti.simt.block.SharedArray holds scalars (ti.f32, ti.i32, ...); vector and matrix "
            f"elements are not supported yet, got {dtype!r}",
            loc,
        )
    target = t.resolve_dtype(dtype, loc)
    if math.prod(dims) * target.nbytes > 16384:  # WebGPU's guaranteed maxComputeWorkgroupStorage
        raise TaichiSyntaxError(
            f"ti.simt.block.SharedArray of {math.prod(dims) * target.nbytes} bytes is more than "
            "the 16384 bytes of workgroup memory every WebGPU device offers",
            loc,
        )
    decl = fe.FrontendSharedArray(f"shared{t.next_var_id()}", dims, target, loc=loc)
    t.emit(decl)
    return SharedArrayValue(decl)


def _simt_call(kind: str, name: str) -> Callable[..., Any]:
    def impl(t: Any, loc: Any) -> Any:
        _check_place(t, name, loc)
        expr = fe.SimtExpr(kind, dtype=i32, loc=loc)
        if kind == "sync":
            t.emit(fe.FrontendExprStmt(expr, loc=loc))
            return None
        return expr

    return impl


SIMT_BUILTINS: dict[str, Callable[..., Any]] = {
    "simt.block.SharedArray": _shared_array,
    "simt.block.sync": _simt_call("sync", "sync()"),
    "simt.block.thread_idx": _simt_call("local", "thread_idx()"),
    "simt.block.global_thread_idx": _simt_call("global", "global_thread_idx()"),
}
