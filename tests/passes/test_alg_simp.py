from __future__ import annotations

import numpy as np
import pytest

from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, Block, Kernel, TernaryOpType, UnaryOpType, print_ir, verify
from tistudio.ir.statements import ArgLoad, BinaryOp, Const, Return, TernaryOp, UnaryOp, const_of
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import PrimitiveType, f32, f64, i8, i32, i64, u1, u8, u32
from tistudio.passes import alg_simp
from tistudio.passes.context import PassContext

# Six values $0..$5 to build on; the statement under test is $6 and is returned by $7.
PRELUDE = {
    "i32": ["argload[0]", "argload[1]", "const 0", "const 1", "const -1", "const 8"],
    "u8": ["argload[0]", "argload[1]", "const 0", "const 1", "const 255", "const 128"],
    "f32": ["argload[0]", "argload[1]", "const 0.0", "const 1.0", "const -0.0", "const 2.0"],
}


def prelude(t: str) -> list[str]:
    return [f"<{t}> ${i} = {text}" for i, text in enumerate(PRELUDE[t])]


def simplifies(t: str, stmt: str, to: str) -> None:
    """`stmt` ($6, over the prelude of type `t`) becomes `to`: an operand `$k` or new lines."""
    before = [*prelude(t), stmt, "$7 : return $6"]
    if to.startswith("$"):
        after = [*prelude(t), f"$6 : return {to}"]
    else:
        new = [line.strip() for line in to.strip().splitlines()]
        after = [*prelude(t), *new, f"${6 + len(new)} : return ${5 + len(new)}"]
    check_pass(alg_simp, before="\n".join(before), after="\n".join(after))


def stays(t: str, stmt: str) -> None:
    text = "\n".join([*prelude(t), stmt, "$7 : return $6"])
    check_pass(alg_simp, before=text, after=text)


@pytest.mark.parametrize(
    "stmt",
    [
        "<i32> $6 = add $0 $1",
        "<i32> $6 = mul $0 $1",
        "<i32> $6 = div $3 $0",  # 1 / x
        "<i32> $6 = sub $2 $0",  # 0 - x is -x, not x
        "<i32> $6 = bit_or $0 $4",
        "<i32> $6 = bit_shl $0 $3",
        "<i32> $6 = neg $0",
        "<u1> $6 = cmp_lt $0 $1",
    ],
)
def test_nothing_to_simplify(stmt):
    stays("i32", stmt)


@pytest.mark.parametrize(
    "stmt, to",
    [
        ("<i32> $6 = add $0 $2", "$0"),  # x + 0
        ("<i32> $6 = add $2 $0", "$0"),  # 0 + x
        ("<i32> $6 = sub $0 $2", "$0"),  # x - 0
        ("<i32> $6 = sub $0 $0", "<i32> $6 = const 0"),  # x - x
        ("<i32> $6 = mul $0 $3", "$0"),  # x * 1
        ("<i32> $6 = mul $3 $0", "$0"),  # 1 * x
        ("<i32> $6 = mul $0 $2", "<i32> $6 = const 0"),  # x * 0
        ("<i32> $6 = mul $2 $0", "<i32> $6 = const 0"),  # 0 * x
        ("<i32> $6 = div $0 $3", "$0"),  # x / 1
        ("<i32> $6 = bit_and $0 $0", "$0"),
        ("<i32> $6 = bit_or $0 $0", "$0"),
        ("<i32> $6 = bit_and $0 $2", "<i32> $6 = const 0"),
        ("<i32> $6 = bit_and $2 $0", "<i32> $6 = const 0"),
        ("<i32> $6 = bit_and $0 $4", "$0"),  # x & -1
        ("<i32> $6 = bit_or $0 $2", "$0"),
        ("<i32> $6 = bit_or $2 $0", "$0"),
        ("<i32> $6 = bit_xor $0 $2", "$0"),
        ("<i32> $6 = bit_xor $0 $0", "<i32> $6 = const 0"),
        ("<i32> $6 = bit_shl $0 $2", "$0"),
        ("<i32> $6 = bit_shr $0 $2", "$0"),
        ("<i32> $6 = bit_sar $0 $2", "$0"),
        ("<i32> $6 = max $0 $0", "$0"),
        ("<i32> $6 = min $1 $1", "$1"),
        ("<u1> $6 = cmp_eq $0 $0", "<u1> $6 = const true"),
        ("<u1> $6 = cmp_le $0 $0", "<u1> $6 = const true"),
        ("<u1> $6 = cmp_ge $0 $0", "<u1> $6 = const true"),
        ("<u1> $6 = cmp_ne $0 $0", "<u1> $6 = const false"),
        ("<u1> $6 = cmp_lt $0 $0", "<u1> $6 = const false"),
        ("<u1> $6 = cmp_gt $0 $0", "<u1> $6 = const false"),
        ("<i32> $6 = cast_value<i32> $0", "$0"),
        ("<i32> $6 = reinterpret_cast_bits<i32> $0", "$0"),
    ],
)
def test_integer_rule(stmt, to):
    simplifies("i32", stmt, to)


