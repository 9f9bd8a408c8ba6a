from __future__ import annotations

import math

import numpy as np
import pytest

import tistudio as ti
from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, Block, Kernel, SourceLoc, UnaryOpType, interpreter_ops
from tistudio.ir.statements import BinaryOp, Const, Return, UnaryOp, const_of
from tistudio.ir.types import PRIMITIVE_TYPES, PrimitiveType, f32, f64, i32, u1
from tistudio.passes import constant_fold
from tistudio.passes.context import PassContext


def fold(before: str, result: str) -> None:
    """Check that the last value statement of `before` folds to the constant line `result`.

    `before` defines its values as $0..$n-1 and ends with the statement to fold as $n; the
    expected IR keeps every input and puts `result` in place of $n, still returned.
    """
    lines = [ln.strip() for ln in before.strip().splitlines()]
    n = len(lines) - 1
    text = "\n".join(lines)
    check_pass(
        constant_fold,
        before=f"{text}\n${n + 1} : return ${n}",
        after="\n".join(lines[:-1]) + f"\n{result}\n${n + 1} : return ${n}",
    )


def unchanged(before: str) -> None:
    lines = [ln.strip() for ln in before.strip().splitlines()]
    text = "\n".join(lines) + f"\n${len(lines)} : return ${len(lines) - 1}"
    check_pass(constant_fold, before=text, after=text)


# --- golden cases -----------------------------------------------------------------------------


def test_non_constant_operands_are_left_alone():
    unchanged("""
        <i32> $0 = argload[0]
        <i32> $1 = const 2
        <i32> $2 = add $0 $1
    """)


def test_add_of_two_constants():
    fold("<i32> $0 = const 2\n<i32> $1 = const 3\n<i32> $2 = add $0 $1", "<i32> $2 = const 5")


def test_i32_add_wraps_around():
    fold(
        "<i32> $0 = const 2147483647\n<i32> $1 = const 1\n<i32> $2 = add $0 $1",
        "<i32> $2 = const -2147483648",
    )


@pytest.mark.parametrize(
    "op, a, b, want",
    [("add", 200, 100, 44), ("sub", 1, 2, 255), ("mul", 16, 17, 16), ("div", 255, 2, 127)],
)
def test_u8_arithmetic_wraps(op, a, b, want):
    fold(
        f"<u8> $0 = const {a}\n<u8> $1 = const {b}\n<u8> $2 = {op} $0 $1",
        f"<u8> $2 = const {want}",
    )


def test_i64_multiplication_wraps_at_64_bits():
    a, b = 3037000500, 3037000500  # a * b is just over 2**63
    want = (a * b + 2**63) % 2**64 - 2**63
    fold(
        f"<i64> $0 = const {a}\n<i64> $1 = const {b}\n<i64> $2 = mul $0 $1",
        f"<i64> $2 = const {want}",
    )


@pytest.mark.parametrize(
    "op, a, b, want",
    [("div", -7, 2, -3), ("div", 7, -2, -3), ("mod", -7, 2, -1), ("mod", 7, -2, 1)],
)
def test_integer_div_and_mod_truncate_like_c(op, a, b, want):
    fold(
        f"<i32> $0 = const {a}\n<i32> $1 = const {b}\n<i32> $2 = {op} $0 $1",
        f"<i32> $2 = const {want}",
    )


@pytest.mark.parametrize("op, a, b", [("div", 5, 0), ("mod", 5, 0), ("div", -2147483648, -1)])
def test_division_the_back_end_must_define_is_not_folded(op, a, b):
    unchanged(f"<i32> $0 = const {a}\n<i32> $1 = const {b}\n<i32> $2 = {op} $0 $1")


def test_int_min_mod_minus_one_is_zero():
    fold(
        "<i32> $0 = const -2147483648\n<i32> $1 = const -1\n<i32> $2 = mod $0 $1",
        "<i32> $2 = const 0",
    )


@pytest.mark.parametrize("op", ["floordiv", "truediv", "pow", "logical_and"])
def test_operators_with_python_semantics_are_not_folded(op):
    unchanged(f"<i32> $0 = const -7\n<i32> $1 = const 2\n<i32> $2 = {op} $0 $1")


