from __future__ import annotations

import operator

import numpy as np
import pytest

from tests.passes.golden import check_pass
from tistudio.ir import (
    BinaryOpType,
    Block,
    InternalCompilerError,
    Kernel,
    TernaryOpType,
    normalize_value,
    parse_ir,
    print_ir,
    verify,
)
from tistudio.ir.statements import (
    Alloca,
    ArgLoad,
    BinaryOp,
    Break,
    Const,
    Continue,
    GlobalLoad,
    GlobalStore,
    GlobalTemporary,
    If,
    LocalLoad,
    LocalStore,
    LoopIndex,
    RangeFor,
    TernaryOp,
    While,
)
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PointerType, i32, u1
from tistudio.passes import (
    simplify,
)
from tistudio.passes.context import PassContext


def test_the_group_does_the_work_of_each_of_its_passes():
    # in one loop: a variable read back (store_forwarding, then die drops it), 2 + 3
    # (constant_fold), the same product twice (cse), i * 1 (alg_simp), a product of values from
    # outside the loop (loop_invariant_code_motion) and a difference nobody reads (die);
    # check_pass also runs both kernels and compares what they store
    check_pass(
        simplify,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            <i32> $4 = const 0
            <i32> $5 = const 4
            $6 : for in range($4, $5) reversed=false serialize=true {
              <i32> $7 = loop $6 index 0
              <i32> $8 = local load [$2]
              <i32> $9 = const 2
              <i32> $10 = const 3
              <i32> $11 = add $9 $10
              <i32> $12 = mul $1 $11
              <i32> $13 = mul $1 $11
              <i32> $14 = const 1
              <i32> $15 = mul $7 $14
              <i32> $16 = add $12 $15
              <i32> $17 = add $16 $13
              <i32> $18 = sub $8 $8
              <i32> $19 = add $17 $8
              <*i32> $20 = global ptr [S1place<i32>], index [$7]
              $21 : global store [$20 <- $19]
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = const 0
            <i32> $3 = const 4
            <i32> $4 = const 5
            <i32> $5 = mul $1 $4
            $6 : for in range($2, $3) reversed=false serialize=true {
              <i32> $7 = loop $6 index 0
              <i32> $8 = add $5 $7
              <i32> $9 = add $8 $5
              <i32> $10 = add $9 $0
              <*i32> $11 = global ptr [S1place<i32>], index [$7]
              $12 : global store [$11 <- $10]
            }
        """,
    )


def test_cse_runs_before_alg_simp_in_a_round_so_its_merges_simplify_at_once():
    # `(a + 1) - (a + 1)` is `x - x` only once cse has merged the sums: with cse first, the
    # first run of alg_simp folds it (the order the module docstring argues for)
    kernel = parse_ir(
        """
        kernel {
          <i32> $0 = argload[0]
          <i32> $1 = const 1
          <i32> $2 = add $0 $1
          <i32> $3 = add $0 $1
          <i32> $4 = sub $2 $3
          $5 : return $4
        }
        """
    )
    ran: list[tuple[str, bool]] = []

    def step(module) -> bool:  # noqa: ANN001 — a pass module
        changed = bool(module.run(kernel, PassContext()))
        ran.append((module.__name__.rsplit(".", 1)[-1], changed))
        return changed

    simplify.fixed_point_steps(step)
    first_alg_simp = next(changed for name, changed in ran if name == "alg_simp")
    assert ran[0] == ("cse", True) and first_alg_simp, ran
    assert print_ir(kernel).splitlines()[1:-1] == [
        "  <i32> $0 = const 0",
        "  $1 : return $0",
    ]


def test_simple_kernel_is_left_alone():
    text = """
        <i32> $0 = argload[0]
        <*i32> $1 = global tmp var (offset = 0 B)
        $2 : global store [$1 <- $0]
    """
    check_pass(simplify, before=text, after=text)


def test_lowered_accumulation_loop_simplifies_to_its_essence():
    # `s = 0; for i in range(n): s += x[i] * (2 + 2); out[None] = s`, as lower_ast writes it
    check_pass(
        simplify,
        before="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            <i32> $2 = const 0
            $3 : local store [$1 <- $2]
            <*i32> $4 = alloca
            $5 : local store [$4 <- $0]
            <i32> $6 = const 0
            <i32> $7 = local load [$4]
            $8 : for in range($6, $7) reversed=false serialize=true {
              <i32> $9 = loop $8 index 0
              <*i32> $10 = alloca
              $11 : local store [$10 <- $9]
              <i32> $12 = local load [$10]
              <*i32> $13 = global ptr [S1place<i32>], index [$12]
              <i32> $14 = global load $13
              <i32> $15 = const 2
              <i32> $16 = const 2
              <i32> $17 = add $15 $16
              <i32> $18 = mul $14 $17
              <i32> $19 = local load [$1]
              <i32> $20 = add $19 $18
              $21 : local store [$1 <- $20]
            }
            <i32> $22 = local load [$1]
            <i32> $23 = const 0
            <*i32> $24 = global ptr [S2place<i32>], index [$23]
            $25 : global store [$24 <- $22]
        """,
        after="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            <i32> $2 = const 0
            $3 : local store [$1 <- $2]
            <i32> $4 = const 2
            $5 : for in range($2, $0) reversed=false serialize=true {
              <i32> $6 = loop $5 index 0
              <*i32> $7 = global ptr [S1place<i32>], index [$6]
              <i32> $8 = global load $7
              <i32> $9 = bit_shl $8 $4
              <i32> $10 = local load [$1]
              <i32> $11 = add $10 $9
              $12 : local store [$1 <- $11]
            }
            <i32> $13 = local load [$1]
            <*i32> $14 = global ptr [S2place<i32>], index [$2]
            $15 : global store [$14 <- $13]
        """,
    )


def test_a_difference_that_cse_makes_of_one_value_with_itself_folds_to_zero():
    # `(i + 1) - (i + 1)`: only after cse merges the two sums is it `x - x` for alg_simp, so
    # the group must run alg_simp again after a change by cse (it fails when cse wakes less)
    check_pass(
        simplify,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 1
            <i32> $2 = add $0 $1
            <i32> $3 = const 1
            <i32> $4 = add $0 $3
            <i32> $5 = sub $2 $4
            <*i32> $6 = global tmp var (offset = 0 B)
            $7 : global store [$6 <- $5]
        """,
        after="""
            <i32> $0 = const 0
            <*i32> $1 = global tmp var (offset = 0 B)
            $2 : global store [$1 <- $0]
        """,
    )


def test_a_group_that_never_settles_is_a_compiler_bug(monkeypatch):
    class Restless:
        __name__ = "restless"

        @staticmethod
        def run(kernel, ctx):
            return True

    class AlsoRestless(Restless):
        __name__ = "also_restless"

    # two of them: a pass's own change does not call for it again (the passes are idempotent),
    # but each one's change calls for the other
    monkeypatch.setattr(simplify, "SIMPLIFY_PASSES", (Restless, AlsoRestless))
    kernel = Kernel("k", Block([Const(1, ret_type=i32)]))
    with pytest.raises(InternalCompilerError):
        simplify.run(kernel, PassContext())


# --- semantics: random programs with variables, branches and loops, run before and after ------


def c_div(a: int, b: int) -> int:
    """C division; x / 0 and INT_MIN / -1 are 0, as docs/compiler-contract.md defines them."""
    if b == 0 or (a == -(2**31) and b == -1):
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a: int, b: int) -> int:
    return 0 if b == 0 else a - b * c_div(a, b)