@pytest.mark.parametrize(
    "stmt, to",
    [
        ("<i32> $6 = mul $0 $5", "<i32> $6 = const 3\n<i32> $7 = bit_shl $0 $6"),  # x * 8
        ("<i32> $6 = mul $5 $1", "<i32> $6 = const 3\n<i32> $7 = bit_shl $1 $6"),  # 8 * x
    ],
)
def test_multiplication_by_a_power_of_two_becomes_a_shift(stmt, to):
    simplifies("i32", stmt, to)


def test_multiplication_by_int_min_is_a_shift_by_31():
    check_pass(
        alg_simp,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const -2147483648
            <i32> $2 = mul $0 $1
            $3 : return $2
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const -2147483648
            <i32> $2 = const 31
            <i32> $3 = bit_shl $0 $2
            $4 : return $3
        """,
    )


def test_multiplication_by_other_constants_stays():
    check_pass(
        alg_simp,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 6
            <i32> $2 = mul $0 $1
            <i32> $3 = const -8
            <i32> $4 = mul $0 $3
            $5 : return $2, $4
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 6
            <i32> $2 = mul $0 $1
            <i32> $3 = const -8
            <i32> $4 = mul $0 $3
            $5 : return $2, $4
        """,
    )


@pytest.mark.parametrize(
    "stmt, to",
    [
        ("<u8> $6 = mul $0 $5", "<u8> $6 = const 7\n<u8> $7 = bit_shl $0 $6"),  # x * 128
        ("<u8> $6 = bit_and $0 $4", "$0"),  # x & 255
        ("<u8> $6 = sub $0 $0", "<u8> $6 = const 0"),
        ("<u1> $6 = cmp_ge $1 $1", "<u1> $6 = const true"),
    ],
)
def test_u8_rule(stmt, to):
    simplifies("u8", stmt, to)


def test_shift_by_a_multiple_of_the_width_is_no_shift():
    check_pass(
        alg_simp,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 32
            <i32> $2 = bit_shl $0 $1
            <i32> $3 = const 33
            <i32> $4 = bit_sar $0 $3
            $5 : return $2, $4
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 32
            <i32> $2 = const 33
            <i32> $3 = bit_sar $0 $2
            $4 : return $0, $3
        """,
    )


@pytest.mark.parametrize(
    "stmt, to",
    [
        ("<f32> $6 = mul $0 $3", "$0"),  # x * 1.0
        ("<f32> $6 = mul $3 $0", "$0"),  # 1.0 * x
        ("<f32> $6 = div $0 $3", "$0"),  # x / 1.0
        ("<f32> $6 = max $0 $0", "$0"),
        ("<f32> $6 = cast_value<f32> $0", "$0"),
    ],
)
def test_float_rule(stmt, to):
    simplifies("f32", stmt, to)


@pytest.mark.parametrize(
    "stmt",
    [
        "<f32> $6 = add $0 $2",  # -0.0 + 0.0 is 0.0
        "<f32> $6 = add $0 $4",
        "<f32> $6 = sub $0 $2",
        "<f32> $6 = sub $0 $0",  # inf - inf is NaN
        "<f32> $6 = mul $0 $2",  # NaN * 0 is NaN
        "<f32> $6 = mul $0 $5",  # no shifts for floats
        "<u1> $6 = cmp_eq $0 $0",  # NaN != NaN
        "<u1> $6 = cmp_ne $0 $0",
    ],
)
def test_float_identities_that_fail_for_some_ieee_values_are_not_used(stmt):
    stays("f32", stmt)


def test_double_negation():
    check_pass(
        alg_simp,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = neg $0
            <i32> $2 = neg $1
            <i32> $3 = bit_not $0
            <i32> $4 = bit_not $3
            <i32> $5 = bit_not $1
            $6 : return $2, $4, $5
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = neg $0
            <i32> $2 = bit_not $0
            <i32> $3 = bit_not $1
            $4 : return $0, $0, $3
        """,
    )