def test_f32_addition_is_rounded_to_f32():
    want = float(np.float32(0.1) + np.float32(0.2))
    assert want != 0.1 + 0.2
    fold(
        "<f32> $0 = const 0.1\n<f32> $1 = const 0.2\n<f32> $2 = add $0 $1",
        f"<f32> $2 = const {want!r}",
    )


def test_f64_addition_keeps_double_precision():
    fold(
        "<f64> $0 = const 0.1\n<f64> $1 = const 0.2\n<f64> $2 = add $0 $1",
        f"<f64> $2 = const {0.1 + 0.2!r}",
    )


def test_f16_is_not_folded():
    unchanged("<f16> $0 = const 0.5\n<f16> $1 = const 0.25\n<f16> $2 = add $0 $1")


def test_float_division_by_zero_is_ieee_infinity():
    fold(
        "<f32> $0 = const -1.0\n<f32> $1 = const 0.0\n<f32> $2 = div $0 $1", "<f32> $2 = const -inf"
    )


@pytest.mark.parametrize(
    "op, want", [("cmp_lt", "true"), ("cmp_ge", "false"), ("cmp_eq", "false"), ("cmp_ne", "true")]
)
def test_comparisons_give_u1(op, want):
    fold(
        f"<i32> $0 = const -1\n<i32> $1 = const 1\n<u1> $2 = {op} $0 $1", f"<u1> $2 = const {want}"
    )


def test_unsigned_comparison_uses_the_unsigned_value():
    fold(
        "<u32> $0 = const 4294967295\n<u32> $1 = const 1\n<u1> $2 = cmp_gt $0 $1",
        "<u1> $2 = const true",
    )


def test_comparison_with_nan_is_not_folded():
    unchanged("<f32> $0 = const nan\n<f32> $1 = const 1.0\n<u1> $2 = cmp_ne $0 $1")


@pytest.mark.parametrize(
    "op, a, b, want",
    [
        ("bit_shl", 1, 33, 2),  # the amount is taken modulo 32
        ("bit_shr", -8, 1, 2147483644),  # logical: zeros come in
        ("bit_sar", -8, 1, -4),  # arithmetic: the sign comes in
        ("bit_sar", -8, -31, -4),  # -31 mod 32 is 1
        ("bit_shl", 3, 31, -2147483648),
    ],
)
def test_i32_shifts(op, a, b, want):
    fold(
        f"<i32> $0 = const {a}\n<i32> $1 = const {b}\n<i32> $2 = {op} $0 $1",
        f"<i32> $2 = const {want}",
    )


def test_arithmetic_shift_of_unsigned_is_logical_as_the_back_ends_shift():
    # `>>` on an unsigned type brings in zeros (LLVM `lshr`, Taichi's rule); folding it as an
    # arithmetic shift made `u8(200) >> 1` 228 at compile time but 100 at run time (fuzzing)
    fold("<u8> $0 = const 128\n<u8> $1 = const 1\n<u8> $2 = bit_sar $0 $1", "<u8> $2 = const 64")
    fold(
        "<u64> $0 = const 18446744073709551615\n<u64> $1 = const 63\n<u64> $2 = bit_sar $0 $1",
        "<u64> $2 = const 1",
    )


def test_unsigned_shift_folds_as_it_runs():
    ti.init(offline_cache=False)

    @ti.kernel
    def folded() -> ti.u8:
        return ti.cast(200, ti.u8) >> ti.cast(1, ti.u8)

    @ti.kernel
    def at_run_time(a: ti.u8) -> ti.u8:
        return a >> ti.cast(1, ti.u8)

    assert folded() == at_run_time(200) == 100


