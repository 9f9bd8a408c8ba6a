"""Debug checks on the GPU: `Assert` statements in WGSL and the host's check after a launch.

A failing `Assert` claims the kernel's failure record (after the global temporaries, see
`ir/assertions.py`) with a compare-exchange of its number, so the first failure wins, stores
its message values as 32-bit words, and ends the invocation. A task that reduces across its
workgroup at the end cannot end early (its barrier must be reached by every invocation), so
there the invocation records the failure and runs on; WGSL's bounds-checked memory keeps the
bad access harmless, and the host raises all the same. The executable reads the record back
after each launch of a kernel with checks, clears it, and raises `TaichiAssertionError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.backends.webgpu import wgsl
from tistudio.backends.webgpu.memory import Ptr
from tistudio.ir import statements as s
from tistudio.ir.assertions import (
    ARG_BYTES,
    RECORD_HEADER,
    AssertInfo,
    assert_number,
    assert_table,
    raise_if_failed,
    record_bytes,
    record_offset,
)
from tistudio.ir.stmt import Kernel, kernel_root
from tistudio.ir.types import PrimitiveType

if TYPE_CHECKING:
    from tistudio.backends.webgpu.emitter import TaskEmitter


def emit_assert(em: TaskEmitter, stmt: s.Assert) -> None:
    """`if (!cond) { claim the record; store the values; return; }` in task emitter `em`."""
    kernel = kernel_root(stmt)
    base = record_offset(kernel.gtmp_size)
    words = [w for arg in stmt.args for w in _words(em, arg)]
    number = assert_number(stmt, em.assert_numbers) + 1
    claimed = em.fresh("claimed")
    em.line(f"if (!{em.value(stmt.cond)}) {{")
    with em.indent():
        em.line(f"var {claimed} = false;")
        em.line("loop {")  # a weak compare-exchange may fail spuriously: retry until decided
        with em.indent():
            em.access(
                Ptr("gtmp", f"{base}u"),
                "au32",
                True,
                lambda ref: [
                    f"let claim = atomicCompareExchangeWeak(&{ref}, 0u, {number}u);",
                    f"if (claim.exchanged || claim.old_value != 0u) {{ "
                    f"{claimed} = claim.exchanged; break; }}",
                ],
            )
        em.line("}")
        em.line(f"if ({claimed}) {{")
        with em.indent():
            for k, word in enumerate(words):
                ptr = Ptr("gtmp", f"{base + RECORD_HEADER + (ARG_BYTES // 2) * k}u")
                em.access(ptr, "au32", True, lambda ref, w=word: [f"atomicStore(&{ref}, {w});"])
        em.line("}")
        if not len(em.task.tls_epilogue):  # see the module docstring
            em.line("return;")
    em.line("}")


def _words(em: TaskEmitter, arg: s.Stmt) -> list[str]:
    """The value of `arg` as two u32 words (low, high) of its bits, as WGSL expressions."""
    dtype = arg.ret_type
    assert isinstance(dtype, PrimitiveType)
    value = em.value(arg)
    reg = em.reg(arg, dtype)
    if dtype.kind == "bool":
        return [f"select(0u, 1u, {value})", "0u"]
    if dtype.name == "f64":
        raise UnsupportedOnBackend(
            arg, "gpu", "an f64 value in an assert message; cast it to f32 for the message"
        )
    if dtype.bits == 64:
        return [f"u32({value} & {wgsl.literal(0xFFFFFFFF, dtype)})", f"u32({value} >> 32u)"]
    return [value if reg == "u32" else f"bitcast<u32>({value})", "0u"]


class FailureRecord:
    """The host side for one GPU kernel: its checks and where their record is."""

    def __init__(self, kernel: Kernel) -> None:
        self.checks: tuple[AssertInfo, ...] = assert_table(kernel)
        self.offset = record_offset(kernel.gtmp_size)
        self.size = record_bytes(self.checks)
        self.name = kernel.name

    def gtmp_bytes(self, gtmp_size: int) -> int:
        return self.offset + self.size if self.checks else gtmp_size

    def check(self, device: Any, gtmp: Any) -> None:
        """After a launch: raise for a failed check, leaving the record clear."""
        data = bytes(device.read(gtmp, self.size, self.offset))
        if any(data[:4]):
            device.write(gtmp, bytes(self.size), self.offset)
            raise_if_failed(data, self.checks, self.name)
