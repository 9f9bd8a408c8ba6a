from __future__ import annotations

import math
import operator

import pytest

from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, UnaryOpType, normalize_value, parse_ir, verify
from tistudio.ir.config import CompileConfig
from tistudio.ir.statements import (
    Alloca,
    ArgLoad,
    BinaryOp,
    Break,
    Const,
    If,
    LocalLoad,
    LocalStore,
    Return,
    TernaryOp,
    UnaryOp,
    While,
)
from tistudio.ir.stmt import Block, Kernel
from tistudio.ir.types import PrimitiveType, i8, i32
from tistudio.passes import demote_operations
from tistudio.passes.context import PassContext


def _binary_kernel(op: str, dtype: str) -> str:
    return f"""
        <{dtype}> $0 = argload[0]
        <{dtype}> $1 = argload[1]
        <{dtype}> $2 = {op} $0 $1
        $3 : return $2
    """


def test_operations_back_ends_have_are_left_alone():
    text = """
        <f32> $0 = argload[0]
        <f32> $1 = pow $0 $0
        <f32> $2 = div $1 $0
        <u32> $3 = argload[1]
        <u32> $4 = bit_shr $3 $3
        <i32> $5 = argload[2]
        <i32> $6 = mod $5 $5
        <i32> $7 = div $5 $5
        <i32> $8 = bit_sar $5 $5
        <i32> $9 = bit_shl $5 $5
    """
    check_pass(demote_operations, before=text, after=text)