@pytest.mark.parametrize(
    "src, value, dst, want",
    [
        ("f32", "-2.7", "i32", "-2"),  # truncates toward zero
        ("f64", "2.9", "u8", "2"),
        ("i32", "300", "u8", "44"),  # wraps
        ("i8", "-1", "i32", "-1"),  # sign-extends
        ("u8", "255", "i32", "255"),  # zero-extends
        ("i32", "-1", "u32", "4294967295"),
        ("i32", "16777217", "f32", "16777216.0"),  # rounds to the nearest f32
        ("f64", "0.1", "f32", repr(float(np.float32(0.1)))),
        ("f32", "0.5", "u1", "true"),  # to u1 means != 0
        ("i32", "0", "u1", "false"),
        ("u1", "true", "f32", "1.0"),
    ],
)
def test_cast_value(src, value, dst, want):
    fold(
        f"<{src}> $0 = const {value}\n<{dst}> $1 = cast_value<{dst}> $0",
        f"<{dst}> $1 = const {want}",
    )


@pytest.mark.parametrize(
    "src, value, dst, want",
    [
        ("f32", "3e9", "i32", str(2**31 - 1)),
        ("f32", "-1.0", "u32", str(2**32 - 1)),
        ("f64", "inf", "i64", str(2**63 - 1)),
        ("f64", "nan", "i32", "0"),
        ("f32", "1e30", "i8", "-1"),
    ],
)
def test_out_of_range_float_to_int_cast_folds_to_what_the_back_ends_compute(src, value, dst, want):
    """Saturating as LLVM's fptosi.sat (narrow types in i32, u32 in i64, then wrapped), which
    the WGSL back end reproduces; left unfolded, a constant 1e30 reached WGSL as `i32(1e30)`,
    which naga refuses to compile."""
    fold(
        f"<{src}> $0 = const {value}\n<{dst}> $1 = cast_value<{dst}> $0",
        f"<{dst}> $1 = const {want}",
    )


@pytest.mark.parametrize(
    "src, value, dst, want",
    [
        ("f32", "1.0", "i32", "1065353216"),
        ("i32", "-1082130432", "f32", "-1.0"),
        ("f64", "-0.0", "u64", str(2**63)),
        ("i16", "-1", "u16", "65535"),
    ],
)
def test_reinterpret_cast_bits(src, value, dst, want):
    fold(
        f"<{src}> $0 = const {value}\n<{dst}> $1 = reinterpret_cast_bits<{dst}> $0",
        f"<{dst}> $1 = const {want}",
    )


def test_bit_cast_to_nan_is_not_folded():
    unchanged("<i32> $0 = const -1\n<f32> $1 = reinterpret_cast_bits<f32> $0")


@pytest.mark.parametrize(
    "t, op, value, want",
    [
        ("u8", "neg", "1", "255"),
        ("i32", "abs", "-2147483648", "-2147483648"),
        ("i32", "sgn", "-5", "-1"),
        ("i16", "bit_not", "0", "-1"),
        ("i32", "popcnt", "-1", "32"),
        ("u8", "clz", "1", "7"),
        ("i64", "clz", "-1", "0"),
        ("f32", "neg", "0.0", "-0.0"),
        ("f32", "floor", "-1.5", "-2.0"),
        ("f32", "sqrt", "2.0", repr(float(np.sqrt(np.float32(2))))),
        ("f64", "sqrt", "2.0", repr(math.sqrt(2))),
        ("f32", "rsqrt", "4.0", "0.5"),
        ("f64", "sin", "1.0", repr(float(np.sin(1.0)))),
        ("f32", "exp", "1.0", repr(float(np.exp(np.float32(1))))),
    ],
)
def test_unary_ops(t, op, value, want):
    fold(f"<{t}> $0 = const {value}\n<{t}> $1 = {op} $0", f"<{t}> $1 = const {want}")


@pytest.mark.parametrize("t, op", [("f32", "round"), ("f32", "sgn"), ("u1", "neg")])
def test_unary_ops_without_exact_meaning_are_not_folded(t, op):
    value = "true" if t == "u1" else "2.5"
    unchanged(f"<{t}> $0 = const {value}\n<{t}> $1 = {op} $0")


def test_logic_not():
    fold("<i32> $0 = const 0\n<i32> $1 = logic_not $0", "<i32> $1 = const 1")


