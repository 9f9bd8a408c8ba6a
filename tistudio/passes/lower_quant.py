"""Lower quant: quantized field accesses become bit operations on their container word.

A field of a quantized type (`ti.types.quant.int/fixed/float`) has no memory of its own: its
values are a few bits of an unsigned word, a cell of a `bit_struct` (`ti.BitpackedFields`) or
of a `quant_array`. This pass points every access at that word instead (`global ptr` of the
container) and spells out what the hardware must do:

- a load reads the word, shifts the field's bits down and converts them (`quant_codec.py`);
- a store encodes the value and swaps it into the word with a compare-and-swap loop, because
  other threads may be writing the other fields of the same word at the same time;
- an atomic (`x[i] += v`) runs the same loop: it re-reads the word until no other thread
  changed it between the read and the swap. Its value is the field's value before.
"""

from __future__ import annotations

from collections.abc import Callable

from tistudio.ir.ops import AtomicOpType, BinaryOpType
from tistudio.ir.quant import QuantFixed, QuantInt
from tistudio.ir.snode import SNode
from tistudio.ir.statements import (
    Alloca,
    AtomicCAS,
    AtomicOp,
    Break,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    If,
    LocalLoad,
    LocalStore,
    While,
)
from tistudio.ir.stmt import Kernel, Stmt
from tistudio.ir.types import PointerType
from tistudio.passes import index_math as ix
from tistudio.passes.context import PassContext
from tistudio.passes.quant_codec import Codec
from tistudio.passes.quant_shared_exp import encode_shared

# How an atomic on a quant int or fixed combines digits: Taichi adds the new digits to the
# stored ones inside the field's bits (the sum wraps there); other atomics decode and encode.
_DIGIT_OPS = {AtomicOpType.add: BinaryOpType.add, AtomicOpType.sub: BinaryOpType.sub}


def run(kernel: Kernel, ctx: PassContext) -> bool:
    pointers = [s for s in kernel.walk() if isinstance(s, GlobalPtr) and s.snode.quant]
    if not pointers:
        return False
    users: dict[Stmt, list[Stmt]] = {p: [] for p in pointers}
    for stmt in kernel.walk():
        for operand in stmt.operands():
            if operand in users:
                users[operand].append(stmt)
    for ptr in pointers:
        word_ptr, offset = _word_pointer(ptr)
        for user in users[ptr]:
            _lower_use(user, ptr.snode, word_ptr, offset)
        ptr.erase()
    return True


def _word_pointer(ptr: GlobalPtr) -> tuple[Stmt, Stmt]:
    """The container word's pointer, and the field's first bit in it (both before `ptr`)."""
    container = ptr.snode.parent
    assert container is not None and container.dtype is not None
    out: list[Stmt] = []
    word_ptr = ix.emit(out, GlobalPtr(container, list(ptr.indices)))
    word_ptr.ret_type = PointerType(container.dtype)
    codec = Codec(out, container.dtype)
    offset = codec.at(ptr.snode.bit_offset)
    if container.type == "quant_array":  # element k of the array starts at k * bits
        cell = ix.constant(out, 0)
        levels = dict(zip(container.axes, container.sizes))
        for axis, size in levels.items():
            part = ix.remainder(out, ptr.indices[axis], size)
            cell = ix.emit(out, _add(ix.multiply(out, cell, size), part))
        bit = ix.multiply(out, cell, ptr.snode.quant.digits.bits)
        offset = codec.op(BinaryOpType.add, offset, codec.cast(bit, container.dtype))
    for stmt in out:
        stmt.loc = ptr.loc
    ptr.insert_before(*out)
    return word_ptr, offset


def _add(a: Stmt, b: Stmt) -> Stmt:
    from tistudio.ir.statements import BinaryOp

    return BinaryOp(BinaryOpType.add, a, b, ret_type=a.ret_type)


def _lower_use(user: Stmt, snode: SNode, word_ptr: Stmt, offset: Stmt) -> None:
    codec = Codec([], word_ptr.ret_type.pointee)
    value: Stmt | None = None
    if isinstance(user, GlobalLoad):
        word = codec.emit(GlobalLoad(word_ptr, ret_type=codec.word))
        value = codec.decode(word, snode, offset)
    elif isinstance(user, GlobalStore):
        _cas_loop(codec, word_ptr, lambda c, old: _stored(c, old, snode, offset, user.value))
    elif isinstance(user, AtomicOp):
        old_word = _cas_loop(codec, word_ptr, _atomic_update(snode, offset, user))
        value = codec.decode(old_word, snode, offset)
    else:
        raise AssertionError(f"lower_quant: {type(user).__name__} of a quant field pointer")
    for stmt in codec.out:
        stmt.loc = user.loc
    user.insert_before(*codec.out)
    if value is not None:
        user.replace_with(value)  # every use of the load or atomic reads the decoded value
    else:
        user.erase()


def _stored(codec: Codec, old: Stmt, snode: SNode, offset: Stmt, value: Stmt) -> Stmt:
    """The word `old` with `snode`'s bits replaced by the encoding of `value`."""
    if snode.shared_exponent:
        return encode_shared(codec, old, snode, value)
    bits, mask = codec.encode(value, snode, offset)
    return codec.merge(old, bits, mask)


Update = Callable[[Codec, Stmt], Stmt]  # builds the new word from the old one


def _atomic_update(snode: SNode, offset: Stmt, atomic: AtomicOp) -> Update:
    q = snode.quant
    if isinstance(q, QuantInt | QuantFixed) and atomic.op in _DIGIT_OPS:

        def add_digits(codec: Codec, old: Stmt) -> Stmt:  # Taichi's atomic_add_partial_bits
            digits = codec.place(codec.digits_of(atomic.val, q), offset, q.bits)
            total = codec.op(_DIGIT_OPS[atomic.op], old, digits)
            return codec.merge(old, total, codec.mask(offset, q.bits))

        return add_digits

    def combine(codec: Codec, old: Stmt) -> Stmt:  # decode, apply the operator, encode
        current = codec.decode(old, snode, offset)
        operand = codec.cast(atomic.val, current.ret_type)
        new = codec.op(atomic.op.binary, current, operand)
        return _stored(codec, old, snode, offset, new)

    return combine


def _cas_loop(codec: Codec, word_ptr: Stmt, update: Update) -> Stmt:
    """`cell = word; while true { old = cell; prev = cas(word, old, update(old)); cell = prev;
    if prev == old: break }`; returns the word as it was just before the successful swap."""
    word_type = codec.word
    cell = codec.emit(Alloca(ret_type=PointerType(word_type)))
    codec.emit(LocalStore(cell, codec.emit(GlobalLoad(word_ptr, ret_type=word_type))))
    loop = codec.emit(While())
    body = Codec([], word_type)
    old = body.emit(LocalLoad(cell, ret_type=word_type))
    prev = body.emit(AtomicCAS(word_ptr, old, update(body, old), ret_type=word_type))
    body.emit(LocalStore(cell, prev))
    done = body.emit(If(body.op(BinaryOpType.cmp_eq, prev, old)))
    done.true_block.append(Break())
    loop.body.extend(body.out)
    return codec.emit(LocalLoad(cell, ret_type=word_type))
