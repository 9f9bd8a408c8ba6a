"""WGSL for `ti.simt.block`: shared arrays, barriers, thread indices and the tiled loop.

A shared array becomes a module-scope `var<workgroup> name: array<T, size>` read and written
with plain (not atomic) accesses, `sync()` becomes `workgroupBarrier()`, and `thread_idx()` is
the invocation's `local_invocation_index`. Where the task updates an element atomically
(`s[0] += v`), the array is `array<atomic<T>, size>` and each access `atomicLoad`/`atomicStore`.

WGSL allows `workgroupBarrier()` only in uniform control flow, where every invocation of the
workgroup takes the same path. The usual grid-stride loop `for (k = gid; k < n; k += stride)`
is not: with `n` not a multiple of the stride, some invocations run one iteration fewer. So a
task that holds a barrier or a shared array is a *tiled* loop instead: workgroup `w` runs tile
`t = w, w + groups, ...` and invocation `l` takes index `t * B + l`, so that every invocation of
a workgroup runs the same tiles, and `i % B == thread_idx()` as in Taichi's CUDA back end.

A range of whole tiles (a compile-time multiple of `B`) runs as it is. Otherwise the last tile
is partial, and its invocations past the end must still reach every barrier: they run the
body too, with `ti_active` false, and each statement that writes memory or reports (a global
store, an atomic, a print, an assert) runs under `if (ti_active)`. Their loads read whatever
index they compute (WGSL clamps an access out of a buffer into it), and their values reach no
memory. Barriers and shared-array accesses run unguarded, so the extra invocations take part
in staging a tile: what they stage is what their code computes (a kernel that stages by tile,
`s[t] = x[k * B + t]` with its own bound check, is right for any range). The value of a guarded
atomic cannot be used after its `if`, so such a task is refused. Taichi's CUDA back end instead
wraps the whole body in `if (i < end)`, which leaves the barriers of a partial tile undefined.
"""

from __future__ import annotations

from typing import Any

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.ir import statements as s
from tistudio.ir.ops import AtomicOpType, TaskType
from tistudio.ir.stmt import Stmt, pointee, walk

BACKEND = "gpu"
MAX_BLOCK_DIM = 256  # WebGPU's guaranteed maxComputeInvocationsPerWorkgroup
ATOMIC_FUNCTIONS = {  # WGSL's atomics on i32/u32 (lower_simt refuses the rest)
    AtomicOpType.add: "atomicAdd",
    AtomicOpType.sub: "atomicSub",
    AtomicOpType.max: "atomicMax",
    AtomicOpType.min: "atomicMin",
    AtomicOpType.bit_and: "atomicAnd",
    AtomicOpType.bit_or: "atomicOr",
    AtomicOpType.bit_xor: "atomicXor",
}


def is_tiled(task: s.Offloaded) -> bool:
    """A range_for task whose invocations share memory or wait for each other."""
    return any(isinstance(x, (s.BlockBarrier, s.SharedArray)) for x in walk(task.body))


def block_dim(task: s.Offloaded) -> int:
    """`ti.loop_config(block_dim=B)`'s B (0 if unset), checked against WebGPU's limit."""
    if task.block_dim > MAX_BLOCK_DIM or task.block_dim < 0:
        raise UnsupportedOnBackend(
            task,
            BACKEND,
            f"ti.loop_config(block_dim={task.block_dim}) is more invocations per workgroup "
            f"than WebGPU guarantees ({MAX_BLOCK_DIM})",
        )
    return task.block_dim


def guard_of(task: s.Offloaded, size: int) -> str | None:
    """None for a range of whole tiles of `size`; else the name of the flag that tells the
    invocations of the last, partial tile which of them hold an index of the range."""
    n = task.end - task.begin
    if task.const_begin and task.const_end and n >= 0 and n % size == 0:
        return None
    sparse = next((x for x in walk(task.body) if isinstance(x, _UNGUARDABLE)), None)
    if sparse is not None:  # activations and their values: no `if` around them
        raise UnsupportedOnBackend(
            sparse,
            BACKEND,
            "a sparse operation in a ti.simt.block loop whose range is not a compile-time "
            "multiple of its block_dim",
        )
    return "ti_active"


