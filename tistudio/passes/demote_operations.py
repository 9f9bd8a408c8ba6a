"""Demote operations: rewrite the operators that back ends lack into ones they have.

Python's `a // b` rounds down, but hardware division rounds toward zero, so integer `floordiv`
becomes `div` minus one when the division was inexact and the signs differed (by a constant
power of two: an arithmetic shift right); float `floordiv` is `floor(a / b)`. A power with an
integer exponent becomes a square-and-multiply loop, unrolled when the exponent is a constant
(for integers a negative exponent gives 1/a**|e| rounded toward zero, see `_negative_exponent`;
for floats 1 / a**|e|, as Taichi does). A logical shift right of a signed integer shifts its
bits viewed as unsigned, since back ends shift signed values arithmetically (Taichi's
`demote_operations`).
"""

from __future__ import annotations

from collections.abc import Callable

from tistudio.ir.ops import BinaryOpType, TernaryOpType, UnaryOpType
from tistudio.ir.statements import (
    Alloca,
    BinaryOp,
    Break,
    Const,
    If,
    LocalLoad,
    LocalStore,
    TernaryOp,
    UnaryOp,
    While,
    const_of,
)
from tistudio.ir.stmt import Block, Kernel, Stmt, walk
from tistudio.ir.types import PointerType, PrimitiveType, u1, unsigned_of
from tistudio.passes.context import PassContext
from tistudio.passes.util import redirect_operands

# where `a // 2**k` becomes a shift. Not on the GPU: NVIDIA's driver (580.159, H200) computed a
# wrong field index in a fuzzed shader once its `% 2`s were shifts, the same shader with
# divisions right (benchmarks/gpu/conformance/findings-2026-11-28/fixed_h200_shifted_mod_index.py)
SHIFTED_DIVISION_ARCHES = frozenset({"cpu"})


def run(kernel: Kernel, ctx: PassContext) -> bool:
    demoted: dict[Stmt, Stmt] = {}  # operation -> the value that replaces it
    skip = () if ctx.arch in SHIFTED_DIVISION_ARCHES else (_floordiv_by_power_of_two,)
    for stmt in kernel.walk():
        redirect_operands(stmt, demoted)  # every use of a value comes after it
        if isinstance(stmt, BinaryOp) and isinstance(stmt.lhs.ret_type, PrimitiveType):
            value = _demote(stmt, stmt.lhs.ret_type, skip)
            if value is not None:
                demoted[stmt] = value
    return bool(demoted)


def _demote(stmt: BinaryOp, t: PrimitiveType, skip: tuple[_Rule, ...] = ()) -> Stmt | None:
    """Apply the first rule for `stmt.op` that fits its type; return the value that replaces
    `stmt`, or None if no rule fits."""
    for rule in _RULES.get(stmt.op, ()):
        if rule in skip:
            continue
        out = Block()
        value = rule(stmt, t, out)
        if value is not None:
            for new in walk(out):
                new.loc = stmt.loc
            stmt.insert_before(*out.take_all())
            stmt.erase()
            return value
    return None


def _emit(out: Block, stmt: Stmt) -> Stmt:
    return out.append(stmt)


def _binary(out: Block, op: BinaryOpType, a: Stmt, b: Stmt, t: PrimitiveType) -> Stmt:
    return out.append(BinaryOp(op, a, b, ret_type=t))


def _select(out: Block, cond: Stmt, a: Stmt, b: Stmt, t: PrimitiveType) -> Stmt:
    return out.append(TernaryOp(TernaryOpType.select, cond, a, b, ret_type=t))