def test_float_max_of_nan_or_opposite_zeros_is_not_folded():
    unchanged("<f32> $0 = const nan\n<f32> $1 = const 1.0\n<f32> $2 = max $0 $1")
    unchanged("<f32> $0 = const -0.0\n<f32> $1 = const 0.0\n<f32> $2 = min $0 $1")
    fold(
        "<f32> $0 = const -3.0\n<f32> $1 = const 1.0\n<f32> $2 = max $0 $1", "<f32> $2 = const 1.0"
    )


def test_select_with_constant_operands_picks_one():
    check_pass(
        constant_fold,
        before="""
            <u1> $0 = const false
            <i32> $1 = const 1
            <i32> $2 = const 2
            <i32> $3 = select($0, $1, $2)
            $4 : return $3
        """,
        after="""
            <u1> $0 = const false
            <i32> $1 = const 1
            <i32> $2 = const 2
            $3 : return $2
        """,
    )


def test_a_chain_folds_in_one_run_inside_nested_blocks():
    check_pass(
        constant_fold,
        before="""
            <i32> $0 = const 1
            <i32> $1 = const 2
            <u1> $2 = const true
            $3 : if $2 {
              <i32> $4 = add $0 $1
              <i32> $5 = mul $4 $4
              $6 : return $5
            }
        """,
        after="""
            <i32> $0 = const 1
            <i32> $1 = const 2
            <u1> $2 = const true
            $3 : if $2 {
              <i32> $4 = const 3
              <i32> $5 = const 9
              $6 : return $5
            }
        """,
    )


# --- semantics: random constant expressions against NumPy in the same dtype ---------------------

INTS = [t for t in PRIMITIVE_TYPES if t.kind in ("int", "uint")]
INT_OPS = ["add", "sub", "mul", "div", "mod", "max", "min", "bit_and", "bit_or", "bit_xor"]
SHIFTS = ["bit_shl", "bit_shr", "bit_sar"]


def run_fold(stmt: BinaryOp | UnaryOp, *consts: Const) -> Const | None:
    """Fold `stmt` (whose operands are `consts`) and return the constant it became, if any."""
    kernel = Kernel("k", Block([*consts, stmt, Return([stmt])]))
    constant_fold.run(kernel, PassContext())
    value = kernel.body.stmts[-1].values[0]
    return value if isinstance(value, Const) and value is not stmt else None


def fold_binary(op: str, t: PrimitiveType, a: object, b: object) -> object:
    lhs, rhs = const_of(a, t), const_of(b, t)
    ret = u1 if op.startswith("cmp") else t
    folded = run_fold(BinaryOp(BinaryOpType(op), lhs, rhs, ret_type=ret), lhs, rhs)
    return None if folded is None else folded.value


