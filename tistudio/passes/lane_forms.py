"""How an integer value, and a field element's address, change across the four lanes of a vec4 step.

A vec4 loop (the `vectorize` pass) gives each invocation four consecutive loop indices
`k = begin + 4m + l`, lanes `l = 0..3`. A value computed from `k` by additions, multiplications
and shifts by constants, and the shifts right and masks that recover `(i, j)` from a struct-for's
flat index, moves with the lane as `base + c * l`: its `Form`. When a load's byte address has
`c = 4` (consecutive 4-byte cells) its four lanes read one 16-byte run, at a known offset into an
aligned `vec4` (`base % 16`), so two aligned `vec4` loads at most cover it; a store with
`c = 4` and `base % 16 == 0` fills one aligned `vec4`.

The analysis keeps what it can prove: `base` modulo a power of two `m` (`base ≡ r`), whether the
value is never negative, and, while the value is linear in `k` (`exact + c * k`), its constant
`exact`. A division by `d` (a shift right when `d = 2**s`) gives `c = 0` only when no lane
carries past a multiple of `d`: every possible `base mod d` plus `3c` stays below `d`, which
needs `d` and `m` to share a factor above `3c` (`ndrange`'s `k % 8192`, not `k % 8190`). A
remainder (a mask `& (d - 1)`) keeps `c` under the same condition. Divisions and remainders that
round toward zero need a value known not to be negative. Anything else (loaded values,
comparisons) has no form (`None`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType as B
from tistudio.ir.ops import UnaryOpType as U
from tistudio.ir.stmt import Stmt
from tistudio.passes.index_math import is_pow2

LANES = 4
CAP = 1 << 20  # the largest modulus tracked (a power of two)


@dataclass(frozen=True)
class Form:
    """value(lane) = base + c * lane, base ≡ r (mod m); `exact` when value = exact + c * k;
    `nonneg` when no lane's value is negative."""

    c: int
    m: int
    r: int
    exact: int | None = None
    nonneg: bool = False


def _const(v: int) -> Form:
    return Form(0, CAP, v % CAP, v, v >= 0)


def _lowbit(n: int) -> int:
    return n & -n if n else CAP


def _add(a: Form, b: Form, sign: int) -> Form:
    m = min(a.m, b.m)
    exact = None if a.exact is None or b.exact is None else a.exact + sign * b.exact
    nonneg = sign > 0 and a.nonneg and b.nonneg
    return Form(a.c + sign * b.c, m, (a.r + sign * b.r) % m, exact, nonneg)


def _scale(a: Form, n: int) -> Form:
    m = min(a.m * _lowbit(abs(n)), CAP)
    exact = None if a.exact is None else a.exact * n
    return Form(a.c * n, m, (a.r * n) % m, exact, a.nonneg and n >= 0)


def _no_carry(a: Form, d: int) -> bool:
    """Whether `(base mod d) + c * l < d` for every lane and every base ≡ r (mod m): the
    largest possible `base mod d` is `d - g + r mod g`, g = gcd(m, d)."""
    g = math.gcd(a.m, d)
    return a.c >= 0 and a.r % g + (LANES - 1) * a.c < g


def _quotient(a: Form, d: int) -> Form | None:
    """floor(value / d), d > 0."""
    if a.c and not _no_carry(a, d):
        return None
    m = a.m // d if a.m % d == 0 else 1
    return Form(0, m, (a.r // d) % m, None, a.nonneg)


def _remainder(a: Form, d: int) -> Form | None:
    """value mod d (the floor remainder), d > 0."""
    if a.c and not _no_carry(a, d):
        return None
    m = math.gcd(a.m, d)
    return Form(a.c, m, a.r % m, None, True)


def _constant(a: Form) -> int | None:
    return a.exact if a.c == 0 else None


class LaneForms:
    """The forms of one range_for task's values (memoised; `None`: no form)."""

    def __init__(self, task: s.Offloaded) -> None:
        self.task = task
        self.forms: dict[Stmt, Form | None] = {}

    def of(self, stmt: Stmt) -> Form | None:
        if stmt not in self.forms:
            self.forms[stmt] = self._form(stmt)
        return self.forms[stmt]

    def _form(self, stmt: Stmt) -> Form | None:
        kind = getattr(stmt.ret_type, "name", "")
        if kind not in ("i32", "u32"):
            return None
        if isinstance(stmt, s.Const):
            return _const(int(stmt.value))
        if isinstance(stmt, s.LoopIndex):
            if stmt.loop is not self.task or stmt.index != 0:
                return None
            begin = self.task.begin
            return Form(1, LANES, begin % LANES, 0, begin >= 0)
        if isinstance(stmt, s.UnaryOp) and stmt.op in (U.cast_value, U.cast_bits):
            same = getattr(stmt.operand.ret_type, "name", "") in ("i32", "u32")
            return self.of(stmt.operand) if same else None
        if isinstance(stmt, s.BinaryOp):
            return self._binary(stmt)
        return None

    def _binary(self, stmt: s.BinaryOp) -> Form | None:
        a, b = self.of(stmt.lhs), self.of(stmt.rhs)
        if a is None or b is None:
            return None
        if stmt.op in (B.add, B.sub):
            return _add(a, b, 1 if stmt.op is B.add else -1)
        if stmt.op is B.mul:
            if _constant(a) is not None:
                return _scale(b, _constant(a))
            return None if _constant(b) is None else _scale(a, _constant(b))
        amount = _constant(b)
        if amount is None:
            return None
        if stmt.op is B.bit_shl and 0 <= amount < 32:
            return _scale(a, 1 << amount)
        if stmt.op in (B.bit_sar, B.bit_shr) and 0 <= amount < 32:
            return _quotient(a, 1 << amount)  # a shift floors, whatever the sign
        if stmt.op is B.bit_and and is_pow2(amount + 1):
            return _remainder(a, amount + 1)  # two's complement: a mask is a floor remainder
        if stmt.op in (B.div, B.mod) and amount > 0 and a.nonneg:  # truncation is floor here
            return (_quotient if stmt.op is B.div else _remainder)(a, amount)
        return None


@dataclass(frozen=True)
class Address:
    """Where a field element lives: buffer, the place SNode, the byte address's form, and the
    bytes of its SNode tree (the end no speculative load may pass)."""

    resource: str
    place: int
    form: Form
    tree_bytes: int


def place_of(ptr: Stmt) -> int | None:
    """The id of the place SNode `ptr` points into (None: not a field element)."""
    return ptr.child.id if isinstance(ptr, s.GetCh) and ptr.child.type == "place" else None


def address(forms: LaneForms, ptr: Stmt) -> Address | None:
    """The `Address` of a field element pointer (`get child [place]` of lookups from a root),
    or None for any other pointer or an index without a form."""
    place = place_of(ptr)
    if place is None:
        return None
    total, tree_bytes = _const(0), 0
    while not isinstance(ptr, s.GetRoot):
        if isinstance(ptr, s.GetCh):
            total = _add(total, _const(ptr.child.offset_in_parent_cell), 1)
        elif isinstance(ptr, s.SNodeLookup):
            index = forms.of(ptr.index)
            if index is None:
                return None
            total = _add(total, _scale(index, ptr.snode.cell_size), 1)
            if ptr.snode.type == "root":
                tree_bytes = ptr.snode.cell_size
        else:
            return None
        ptr = ptr.ptr
    return Address(f"tree{ptr.tree_id}", place, total, tree_bytes)