def test_select():
    check_pass(
        alg_simp,
        before="""
            <u1> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = argload[2]
            <i32> $3 = select($0, $1, $1)
            <u1> $4 = const true
            <i32> $5 = select($4, $1, $2)
            <u1> $6 = const false
            <i32> $7 = select($6, $1, $2)
            <i32> $8 = select($0, $1, $2)
            $9 : return $3, $5, $7, $8
        """,
        after="""
            <u1> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = argload[2]
            <u1> $3 = const true
            <u1> $4 = const false
            <i32> $5 = select($0, $1, $2)
            $6 : return $1, $1, $2, $5
        """,
    )


def test_a_chain_collapses_in_one_run_inside_a_loop():
    check_pass(
        alg_simp,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 1
            <i32> $2 = argload[0]
            $3 : for in range($0, $2) reversed=false serialize=false {
              <i32> $4 = loop $3 index 0
              <i32> $5 = add $4 $0
              <i32> $6 = mul $5 $1
              <i32> $7 = sub $6 $6
              <*i32> $8 = global ptr [S1place<i32>], index [$6]
              $9 : global store [$8 <- $7]
            }
        """,
        after="""
            <i32> $0 = const 0
            <i32> $1 = const 1
            <i32> $2 = argload[0]
            $3 : for in range($0, $2) reversed=false serialize=false {
              <i32> $4 = loop $3 index 0
              <i32> $5 = const 0
              <*i32> $6 = global ptr [S1place<i32>], index [$4]
              $7 : global store [$6 <- $5]
            }
        """,
    )


# --- semantics: random expressions, evaluated before and after the pass ------------------------


def c_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's truncating division; x / 0 is 0, as the back ends define it."""
    if a.dtype.kind == "f":
        return a / b
    safe = np.where(b == 0, 1, b).astype(a.dtype)
    q = a // safe + ((a % safe != 0) & ((a < 0) != (safe < 0))).astype(a.dtype)
    return np.where(b == 0, 0, q).astype(a.dtype)


def shift(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bits = a.dtype.itemsize * 8
    s = (b.astype(np.int64) % bits).astype(a.dtype)
    if op == "bit_shl":
        return np.left_shift(a, s)
    view = np.dtype(f"uint{bits}" if op == "bit_shr" else f"int{bits}")
    return np.right_shift(a.view(view), s.astype(view)).view(a.dtype)


NUMPY_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": c_div,
    "max": np.maximum,
    "min": np.minimum,
    "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or,
    "bit_xor": np.bitwise_xor,
    "cmp_eq": np.equal,
    "cmp_ne": np.not_equal,
    "cmp_lt": np.less,
    "cmp_le": np.less_equal,
    "cmp_gt": np.greater,
    "cmp_ge": np.greater_equal,
}


NUMPY_UNARY = {"neg": np.negative, "bit_not": np.invert}


def evaluate(kernel: Kernel, args: list[np.ndarray]) -> list[np.ndarray]:
    """Run a straight-line kernel on arrays of arguments; return what it returns."""
    values: dict[Stmt, np.ndarray] = {}
    n = len(args[0])
    for stmt in kernel.body:
        if isinstance(stmt, Return):
            return [values[v] for v in stmt.values]
        dtype = np.dtype(stmt.ret_type.numpy_name)
        if isinstance(stmt, Const):
            values[stmt] = np.full(n, stmt.value, dtype=dtype)
        elif isinstance(stmt, ArgLoad):
            values[stmt] = args[stmt.arg_id]
        elif isinstance(stmt, UnaryOp):
            x = values[stmt.operand]
            values[stmt] = NUMPY_UNARY[stmt.op.value](x)
        elif isinstance(stmt, TernaryOp):
            values[stmt] = np.where(values[stmt.cond], values[stmt.a], values[stmt.b])
        elif stmt.op.is_shift:
            values[stmt] = shift(stmt.op.value, values[stmt.lhs], values[stmt.rhs])
        else:
            values[stmt] = NUMPY_BINARY[stmt.op.value](values[stmt.lhs], values[stmt.rhs])
    raise AssertionError("kernel does not return")


def special_constants(t: PrimitiveType) -> list[object]:
    if t.is_float:
        return [0.0, -0.0, 1.0, -1.0, 2.0, 0.5]
    top = 1 << (t.bits - 1)
    return [0, 1, -1, 2, 4, 8, 3, top, top - 1, 2 * top, 2 * top + 1, t.bits]


def random_kernel(rng: np.random.Generator, t: PrimitiveType) -> Kernel:
    """Random expressions over two arguments and special constants, with shared subterms."""
    ops = ["add", "sub", "mul", "div", "max", "min", "cmp_eq", "cmp_lt", "cmp_ge", "cmp_ne"]
    if not t.is_float:
        ops += ["bit_and", "bit_or", "bit_xor", "bit_shl", "bit_shr", "bit_sar"]
    stmts: list[Stmt] = [ArgLoad(0, ret_type=t), ArgLoad(1, ret_type=t)]
    stmts += [const_of(v, t) for v in special_constants(t)]
    conds = [ArgLoad(2, ret_type=u1)]
    stmts.append(conds[0])
    for _ in range(25):
        pool = [s for s in stmts if s.ret_type == t]
        a, b = pool[rng.integers(len(pool))], pool[rng.integers(len(pool))]
        kind = rng.integers(6)
        if kind == 0:
            op = UnaryOpType.neg if t.is_float or rng.integers(2) else UnaryOpType.bit_not
            new = UnaryOp(op, a, ret_type=t)
        elif kind == 1:
            new = TernaryOp(TernaryOpType.select, conds[rng.integers(len(conds))], a, b, ret_type=t)
        else:
            op = BinaryOpType(rng.choice(ops))
            new = BinaryOp(op, a, a if kind == 2 else b, ret_type=u1 if op.is_comparison else t)
        stmts.append(new)
        if new.ret_type == u1:
            conds.append(new)
    results = [s for s in stmts if isinstance(s, (UnaryOp, BinaryOp, TernaryOp))]
    return Kernel("k", Block([*stmts, Return(results)]))


def random_args(rng: np.random.Generator, t: PrimitiveType, n: int = 64) -> list[np.ndarray]:
    if t.is_float:
        specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0]
        x = np.concatenate([specials, rng.normal(scale=100, size=n - len(specials))])
    else:
        info = np.iinfo(t.numpy_name)
        edges = [info.min, info.max, 0, -1, 1]
        x = np.concatenate([edges, rng.integers(info.min, info.max, n - len(edges))])
    x = x.astype(t.numpy_name)
    return [x, rng.permutation(x), rng.integers(0, 2, n).astype(bool)]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        same = a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")
        return bool(np.all(same | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


@pytest.mark.parametrize("t", [i8, u8, i32, u32, i64, f32, f64], ids=str)
def test_random_expressions_compute_the_same_after_simplification(t):
    rng = np.random.default_rng(2024)
    fired = 0
    for _ in range(30):
        kernel = random_kernel(rng, t)
        args = random_args(rng, t)
        with np.errstate(all="ignore"):
            want = evaluate(kernel, args)
            before = print_ir(kernel)
            alg_simp.run(kernel, PassContext())
            verify(kernel)
            fired += print_ir(kernel) != before
            got = evaluate(kernel, args)
        for w, g in zip(want, got):
            assert same_bits(w, g), print_ir(kernel)
    assert fired >= 20  # the random expressions do exercise the rules