INT_OPS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": c_div,
    "mod": c_mod,
    "max": max,
    "min": min,
    "bit_and": operator.and_,
    "bit_or": operator.or_,
    "bit_xor": operator.xor,
    "bit_shl": lambda a, b: a << (b % 32),
    "bit_sar": lambda a, b: a >> (b % 32),
    "bit_shr": lambda a, b: (a & 0xFFFFFFFF) >> (b % 32),
    "cmp_lt": operator.lt,
    "cmp_le": operator.le,
    "cmp_ge": operator.ge,
    "cmp_eq": operator.eq,
    "cmp_ne": operator.ne,
}


class Machine:
    """A small reference interpreter for i32 programs (locals start at 0, as in Taichi)."""

    def __init__(self, args: list[int]) -> None:
        self.args, self.values, self.memory = args, {}, {}
        self.index: dict[Stmt, int] = {}
        self.steps = 0

    def block(self, block: Block) -> str | None:
        for stmt in block:
            self.steps += 1
            assert self.steps < 100_000, "runaway program"
            signal = self.stmt(stmt)
            if signal:
                return signal
        return None

    def stmt(self, s: Stmt) -> str | None:
        v = self.values
        if isinstance(s, If):
            return self.block(s.true_block if v[s.cond] else s.false_block)
        if isinstance(s, (RangeFor, While)):
            return self.loop(s)
        if isinstance(s, (Break, Continue)):
            return type(s).__name__.lower()
        if isinstance(s, (LocalStore, GlobalStore)):
            self.memory[v[s.ptr]] = v[s.value]
        elif isinstance(s, (LocalLoad, GlobalLoad)):
            v[s] = self.memory.get(v[s.ptr], 0)
        else:
            v[s] = self.value(s)
        return None

    def loop(self, s: RangeFor | While) -> str | None:
        count = range(self.values[s.begin], self.values[s.end]) if isinstance(s, RangeFor) else None
        i = 0
        while count is None or i < len(count):
            if count is not None:
                self.index[s] = count[i]
            i += 1
            if self.block(s.body) == "break":
                return None
        return None

    def value(self, s: Stmt) -> object:
        v = self.values
        if isinstance(s, Const):
            return s.value
        if isinstance(s, ArgLoad):
            return self.args[s.arg_id]
        if isinstance(s, LoopIndex):
            return self.index[s.loop]
        if isinstance(s, Alloca):
            return s  # a variable's address: the statement itself
        if isinstance(s, GlobalTemporary):
            return ("gtmp", s.offset)
        if isinstance(s, TernaryOp):
            return v[s.a] if v[s.cond] else v[s.b]
        result = INT_OPS[s.op.value](v[s.lhs], v[s.rhs])
        return normalize_value(result, s.ret_type)

    def run(self, kernel: Kernel) -> list[object]:
        self.block(kernel.body)
        return sorted((k[1], v) for k, v in self.memory.items() if isinstance(k, tuple))