def test_signed_floordiv_subtracts_one_when_inexact_with_differing_signs():
    check_pass(
        demote_operations,
        before=_binary_kernel("floordiv", "i32"),
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = div $0 $1
            <i32> $3 = const 0
            <i32> $4 = const 1
            <i32> $5 = mod $0 $1
            <u1> $6 = cmp_ne $5 $3
            <u1> $7 = cmp_lt $0 $3
            <u1> $8 = cmp_lt $1 $3
            <u1> $9 = cmp_ne $7 $8
            <u1> $10 = bit_and $6 $9
            <i32> $11 = sub $2 $4
            <i32> $12 = select($10, $11, $2)
            $13 : return $12
        """,
    )


def test_unsigned_floordiv_is_plain_division():
    check_pass(
        demote_operations,
        before=_binary_kernel("floordiv", "u32"),
        after="""
            <u32> $0 = argload[0]
            <u32> $1 = argload[1]
            <u32> $2 = div $0 $1
            $3 : return $2
        """,
    )


def test_float_floordiv_is_floor_of_the_quotient():
    check_pass(
        demote_operations,
        before=_binary_kernel("floordiv", "f64"),
        after="""
            <f64> $0 = argload[0]
            <f64> $1 = argload[1]
            <f64> $2 = div $0 $1
            <f64> $3 = floor $2
            $4 : return $3
        """,
    )


def test_signed_logical_shift_goes_through_unsigned_bits():
    check_pass(
        demote_operations,
        before=_binary_kernel("bit_shr", "i64"),
        after="""
            <i64> $0 = argload[0]
            <i64> $1 = argload[1]
            <u64> $2 = reinterpret_cast_bits<u64> $0
            <u64> $3 = reinterpret_cast_bits<u64> $1
            <u64> $4 = bit_shr $2 $3
            <i64> $5 = reinterpret_cast_bits<i64> $4
            $6 : return $5
        """,
    )


_POW_LOOP = """
    <{t}> $0 = argload[0]
    <{t}> $1 = argload[1]
    <{t}> $2 = const 0
    <{t}> $3 = const 1
    <*{t}> $4 = alloca
    <*{t}> $5 = alloca
    <*{t}> $6 = alloca
    $7 : local store [$4 <- $3]
    $8 : local store [$5 <- $0]
    $9 : local store [$6 <- $1]
    $10 : while true {{
      <{t}> $11 = local load [$6]
      <u1> $12 = cmp_le $11 $2
      $13 : if $12 {{
        $14 : break
      }}
      <{t}> $15 = bit_and $11 $3
      <u1> $16 = cmp_ne $15 $2
      $17 : if $16 {{
        <{t}> $18 = local load [$4]
        <{t}> $19 = local load [$5]
        <{t}> $20 = mul $18 $19
        $21 : local store [$4 <- $20]
      }}
      <{t}> $22 = local load [$5]
      <{t}> $23 = mul $22 $22
      $24 : local store [$5 <- $23]
      <{t}> $25 = {halve} $11 $3
      $26 : local store [$6 <- $25]
    }}
    <{t}> $27 = local load [$4]
"""


# e < 0: 1 for a == 1, +-1 by parity for a == -1, else 0
_NEGATIVE_EXPONENT = """
    <i32> $28 = const -1
    <u1> $29 = cmp_lt $1 $2
    <u1> $30 = cmp_eq $0 $3
    <u1> $31 = cmp_eq $0 $28
    <u1> $32 = bit_or $30 $31
    <i32> $33 = bit_and $1 $3
    <u1> $34 = cmp_ne $33 $2
    <i32> $35 = select($34, $0, $3)
    <i32> $36 = select($32, $35, $2)
    <i32> $37 = select($29, $36, $27)
    $38 : return $37
"""


def test_unsigned_integer_pow_becomes_a_square_and_multiply_loop():
    check_pass(
        demote_operations,
        before=_binary_kernel("pow", "u32"),
        after=_POW_LOOP.format(t="u32", halve="bit_shr") + "    $28 : return $27\n",
    )


def test_signed_integer_pow_also_handles_negative_exponents():
    check_pass(
        demote_operations,
        before=_binary_kernel("pow", "i32"),
        after=_POW_LOOP.format(t="i32", halve="bit_sar") + _NEGATIVE_EXPONENT,
    )


def test_operations_inside_nested_blocks_are_demoted_in_place():
    check_pass(
        demote_operations,
        before="""
            $0 = offloaded range_for(0, 4) body {
              <i32> $1 = loop $0 index 0
              <u1> $2 = const true
              $3 : if $2 {
                <f32> $4 = argload[0]
                <f32> $5 = floordiv $4 $4
                <f32> $6 = add $5 $4
              }
            }
        """,
        after="""
            $0 = offloaded range_for(0, 4) body {
              <i32> $1 = loop $0 index 0
              <u1> $2 = const true
              $3 : if $2 {
                <f32> $4 = argload[0]
                <f32> $5 = div $4 $4
                <f32> $6 = floor $5
                <f32> $7 = add $6 $4
              }
            }
        """,
    )


# --- semantics: a small interpreter of the emitted integer code ----------------------------


def _c_div(a: int, b: int, t: PrimitiveType) -> int:
    """C division as the contract defines it: truncating; 0 for b == 0 and INT_MIN / -1."""
    if b == 0:
        return 0
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return q if normalize_value(q, t) == q else 0


def _binary(op: BinaryOpType, a, b, t: PrimitiveType):
    if op is BinaryOpType.div:
        return a / b if t.is_float else _c_div(a, b, t)
    if op is BinaryOpType.mod:
        return a - _c_div(a, b, t) * b if b else 0
    if op is BinaryOpType.bit_shr:  # logical: the operands are unsigned here
        return a >> (b % t.bits)
    if op is BinaryOpType.bit_sar:
        return a >> (b % t.bits)
    return {
        BinaryOpType.add: operator.add,
        BinaryOpType.sub: operator.sub,
        BinaryOpType.mul: operator.mul,
        BinaryOpType.bit_and: operator.and_,
        BinaryOpType.bit_or: operator.or_,
        BinaryOpType.cmp_lt: operator.lt,
        BinaryOpType.cmp_le: operator.le,
        BinaryOpType.cmp_eq: operator.eq,
        BinaryOpType.cmp_ne: operator.ne,
    }[op](a, b)


def _execute(block: Block, env: dict) -> bool:
    """Run `block`; True if it ended with `break` or `return` (the result is in env["ret"])."""
    for s in block:
        if isinstance(s, (Break, Return)):
            env["ret"] = [env[v] for v in getattr(s, "values", [])]
            return True
        if isinstance(s, While):
            for _ in range(1000):
                if _execute(s.body, env):
                    break
            else:
                raise AssertionError("the emitted loop does not terminate")
        elif isinstance(s, If):
            if _execute(s.true_block if env[s.cond] else s.false_block, env):
                return True
        else:
            _value(s, env)
    return False


def _value(s, env: dict) -> None:
    if isinstance(s, Const):
        env[s] = s.value
    elif isinstance(s, ArgLoad):
        env[s] = env["args"][s.arg_id]
    elif isinstance(s, Alloca):
        env[s] = [None]
    elif isinstance(s, LocalStore):
        env[s.ptr][0] = env[s.value]
    elif isinstance(s, LocalLoad):
        env[s] = env[s.ptr][0]
    elif isinstance(s, TernaryOp):
        env[s] = env[s.a] if env[s.cond] else env[s.b]
    elif isinstance(s, UnaryOp):
        assert s.op in (UnaryOpType.floor, UnaryOpType.cast_bits), s.op
        x = env[s.operand]
        env[s] = math.floor(x) if s.op is UnaryOpType.floor else x  # normalized below
        env[s] = normalize_value(env[s], s.ret_type)
    else:
        assert isinstance(s, BinaryOp), f"unexpected {type(s).__name__}"
        result = _binary(s.op, env[s.lhs], env[s.rhs], s.lhs.ret_type)
        env[s] = normalize_value(result, s.ret_type)


def _demoted(op: str, dtype: str) -> Kernel:
    kernel = parse_ir("kernel {" + _binary_kernel(op, dtype) + "}")
    assert demote_operations.run(kernel, PassContext())
    verify(kernel)
    left = [s for s in kernel.walk() if isinstance(s, BinaryOp) and s.op.value == op]
    assert all(str(s.lhs.ret_type) != dtype for s in left), f"{op} on {dtype} is still there"
    return kernel


def _call(kernel: Kernel, *args) -> int | float:
    env: dict = {"args": args}
    assert _execute(kernel.body, env)
    return env["ret"][0]


INT_MIN, INT_MAX = -(2**31), 2**31 - 1
EDGES = [INT_MIN, INT_MIN + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, INT_MAX - 1, INT_MAX]


def test_floordiv_matches_python_on_i32():
    kernel = _demoted("floordiv", "i32")
    for a in [*range(-12, 13), *EDGES]:
        for b in [*range(-5, 6), *EDGES]:
            # division by zero and the one overflowing quotient give 0 (the contract)
            want = 0 if b == 0 or (a, b) == (INT_MIN, -1) else a // b
            assert _call(kernel, a, b) == want, (a, b)


def test_floordiv_matches_python_on_u8_and_f32():
    kernel = _demoted("floordiv", "u8")
    for a in range(256):
        for b in range(1, 256, 7):
            assert _call(kernel, a, b) == a // b
    kernel = _demoted("floordiv", "f32")
    for a in (-7.5, -7.0, -0.5, 0.0, 0.5, 3.0, 7.25):
        for b in (-2.0, -0.5, 0.5, 2.0, 3.0):
            assert _call(kernel, a, b) == a // b, (a, b)


def _int_power(a: int, e: int) -> int:
    """Python's a ** e, wrapped to i32; negative e as documented in the pass."""
    if e >= 0:
        return normalize_value(a**e, i32)
    if a == 1:
        return 1
    return (-1) ** (-e) if a == -1 else 0


def test_integer_pow_matches_python_including_wraparound_and_negative_exponents():
    kernel = _demoted("pow", "i32")
    for a in range(-5, 6):
        for e in range(-4, 12):
            assert _call(kernel, a, e) == _int_power(a, e), (a, e)
    for a, e in [(3, 25), (-7, 31), (2, 31), (2, 40), (INT_MIN, 2), (-1, INT_MIN), (5, INT_MIN)]:
        assert _call(kernel, a, e) == _int_power(a, e), (a, e)


def test_unsigned_pow_matches_python_modulo_two_to_the_32():
    kernel = _demoted("pow", "u32")
    for a, e in [(0, 0), (0, 5), (1, 99), (3, 13), (3, 40), (2**31 + 1, 3), (2**32 - 1, 7)]:
        assert _call(kernel, a, e) == pow(a, e, 2**32), (a, e)


@pytest.mark.parametrize("dtype", [i32, i8])
def test_signed_logical_shift_matches_shifting_the_unsigned_bits(dtype):
    kernel = _demoted("bit_shr", dtype.name)
    bits = dtype.bits
    values = [-(2 ** (bits - 1)), -(2 ** (bits - 1)) + 1, -77, -1, 0, 1, 77, 2 ** (bits - 1) - 1]
    for a in values:
        for s in range(bits):
            want = normalize_value((a % 2**bits) >> s, dtype)
            assert _call(kernel, a, s) == want, (a, s)
    assert _call(kernel, -1, 1) > 0  # a logical shift: the sign bit does not spread


def _by_constant(dtype: str, divisor: int) -> str:
    return f"""
        <{dtype}> $0 = argload[0]
        <{dtype}> $1 = const {divisor}
        <{dtype}> $2 = floordiv $0 $1
        $3 : return $2
    """


def test_signed_floordiv_by_a_power_of_two_is_an_arithmetic_shift():
    check_pass(
        demote_operations,
        before=_by_constant("i32", 256),
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 256
            <i32> $2 = const 8
            <i32> $3 = bit_sar $0 $2
            $4 : return $3
        """,
    )


@pytest.mark.parametrize("divisor", [1, 2, 8, 256, 2**30, 3, -2, -256, 6])
def test_floordiv_by_a_constant_matches_python_on_i32(divisor):
    kernel = parse_ir("kernel {" + _by_constant("i32", divisor) + "}")
    assert demote_operations.run(kernel, PassContext())
    verify(kernel)
    shifts = [s for s in kernel.walk() if isinstance(s, BinaryOp) and s.op is BinaryOpType.bit_sar]
    assert bool(shifts) == (divisor > 0 and divisor & (divisor - 1) == 0)  # powers of two only
    for a in [*range(-20, 21), *EDGES]:
        assert _call(kernel, a) == a // divisor, (a, divisor)


def test_an_i8_floordiv_by_64_shifts_and_matches_python_for_every_i8():
    kernel = parse_ir("kernel {" + _by_constant("i8", 64) + "}")
    assert demote_operations.run(kernel, PassContext())
    assert any(isinstance(s, BinaryOp) and s.op is BinaryOpType.bit_sar for s in kernel.walk())
    for a in range(-128, 128):
        assert _call(kernel, a) == a // 64, a


def test_the_gpu_keeps_the_division_by_a_power_of_two():
    # NVIDIA's driver got a shader wrong once its `% 2`s were shifts (demote_operations'
    # SHIFTED_DIVISION_ARCHES): on the GPU the general form stays, and still matches Python
    kernel = parse_ir("kernel {" + _by_constant("i32", 256) + "}")
    assert demote_operations.run(kernel, PassContext(CompileConfig(arch="gpu")))
    assert not any(isinstance(s, BinaryOp) and s.op is BinaryOpType.bit_sar for s in kernel.walk())
    for a in [*range(-20, 21), *EDGES]:
        assert _call(kernel, a) == a // 256, a
