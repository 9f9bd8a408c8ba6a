"""Validation mode: Taichi's checker of the global data access rule, inserted into a forward kernel.

Reverse mode does not save field values, so its gradients are right only if a field element that
has been read is not overwritten afterwards. Under `ti.init(debug=True)` and
`ti.ad.Tape(..., validation=True)`, each field with gradients gets an `i32` check-bit field: every
load sets the element's bit, and every store or atomic first asserts that the bit is still 0, so
the launch that breaks the rule fails with an error naming the field, the element and the line.
"""

from __future__ import annotations

from tistudio.ir.ops import BinaryOpType
from tistudio.ir.statements import (
    Assert,
    AtomicOp,
    BinaryOp,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    const_of,
)
from tistudio.ir.stmt import Block, Kernel, Stmt, walk
from tistudio.ir.types import PointerType, i32, u1
from tistudio.passes.autodiff.common import forbid

_MESSAGE = (
    "Breaks the global data access rule: {name} at {where} is written here after it was read "
    "(by this or an earlier kernel under the Tape), so its gradient would be wrong; keep the "
    "value that was read and write a new field, or accumulate with +="
)

_OVERWRITE = (
    "Breaks the global data access rule: this store overwrites an element of {name} that the "
    "kernel has read, so its gradient would be wrong; keep the value that was read and write "
    "a new field, or accumulate with +="
)


def check_overwrites(block: Block) -> None:
    """Debug mode, reverse mode, at compile time: a store into `x[I]` after a load of `x[I]`
    with the very same index values breaks the rule for certain (`x[i] = x[i] * 2`)."""
    loaded: set[tuple] = set()
    for stmt in walk(block):
        ptr = getattr(stmt, "ptr", None)
        if not isinstance(ptr, GlobalPtr) or ptr.snode.adjoint is None:
            continue
        key = (ptr.snode, *ptr.indices)
        if isinstance(stmt, GlobalLoad):
            loaded.add(key)
        elif isinstance(stmt, GlobalStore) and key in loaded:
            snode = ptr.snode
            name = f"field '{snode.name}'" if snode.name else f"field {snode.ref()}"
            forbid(stmt, _OVERWRITE.format(name=name))


def instrument(kernel: Kernel) -> None:
    for stmt in list(kernel.walk()):
        if isinstance(stmt, GlobalLoad):
            bit = _checkbit_ptr(stmt.ptr)
            if bit is not None:
                one = _at(const_of(1, i32), stmt)
                stmt.insert_after(bit, one, _at(GlobalStore(bit, one), stmt))
        elif isinstance(stmt, (GlobalStore, AtomicOp)):
            _check_before(stmt, stmt.ptr if isinstance(stmt, GlobalStore) else stmt.dest)


def _at(stmt: Stmt, where: Stmt) -> Stmt:
    stmt.loc = where.loc
    return stmt


def _checkbit_ptr(ptr: Stmt) -> GlobalPtr | None:
    snode = getattr(ptr.snode, "checkbit", None) if isinstance(ptr, GlobalPtr) else None
    if snode is None:
        return None
    return _at(GlobalPtr(snode, list(ptr.indices), ret_type=PointerType(i32)), ptr)


def _check_before(stmt: Stmt, ptr: Stmt) -> None:
    bit = _checkbit_ptr(ptr)
    if bit is None:
        return
    snode = ptr.snode
    name = f"field '{snode.name}'" if snode.name else f"field {snode.ref()} {list(snode.shape)}"
    where = "[" + ", ".join("%d" for _ in ptr.indices) + "]" if ptr.indices else "[None]"
    value = _at(GlobalLoad(bit, ret_type=i32), stmt)
    zero = _at(const_of(0, i32), stmt)
    clear = _at(BinaryOp(BinaryOpType.cmp_eq, value, zero, ret_type=u1), stmt)
    message = _MESSAGE.format(name=name, where=where)
    check = _at(Assert(clear, message, list(ptr.indices)), stmt)
    stmt.insert_before(bit, value, zero, clear, check)