def tile_loop(e: Any, task: s.Offloaded, let_index: str, body: list[str]) -> None:
    """The tiled loop around `body` (see the module docstring); `let_index` reads `k`."""
    size = e.caps.workgroup_size
    guard = guard_of(task, size)
    if guard is None:
        tiles = f"{(task.end - task.begin) // size}u"
    else:
        e.line(f"let tiles: u32 = count / {size}u + select(0u, 1u, count % {size}u != 0u);")
        tiles = "tiles"
    e.line(f"for (var tile: u32 = wid.x; tile < {tiles}; tile = tile + groups.x) {{")
    e.line(f"    let k: u32 = tile * {size}u + lid;")
    if guard is not None:
        e.line(f"    let {guard}: bool = k < count;")
    e.line(f"    {let_index}")
    e.body.extend(body)
    e.line("}")


def emit_guarded(e: Any, stmt: Stmt, method: Any) -> None:
    """`stmt`, which writes memory or reports, only where the invocation holds an index."""
    if isinstance(stmt, s.AtomicOp) and e.uses.get(stmt, 0):
        raise UnsupportedOnBackend(
            stmt,
            BACKEND,
            "the value of an atomic in a ti.simt.block loop whose range is not a compile-time "
            "multiple of its block_dim (the last tile's extra invocations skip the atomic)",
        )
    e.line(f"if ({e.guard}) {{")
    with e.indent():
        method(stmt)
    e.line("}")


GUARDED = (s.GlobalStore, s.AtomicOp, s.AtomicCAS, s.Print, s.Assert)
_UNGUARDABLE = (s.SNodeOp, s.SNodeCellOp, s.PoolCell)


class SimtEmitter:
    """The `emit_` methods of `ir/simt.py`'s statements (part of `emitter.TaskEmitter`)."""

    def emit_SharedArray(self, stmt: s.SharedArray) -> None:
        name = f"shared_{self.name_of(stmt)}"
        element = self.reg(stmt, pointee(stmt))
        if any(isinstance(x, s.SharedAtomic) and x.array is stmt for x in walk(self.task.body)):
            self.atomic_shared.add(stmt)  # every access to it is then atomic
            element = f"atomic<{element}>"
        self.workgroup_vars.append(f"var<workgroup> {name}: array<{element}, {stmt.size}>;")
        self.locals[stmt] = name

    def emit_SharedLoad(self, stmt: s.SharedLoad) -> None:
        element = self._element(stmt.array, stmt.index)
        atomic = stmt.array in self.atomic_shared
        self.let(stmt, f"atomicLoad(&{element})" if atomic else element)

    def emit_SharedStore(self, stmt: s.SharedStore) -> None:
        element, value = self._element(stmt.array, stmt.index), self.value(stmt.value)
        if stmt.array in self.atomic_shared:
            self.line(f"atomicStore(&{element}, {value});")
        else:
            self.line(f"{element} = {value};")

    def emit_SharedAtomic(self, stmt: s.SharedAtomic) -> None:
        function = ATOMIC_FUNCTIONS[stmt.op]
        element = self._element(stmt.array, stmt.index)
        self.let(stmt, f"{function}(&{element}, {self.value(stmt.val)})")

    def emit_BlockBarrier(self, stmt: s.BlockBarrier) -> None:
        self.line("workgroupBarrier();")

    def emit_ThreadIdx(self, stmt: s.ThreadIdx) -> None:
        if self.task.task_type is not TaskType.range_for:
            raise UnsupportedOnBackend(stmt, BACKEND, "only inside a parallel range loop")
        self.let(stmt, "i32(lid)" if stmt.kind == "local" else "i32(gid.x)")

    def _element(self, array: Stmt, index: Stmt) -> str:
        return f"{self.locals[array]}[{self.value(index)}]"
