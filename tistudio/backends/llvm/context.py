"""The argument buffer ("context") that every task function of a kernel receives.

Each compiled kernel owns ONE preallocated buffer of 8-byte slots; its address is the `ctx`
argument of every task (`void task(i8* ctx)` / `void task(i8* ctx, i32 lo, i32 hi)`). Passing one
pointer is the cheapest ctypes call (~0.13 us), and the launcher only rewrites the slots that
changed. Slots, in order:

    slot 0                 address of the kernel's global-temporary buffer (`gtmp_size` bytes,
                           allocated once per compiled kernel; values that cross tasks)
    slot 1                 address of the native thread pool's state block (0 without one)
    slots 2 .. R + 1       return values: value k in the low bytes of slot 2 + k, as its type
    next, one per tree     base address of each SNode tree the kernel uses (`GetRoot`), by tree id
    next, per parameter    scalar: one slot, the value in the low bytes with the param's dtype
                           (u1 as one byte 0/1); ndarray: one slot with the data address, then
                           `ndim` slots with the extents as i64
    next, if it prints     address of the back end's print buffer (`backends/print_buffer.py`)
    last, if it draws      the launch's `ti.random` key, a u32 (`backends/random_keys.py`)

All values are little-endian, so a 4-byte value sits at byte offset `8 * slot`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tistudio.ir.statements import GetRoot, Print, Rand
from tistudio.ir.stmt import Kernel

SLOT_BYTES = 8
GTMP_SLOT = 0
POOL_SLOT = 1
FIRST_RETURN_SLOT = 2


@dataclass(frozen=True)
class ParamSlots:
    """Where one kernel parameter lives: its first slot, and for ndarrays its shape slots."""

    kind: str  # "scalar" | "ndarray"
    slot: int  # scalar value, or ndarray data address
    shape_slots: tuple[int, ...] = ()


@dataclass(frozen=True)
class ContextLayout:
    """Slot numbers of one kernel's argument buffer; shared by code generation and launch."""

    num_returns: int
    root_slots: dict[int, int] = field(default_factory=dict)  # tree id -> slot
    params: tuple[ParamSlots, ...] = ()
    num_slots: int = FIRST_RETURN_SLOT
    print_slot: int = -1  # address of the print buffer, for kernels that print (else -1)
    random_slot: int = -1  # the launch's random key, for kernels that call ti.random (else -1)

    def return_slot(self, index: int) -> int:
        return FIRST_RETURN_SLOT + index

    @classmethod
    def of(cls, kernel: Kernel) -> ContextLayout:
        next_slot = FIRST_RETURN_SLOT + len(kernel.ret_types)
        # the kernel's statements and its IR functions': a function reads `ctx` as a task does
        stmts = [*kernel.walk(), *(s for f in kernel.functions for s in f.walk())]
        trees = sorted({s.tree_id for s in stmts if isinstance(s, GetRoot)})
        root_slots = {tree: next_slot + i for i, tree in enumerate(trees)}
        next_slot += len(trees)
        params = []
        for param in kernel.params:
            if param.kind == "ndarray":
                shape = tuple(range(next_slot + 1, next_slot + 1 + param.ndim))
                params.append(ParamSlots("ndarray", next_slot, shape))
                next_slot += 1 + param.ndim
            else:
                params.append(ParamSlots("scalar", next_slot))
                next_slot += 1
        print_slot = -1
        if any(isinstance(s, Print) for s in stmts):
            print_slot, next_slot = next_slot, next_slot + 1
        random_slot = -1
        if any(isinstance(s, Rand) for s in stmts):
            random_slot, next_slot = next_slot, next_slot + 1
        return cls(
            len(kernel.ret_types), root_slots, tuple(params), next_slot, print_slot, random_slot
        )