def random_ints(rng: np.random.Generator, t: PrimitiveType, n: int) -> np.ndarray:
    info = np.iinfo(t.numpy_name)
    edges = np.array([info.min, info.max, 0, 1, info.max // 2], dtype=t.numpy_name)
    values = rng.integers(info.min, info.max, size=n, dtype=t.numpy_name, endpoint=True)
    small = rng.integers(-20, 20, size=n).astype(t.numpy_name)
    return np.concatenate([edges, values, small])


NUMPY_INT = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or,
    "bit_xor": np.bitwise_xor,
}
NUMPY_CMP = {
    "cmp_lt": np.less,
    "cmp_le": np.less_equal,
    "cmp_gt": np.greater,
    "cmp_ge": np.greater_equal,
    "cmp_eq": np.equal,
    "cmp_ne": np.not_equal,
}


def numpy_int_op(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """What the hardware computes, by NumPy in the dtype (floor division corrected to C's)."""
    if op not in ("div", "mod"):
        return NUMPY_INT[op](a, b)
    if b[0] == 0 or (op == "div" and b[0] == -1 and a[0] == np.iinfo(a.dtype).min):
        return None  # left to the back end
    q = a // b + ((a % b != 0) & ((a < 0) != (b < 0)))
    return q if op == "div" else a - b * q


def numpy_shift(op: str, a: np.ndarray, amount: int) -> np.ndarray:
    bits = a.dtype.itemsize * 8
    s = amount % bits
    if op == "bit_shl":
        return np.left_shift(a, a.dtype.type(s))
    logical = op == "bit_shr" or a.dtype.kind == "u"  # `>>` of unsigned brings in zeros
    view = np.dtype(f"uint{bits}") if logical else np.dtype(f"int{bits}")
    return np.right_shift(a.view(view), view.type(s)).view(a.dtype)


@pytest.mark.parametrize("t", INTS, ids=str)
def test_integer_folds_match_numpy(t):
    rng = np.random.default_rng(1234)
    lhs, rhs = random_ints(rng, t, 60), random_ints(rng, t, 60)[::-1]
    with np.errstate(all="ignore"):
        for a, b in zip(lhs, rhs):
            a1, b1 = np.array([a]), np.array([b])
            for op in INT_OPS:
                want = numpy_int_op(op, a1, b1)
                got = fold_binary(op, t, int(a), int(b))
                assert got == (None if want is None else int(want[0])), (op, t, a, b)
            for op in SHIFTS:
                assert fold_binary(op, t, int(a), int(b)) == int(numpy_shift(op, a1, int(b))[0])
            for op, fn in NUMPY_CMP.items():
                assert fold_binary(op, t, int(a), int(b)) is bool(fn(a, b)), (op, t, a, b)


SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.5, 1e-40, 3.4e38, -3.4e38, 1e308, math.inf, -math.inf, 0.1]


@pytest.mark.parametrize("t", [f32, f64], ids=str)
def test_float_folds_match_numpy_bit_for_bit(t):
    rng = np.random.default_rng(99)
    values = SPECIAL_FLOATS + list(rng.normal(scale=1e3, size=40)) + [math.nan]
    ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
    np_t = np.dtype(t.numpy_name).type
    with np.errstate(all="ignore"):
        for a in values:
            for b in values[::3]:
                for op, fn in ops.items():
                    want = fn(np_t(a), np_t(b))
                    got = fold_binary(op, t, a, b)
                    assert np_t(got).tobytes() == want.tobytes() or (
                        math.isnan(got) and np.isnan(want)
                    ), (op, t, a, b)


@pytest.mark.parametrize("src", PRIMITIVE_TYPES, ids=str)
def test_casts_match_numpy(src):
    rng = np.random.default_rng(7)
    if src.is_float:
        values = SPECIAL_FLOATS + list(rng.normal(scale=1e5, size=30))
    elif src.kind == "bool":
        values = [False, True]
    else:
        values = [int(v) for v in random_ints(rng, src, 30)]
    for dst in PRIMITIVE_TYPES:
        if "f16" in (src.name, dst.name):
            continue
        for value in values:
            check_cast(value, src, dst)


def check_cast(value: object, src: PrimitiveType, dst: PrimitiveType) -> None:
    c = const_of(value, src)
    folded = run_fold(UnaryOp(UnaryOpType.cast_value, c, ret_type=dst), c)
    with np.errstate(all="ignore"):  # 1e308 as f32 is inf
        x = np.array(c.value, dtype=src.numpy_name)
    if dst.kind == "bool":
        want = bool(x != 0)
    elif src.is_float and not dst.is_float:
        info = np.iinfo(dst.numpy_name)
        want = int(np.trunc(x)) if np.isfinite(x) else 0
        if not (np.isfinite(x) and info.min <= want <= info.max):
            # saturated as both back ends compute it (the interpreter's independent version)
            want = interpreter_ops.cast_value(float(x), src, dst)
    else:
        with np.errstate(all="ignore"):
            want = x.astype(dst.numpy_name)[()].item()
    assert folded is not None, (value, src, dst)
    got = np.array(folded.value, dtype=dst.numpy_name)
    assert got.tobytes() == np.array(want, dtype=dst.numpy_name).tobytes(), (value, src, dst)


def test_a_folded_constant_keeps_the_users_line():
    where = SourceLoc("kernel.py", 12)
    a, b = const_of(2, i32), const_of(3, i32)
    total = BinaryOp(BinaryOpType.add, a, b, ret_type=i32, loc=where)
    folded = run_fold(total, a, b)
    assert folded is not None and folded.value == 5 and folded.loc == where