class ProgramGenerator:
    """Random i32 programs: variables, arithmetic, branches, loops, break and continue."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.vars: list[Stmt] = []
        self.outputs = 0

    def pick(self, items: list) -> object:
        return items[self.rng.integers(len(items))]

    def kernel(self) -> Kernel:
        body = Block()
        seeds = [Const(c, ret_type=i32) for c in (0, 1, 2, 3, -1, 8)]
        seeds += [ArgLoad(0, ret_type=i32), ArgLoad(1, ret_type=i32)]
        body.extend(seeds)
        self.vars = [body.append(Alloca(ret_type=PointerType(i32))) for _ in range(3)]
        body.append(LocalStore(self.vars[0], seeds[6]))
        self.block(body, list(seeds), depth=0, in_loop=False)
        for var in self.vars:
            self.output(body, body.append(LocalLoad(var, ret_type=i32)))
        return Kernel("k", body)

    def output(self, block: Block, value: Stmt) -> None:
        slot = block.append(GlobalTemporary(4 * self.outputs, ret_type=PointerType(i32)))
        block.append(GlobalStore(slot, value))
        self.outputs += 1

    def expr(self, block: Block, visible: list[Stmt]) -> Stmt:
        kind = self.rng.integers(8)
        a, b = self.pick(visible), self.pick(visible)
        if kind == 0:
            return block.append(LocalLoad(self.pick(self.vars), ret_type=i32))
        if kind == 1:
            cond = self.cond(block, visible)
            return block.append(TernaryOp(TernaryOpType.select, cond, a, b, ret_type=i32))
        op = BinaryOpType(self.pick([k for k in INT_OPS if not k.startswith("cmp")]))
        return block.append(BinaryOp(op, a, a if kind == 2 else b, ret_type=i32))

    def cond(self, block: Block, visible: list[Stmt]) -> Stmt:
        op = BinaryOpType(self.pick([k for k in INT_OPS if k.startswith("cmp")]))
        return block.append(BinaryOp(op, self.pick(visible), self.pick(visible), ret_type=u1))

    def block(self, block: Block, visible: list[Stmt], depth: int, in_loop: bool) -> None:
        for _ in range(self.rng.integers(1, 6)):
            kind = self.rng.integers(10 if depth < 3 else 6)
            if kind <= 2:
                value = self.expr(block, visible)
                visible.append(value)
                block.append(LocalStore(self.pick(self.vars), value))
            elif kind == 3:
                visible.append(self.expr(block, visible))
            elif kind == 4:
                self.output(block, self.pick(visible))
            elif kind == 5 and in_loop:
                jump = If(self.cond(block, visible))
                jump.true_block.append(Break() if self.rng.integers(2) else Continue())
                block.append(jump)
            elif kind in (6, 7):
                branch = block.append(If(self.cond(block, visible)))
                self.block(branch.true_block, list(visible), depth + 1, in_loop)
                self.block(branch.false_block, list(visible), depth + 1, in_loop)
            elif kind == 8:
                self.range_for(block, visible, depth)
            elif kind == 9:
                self.while_loop(block, visible, depth)

    def range_for(self, block: Block, visible: list[Stmt], depth: int) -> None:
        begin = block.append(Const(int(self.rng.integers(-1, 2)), ret_type=i32))
        end = block.append(Const(int(self.rng.integers(0, 4)), ret_type=i32))
        loop = block.append(RangeFor(begin, end, serialize=True))
        index = loop.body.append(LoopIndex(loop, ret_type=i32))
        self.block(loop.body, [*visible, index], depth + 1, in_loop=True)

    def while_loop(self, block: Block, visible: list[Stmt], depth: int) -> None:
        """`n = 0; while True: if n >= 3: break; n += 1; ...` so that it always ends."""
        counter = block.append(Alloca(ret_type=PointerType(i32)))
        zero, one, three = (block.append(Const(c, ret_type=i32)) for c in (0, 1, 3))
        block.append(LocalStore(counter, zero))
        loop = block.append(While())
        body = loop.body
        n = body.append(LocalLoad(counter, ret_type=i32))
        done = body.append(BinaryOp(BinaryOpType.cmp_ge, n, three, ret_type=u1))
        body.append(If(done)).true_block.append(Break())
        body.append(
            LocalStore(counter, body.append(BinaryOp(BinaryOpType.add, n, one, ret_type=i32)))
        )
        self.block(loop.body, [*visible, n], depth + 1, in_loop=True)


@pytest.mark.parametrize("seed", range(16))
def test_random_programs_compute_the_same_after_simplify(seed):
    rng = np.random.default_rng(seed)
    arg_sets = [[0, 0], [5, -3], [2**31 - 1, -(2**31)], [7, 31]]
    for _ in range(40):
        kernel = ProgramGenerator(rng).kernel()
        verify(kernel)
        before = print_ir(kernel)
        want = [Machine(args).run(kernel) for args in arg_sets]
        simplify.run(kernel, PassContext())
        verify(kernel, after="simplify")
        got = [Machine(args).run(kernel) for args in arg_sets]
        assert got == want, f"\n{before}\n--- after ---\n{print_ir(kernel)}"


@pytest.mark.parametrize("seed", range(8))
def test_every_pass_is_idempotent_on_random_programs(seed):
    """`fixed_point_steps` does not run a pass again after its own change: that is right only
    while a second run right after a changing one finds nothing more to do."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        kernel = ProgramGenerator(rng).kernel()
        for _ in range(12):
            module = simplify.SIMPLIFY_PASSES[int(rng.integers(0, len(simplify.SIMPLIFY_PASSES)))]
            if module.run(kernel, PassContext()):
                text = print_ir(kernel)
                assert not module.run(kernel, PassContext()), f"{module.__name__}:\n{text}"


@pytest.mark.parametrize("seed", range(8))
def test_the_group_stops_at_a_fixed_point_of_every_pass(seed):
    """After the group, no pass finds anything to do: the passes that a change wakes
    (`simplify._WAKES`: after `die` only `store_forwarding`, after loop-invariant code motion
    only `cse`, ...) are all that can find more to do."""
    rng = np.random.default_rng(200 + seed)
    for _ in range(40):
        kernel = ProgramGenerator(rng).kernel()
        simplify.run(kernel, PassContext())
        text = print_ir(kernel)
        for module in simplify.SIMPLIFY_PASSES:
            assert not module.run(kernel, PassContext()), f"{module.__name__}:\n{text}"
