"""Operator enums, named and spelled as in Taichi's `binary_op.inc.h`, `unary_op.inc.h` and
`stmt_op_types.h`.

`div` and `mod` are C's truncating operators; Python's `//` and `%` arrive as `floordiv` and as a
`floordiv`-based expansion, and `demote_operations` lowers `floordiv` to `div` plus a sign fix-up.
"""

from __future__ import annotations

from enum import Enum


class _Op(Enum):
    """An enum hashed by identity (its members are singletons): Enum's own `__hash__` is a
    Python function hashing the name, and passes and code generation hash operators in table
    lookups and expression keys about a thousand times per kernel."""

    __hash__ = object.__hash__


class BinaryOpType(_Op):
    mul = "mul"
    add = "add"
    sub = "sub"
    truediv = "truediv"
    floordiv = "floordiv"
    div = "div"
    mod = "mod"
    max = "max"
    min = "min"
    bit_and = "bit_and"
    bit_or = "bit_or"
    bit_xor = "bit_xor"
    bit_shl = "bit_shl"
    bit_shr = "bit_shr"
    bit_sar = "bit_sar"
    cmp_lt = "cmp_lt"
    cmp_le = "cmp_le"
    cmp_gt = "cmp_gt"
    cmp_ge = "cmp_ge"
    cmp_eq = "cmp_eq"
    cmp_ne = "cmp_ne"
    atan2 = "atan2"
    pow = "pow"
    logical_or = "logical_or"
    logical_and = "logical_and"

    @property
    def is_comparison(self) -> bool:
        return self.value.startswith("cmp_")

    @property
    def is_bitwise(self) -> bool:
        return self in _BITWISE

    @property
    def is_shift(self) -> bool:
        return self in (BinaryOpType.bit_shl, BinaryOpType.bit_shr, BinaryOpType.bit_sar)


_BITWISE = {BinaryOpType.bit_and, BinaryOpType.bit_or, BinaryOpType.bit_xor}

COMMUTATIVE = {
    BinaryOpType.mul,
    BinaryOpType.add,
    BinaryOpType.max,
    BinaryOpType.min,
    BinaryOpType.bit_and,
    BinaryOpType.bit_or,
    BinaryOpType.bit_xor,
    BinaryOpType.cmp_eq,
    BinaryOpType.cmp_ne,
    BinaryOpType.logical_and,
    BinaryOpType.logical_or,
}


class UnaryOpType(_Op):
    neg = "neg"
    sqrt = "sqrt"
    round = "round"
    floor = "floor"
    ceil = "ceil"
    cast_value = "cast_value"
    cast_bits = "reinterpret_cast_bits"
    abs = "abs"
    sgn = "sgn"
    sin = "sin"
    asin = "asin"
    cos = "cos"
    acos = "acos"
    tan = "tan"
    tanh = "tanh"
    inv = "inv"
    rcp = "rcp"
    exp = "exp"
    log = "log"
    popcnt = "popcnt"
    clz = "clz"
    rsqrt = "rsqrt"
    bit_not = "bit_not"
    logic_not = "logic_not"

    @property
    def is_cast(self) -> bool:
        return self in (UnaryOpType.cast_value, UnaryOpType.cast_bits)


FLOAT_ONLY_UNARY = {
    UnaryOpType.sqrt,
    UnaryOpType.sin,
    UnaryOpType.asin,
    UnaryOpType.cos,
    UnaryOpType.acos,
    UnaryOpType.tan,
    UnaryOpType.tanh,
    UnaryOpType.exp,
    UnaryOpType.log,
    UnaryOpType.rsqrt,
    UnaryOpType.inv,
    UnaryOpType.rcp,
}


class TernaryOpType(_Op):
    select = "select"


class AtomicOpType(_Op):
    add = "add"
    sub = "sub"
    max = "max"
    min = "min"
    bit_and = "bit_and"
    bit_or = "bit_or"
    bit_xor = "bit_xor"
    mul = "mul"

    @property
    def binary(self) -> BinaryOpType:
        """The binary operator that the atomic applies (`atomic add` is `add`)."""
        return BinaryOpType(self.value)


class TaskType(_Op):
    """Kinds of offloaded task: straight-line code, a parallel range-for, a struct-for."""

    serial = "serial"
    range_for = "range_for"
    struct_for = "struct_for"


class SNodeOpType(_Op):
    """Operations on a sparse SNode's cells (`ti.activate`, ...; ir/sparse.py)."""

    activate = "activate"
    deactivate = "deactivate"
    is_active = "is_active"
    append = "append"
    length = "length"
    get_addr = "get_addr"  # frontend only: ti.get_addr lowers to a GlobalPtr and a GetAddr