def _int_floordiv(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """q = a div b; q - 1 if (a mod b != 0) and ((a < 0) != (b < 0)), without a branch."""
    if not t.is_integral:
        return None
    a, b = s.lhs, s.rhs
    q = _binary(out, BinaryOpType.div, a, b, t)
    if not t.is_signed:
        return q  # unsigned: truncation is rounding down
    zero, one = _emit(out, const_of(0, t)), _emit(out, const_of(1, t))
    rem = _binary(out, BinaryOpType.mod, a, b, t)
    inexact = _binary(out, BinaryOpType.cmp_ne, rem, zero, u1)
    a_negative = _binary(out, BinaryOpType.cmp_lt, a, zero, u1)
    b_negative = _binary(out, BinaryOpType.cmp_lt, b, zero, u1)
    signs_differ = _binary(out, BinaryOpType.cmp_ne, a_negative, b_negative, u1)
    fix = _binary(out, BinaryOpType.bit_and, inexact, signs_differ, u1)
    return _select(out, fix, _binary(out, BinaryOpType.sub, q, one, t), q, t)


def _floordiv_by_power_of_two(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """`a // 2**k` of a signed integer is `a >> k`, an arithmetic shift, for every `a` (it
    rounds down, as `//` does). Python's `a % 2**k` (`a - 2**k * (a // 2**k)`) then becomes a
    mask in LLVM. The general form's division, remainder and fix-up keep a loop from
    vectorising: a 1024x1024 kernel with `% 256` and `// 1024` took 8.7 ms, 3.9 with shifts."""
    b = s.rhs.value if isinstance(s.rhs, Const) else None
    if not (t.is_integral and t.is_signed) or not isinstance(b, int) or isinstance(b, bool):
        return None
    if b <= 0 or b & (b - 1) or b.bit_length() - 1 >= t.bits:
        return None
    shift = _emit(out, const_of(b.bit_length() - 1, t))
    return _binary(out, BinaryOpType.bit_sar, s.lhs, shift, t)


def _float_floordiv(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    if not t.is_float:
        return None
    quotient = _binary(out, BinaryOpType.div, s.lhs, s.rhs, t)
    return _emit(out, UnaryOp(UnaryOpType.floor, quotient, ret_type=t))


def _signed_shr(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """Logical shift of a signed value: shift its bits as unsigned, then view them as signed."""
    if t.kind != "int":
        return None
    u = unsigned_of(t)
    bits = _emit(out, UnaryOp(UnaryOpType.cast_bits, s.lhs, ret_type=u))
    amount = s.rhs
    if isinstance(amount.ret_type, PrimitiveType) and amount.ret_type.kind == "int":
        amount = _emit(out, UnaryOp(UnaryOpType.cast_bits, amount, ret_type=u))
    shifted = _binary(out, BinaryOpType.bit_shr, bits, amount, u)
    return _emit(out, UnaryOp(UnaryOpType.cast_bits, shifted, ret_type=t))


def _const_pow(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """`a ** n` with a constant integer n (|n| <= 64; n >= 0 for integers): the products the
    loop below would form, unrolled (`x ** 2` is `x * x`, not a call of `powf`)."""
    n = s.rhs.value if isinstance(s.rhs, Const) else None
    if not isinstance(n, int) or isinstance(n, bool) or abs(n) > 64 or (n < 0 and not t.is_float):
        return None
    result, a, e = None, s.lhs, abs(n)
    while e > 0:
        if e & 1:
            result = a if result is None else _binary(out, BinaryOpType.mul, result, a, t)
        e >>= 1
        if e:
            a = _binary(out, BinaryOpType.mul, a, a, t)
    one = _emit(out, const_of(1, t))
    if result is None:  # a ** 0 == 1, also for a == 0 (Taichi's loop gives 1 too)
        return one
    return _binary(out, BinaryOpType.div, one, result, t) if n < 0 else result


def _int_pow(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """Integer a ** b by square-and-multiply; b < 0 as `_negative_exponent` says."""
    if not t.is_integral:
        return None
    base = s.lhs  # i32 ** i64 is an i64: the base widens, the exponent keeps its type
    if base.ret_type != t:
        base = _emit(out, UnaryOp(UnaryOpType.cast_value, base, ret_type=t))
    power, zero_one = _power_loop(base, s.rhs, t, out)
    if not t.is_signed:
        return power
    return _negative_exponent(base, s.rhs, power, zero_one, out)


def _float_int_pow(s: BinaryOp, t: PrimitiveType, out: Block) -> Stmt | None:
    """Float a ** integer b, as Taichi demotes it: a ** |b| by square-and-multiply, then
    1 / that for b <= 0."""
    e = s.rhs.ret_type
    if not (t.is_float and isinstance(e, PrimitiveType) and e.is_integral):
        return None
    magnitude = _emit(out, UnaryOp(UnaryOpType.abs, s.rhs, ret_type=e))
    power, (zero, _) = _power_loop(s.lhs, magnitude, t, out)
    inverse = _binary(out, BinaryOpType.div, _emit(out, const_of(1, t)), power, t)
    not_positive = _binary(out, BinaryOpType.cmp_le, s.rhs, zero, u1)
    return _select(out, not_positive, inverse, power, t)


def _power_loop(
    base: Stmt, exponent: Stmt, t: PrimitiveType, out: Block
) -> tuple[Stmt, tuple[Stmt, Stmt]]:
    """result = 1; while e > 0: (if e is odd: result *= base); base *= base; e >>= 1. Returns
    the result and the exponent type's constants 0 and 1."""
    e_type = exponent.ret_type
    assert isinstance(e_type, PrimitiveType)
    zero, one = _emit(out, const_of(0, e_type)), _emit(out, const_of(1, e_type))
    result = _emit(out, Alloca(ret_type=PointerType(t)))
    base_var, exp = (_emit(out, Alloca(ret_type=PointerType(x))) for x in (t, e_type))
    first = one if e_type == t else const_of(1, t)
    for var, value in ((result, first), (base_var, base), (exp, exponent)):
        if value.parent is None:
            _emit(out, value)
        _emit(out, LocalStore(var, value))
    body = Block()
    _emit(out, While(body))
    e = _emit(body, LocalLoad(exp, ret_type=e_type))
    _emit(body, If(_binary(body, BinaryOpType.cmp_le, e, zero, u1), Block([Break()])))
    low_bit = _binary(body, BinaryOpType.bit_and, e, one, e_type)
    odd = If(_binary(body, BinaryOpType.cmp_ne, low_bit, zero, u1))
    body.append(odd)
    _multiply_into(result, base_var, t, odd.true_block)
    _multiply_into(base_var, base_var, t, body)
    halve = BinaryOpType.bit_sar if e_type.is_signed else BinaryOpType.bit_shr  # e > 0: same
    _emit(body, LocalStore(exp, _binary(body, halve, e, one, e_type)))
    return _emit(out, LocalLoad(result, ret_type=t)), (zero, one)


def _multiply_into(var: Stmt, factor: Stmt, t: PrimitiveType, out: Block) -> None:
    """var = var * factor, two local variables (a square when they are the same one)."""
    x = _emit(out, LocalLoad(var, ret_type=t))
    y = x if factor is var else _emit(out, LocalLoad(factor, ret_type=t))
    _emit(out, LocalStore(var, _binary(out, BinaryOpType.mul, x, y, t)))


def _negative_exponent(
    a: Stmt, e: Stmt, power: Stmt, zero_one: tuple[Stmt, Stmt], out: Block
) -> Stmt:
    """For e < 0 the loop ran zero times. Then a ** e = 1 / a ** |e| rounded toward zero:
    1 for a == 1, 1 or -1 (by the parity of e) for a == -1, and 0 otherwise, also for a == 0
    (division by zero gives 0 in our kernels; Taichi reports an error in debug mode).
    `zero_one` are the exponent's constants; `a` and the result may be of a wider type."""
    t, e_type = power.ret_type, e.ret_type
    assert isinstance(t, PrimitiveType) and isinstance(e_type, PrimitiveType)
    zero_e, one_e = zero_one
    zero, one = zero_one if e_type == t else (_emit(out, const_of(v, t)) for v in (0, 1))
    minus_one = _emit(out, const_of(-1, t))
    negative = _binary(out, BinaryOpType.cmp_lt, e, zero_e, u1)
    is_one = _binary(out, BinaryOpType.cmp_eq, a, one, u1)
    is_minus_one = _binary(out, BinaryOpType.cmp_eq, a, minus_one, u1)
    is_unit = _binary(out, BinaryOpType.bit_or, is_one, is_minus_one, u1)
    low_bit = _binary(out, BinaryOpType.bit_and, e, one_e, e_type)
    odd = _binary(out, BinaryOpType.cmp_ne, low_bit, zero_e, u1)
    unit_power = _select(out, odd, a, one, t)  # (+-1) ** e is a for odd e, else 1
    small = _select(out, is_unit, unit_power, zero, t)
    return _select(out, negative, small, power, t)


_Rule = Callable[[BinaryOp, PrimitiveType, Block], "Stmt | None"]

# Each rule returns the value replacing the statement, or None if it does not apply.
_RULES: dict[BinaryOpType, tuple[_Rule, ...]] = {
    BinaryOpType.floordiv: (_floordiv_by_power_of_two, _int_floordiv, _float_floordiv),  # a // b
    # a ** n with n a constant integer; integer a ** b; float a ** integer b (as Taichi);
    # float ** float stays for the back ends
    BinaryOpType.pow: (_const_pow, _int_pow, _float_int_pow),
    BinaryOpType.bit_shr: (_signed_shr,),  # logical >> on a signed value; unsigned stays
}
