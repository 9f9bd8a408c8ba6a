"""Atomic read-modify-write on global memory; every form returns the value held before.

Most operators are one `atomicrmw` instruction (LLVM 22 has `fadd`/`fsub`/`fmax`/`fmin` on
floats; x86 lowers them to a `lock cmpxchg` loop). `mul` has no `atomicrmw` form, so it is an
explicit compare-and-swap loop on the value's bits. Ordering is `monotonic`: tasks synchronise
with each other only at the end of a launch, which the thread pool's join already orders.
"""

from __future__ import annotations

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import kind_of, value_type
from tistudio.ir.ops import AtomicOpType as A
from tistudio.ir.types import PrimitiveType

ORDERING = "monotonic"

LLVM_ATOMIC: dict[tuple[A, str], str] = {
    (A.add, "int"): "add",
    (A.add, "uint"): "add",
    (A.add, "float"): "fadd",
    (A.sub, "int"): "sub",
    (A.sub, "uint"): "sub",
    (A.sub, "float"): "fsub",
    (A.max, "int"): "max",
    (A.max, "uint"): "umax",
    (A.max, "float"): "fmax",
    (A.min, "int"): "min",
    (A.min, "uint"): "umin",
    (A.min, "float"): "fmin",
    (A.bit_and, "int"): "and",
    (A.bit_and, "uint"): "and",
    (A.bit_or, "int"): "or",
    (A.bit_or, "uint"): "or",
    (A.bit_xor, "int"): "xor",
    (A.bit_xor, "uint"): "xor",
}

# `u1` lives in memory as a byte 0/1; only operators that keep a byte in {0, 1} apply to it.
_BOOL_SAFE = {A.max, A.min, A.bit_and, A.bit_or, A.bit_xor}


def atomic_rmw(
    b: ir.IRBuilder, op: A, dtype: PrimitiveType, ptr: ir.Value, val: ir.Value
) -> ir.Value | None:
    """`old = *ptr; *ptr = old op val` atomically; returns `old`, or None if unsupported."""
    kind = kind_of(dtype)
    if dtype.kind == "bool":
        if op not in _BOOL_SAFE:
            return None
        old = b.atomic_rmw(LLVM_ATOMIC[op, kind], ptr, b.zext(val, ir.IntType(8)), ORDERING)
        return b.icmp_unsigned("!=", old, ir.Constant(old.type, 0))
    if op is A.mul:
        return _cas_loop(b, dtype, ptr, val)
    if (op, kind) not in LLVM_ATOMIC:
        return None
    return b.atomic_rmw(LLVM_ATOMIC[op, kind], ptr, val, ORDERING)


def _cas_loop(b: ir.IRBuilder, dtype: PrimitiveType, ptr: ir.Value, val: ir.Value) -> ir.Value:
    """Multiply in a compare-and-swap loop; floats travel through their integer bits."""
    bits = ir.IntType(dtype.bits)
    start = b.load_atomic(ptr, ORDERING, dtype.nbytes, typ=bits)
    before = b.block
    loop = b.append_basic_block("cas_loop")
    done = b.append_basic_block("cas_done")
    b.branch(loop)
    b.position_at_end(loop)
    old_bits = b.phi(bits)
    old_bits.add_incoming(start, before)
    if dtype.is_float:
        old = b.bitcast(old_bits, value_type(dtype))
        new_bits = b.bitcast(b.fmul(old, val), bits)
    else:
        old = old_bits
        new_bits = b.mul(old, val)
    pair = b.cmpxchg(ptr, old_bits, new_bits, ORDERING, ORDERING)
    old_bits.add_incoming(b.extract_value(pair, 0), loop)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    return old
