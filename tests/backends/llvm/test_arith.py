"""Every BinaryOp, UnaryOp and cast on every relevant dtype, against NumPy (or exact Python
integer arithmetic where C semantics differ from NumPy's)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray, np_dtype
from tistudio.ir.config import CompileConfig

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f32", "f64"]
N = 203  # odd, so vectorised loops also run their scalar remainder


def _ints(dtype: str, n: int = N, seed: int = 0) -> np.ndarray:
    info = np.iinfo(np_dtype(dtype))
    rng = np.random.default_rng(seed)
    edge = [0, 1, 2, -1, 3, -7, info.min, info.max, info.min + 1, info.max - 1, 100, -100]
    edge = [v for v in edge if info.min <= v <= info.max]
    values = rng.integers(info.min, info.max, n - len(edge), endpoint=True, dtype=np_dtype(dtype))
    return np.concatenate([np.array(edge, np_dtype(dtype)), values])


def _floats(dtype: str, n: int = N, seed: int = 0, low: float = -50, high: float = 50):
    rng = np.random.default_rng(seed)
    values = rng.uniform(low, high, n).astype(np_dtype(dtype))
    return values


def run_binary(backend, op: str, dtype: str, a: np.ndarray, b: np.ndarray, out_type: str, cfg=None):
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded range_for(0, {len(a)}) body {{
          <i32> $1 = loop $0 index 0
          <*{dtype}> $2 = external_ptr arg 0, [$1]
          <*{dtype}> $3 = external_ptr arg 1, [$1]
          <{dtype}> $4 = global load $2
          <{dtype}> $5 = global load $3
          <{out_type}> $6 = {op} $4 $5
          <*{out_type}> $7 = external_ptr arg 2, [$1]
          $8 : global store [$7 <- $6]
        }}
        """,
        params=[ndarray("a", dtype, 1), ndarray("b", dtype, 1), ndarray("out", out_type, 1)],
        config=cfg,
    )
    out = np.zeros(len(a), np_dtype(out_type))
    ex.launch([a, b, out], [])
    return out


def run_unary(backend, op: str, dtype: str, a: np.ndarray, out_type: str | None = None):
    out_type = out_type or dtype
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded range_for(0, {len(a)}) body {{
          <i32> $1 = loop $0 index 0
          <*{dtype}> $2 = external_ptr arg 0, [$1]
          <{dtype}> $3 = global load $2
          <{out_type}> $4 = {op} $3
          <*{out_type}> $5 = external_ptr arg 1, [$1]
          $6 : global store [$5 <- $4]
        }}
        """,
        params=[ndarray("a", dtype, 1), ndarray("out", out_type, 1)],
    )
    out = np.zeros(len(a), np_dtype(out_type))
    ex.launch([a, out], [])
    return out


# --- integer binary ops ---------------------------------------------------------------------


def _c_div_mod(x: int, y: int, bits: int, signed: bool) -> tuple[int, int]:
    """C's truncating division; /0 and INT_MIN/-1 give 0 (the contract)."""
    if y == 0 or (signed and x == -(1 << (bits - 1)) and y == -1):
        return 0, 0
    q = abs(x) // abs(y)
    q = q if (x < 0) == (y < 0) else -q
    return q, x - q * y


INT_REFERENCE = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or,
    "bit_xor": np.bitwise_xor,
}


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", sorted(INT_REFERENCE))
def test_integer_binary_wraps_like_numpy(backend, op, dtype):
    a, b = _ints(dtype, seed=1), _ints(dtype, seed=2)[::-1].copy()
    with np.errstate(over="ignore"):
        want = INT_REFERENCE[op](a, b)
    np.testing.assert_array_equal(run_binary(backend, op, dtype, a, b, dtype), want)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["div", "mod"])
def test_integer_division_is_c_and_never_traps(backend, op, dtype):
    a = _ints(dtype, seed=3)
    b = _ints(dtype, seed=4)
    b[:12] = [0, 0, 1, -1, 3, -3, 0, -1, 7, -7, 2, 0] if dtype[0] == "i" else [0, 1, 3] * 4
    a[:3] = np.iinfo(a.dtype).min  # INT_MIN / 0, INT_MIN / 1, INT_MIN / -1
    bits, signed = a.dtype.itemsize * 8, dtype[0] == "i"
    pairs = [_c_div_mod(int(x), int(y), bits, signed) for x, y in zip(a, b)]
    want = np.array([p[0] if op == "div" else p[1] for p in pairs], dtype=object).astype(a.dtype)
    np.testing.assert_array_equal(run_binary(backend, op, dtype, a, b, dtype), want)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["bit_shl", "bit_shr", "bit_sar"])
def test_shifts_take_the_amount_modulo_the_width(backend, op, dtype):
    bits = np.dtype(np_dtype(dtype)).itemsize * 8
    a = _ints(dtype, seed=5)
    b = (np.arange(N) % (2 * bits + 3)).astype(np_dtype(dtype))  # amounts beyond the width too
    amount = (b.astype(np.uint64) & np.uint64(bits - 1)).astype(np_dtype(dtype))
    unsigned = np.dtype(f"u{bits // 8}")
    if op == "bit_shl":
        want = np.left_shift(a, amount)
    elif op == "bit_shr":  # logical
        want = np.right_shift(a.view(unsigned), amount.view(unsigned)).view(a.dtype)
    else:  # arithmetic for signed types, logical for unsigned ones
        want = np.right_shift(a, amount)
    np.testing.assert_array_equal(run_binary(backend, op, dtype, a, b, dtype), want)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize(
    "op,ref",
    [
        ("cmp_lt", np.less),
        ("cmp_le", np.less_equal),
        ("cmp_gt", np.greater),
        ("cmp_ge", np.greater_equal),
        ("cmp_eq", np.equal),
        ("cmp_ne", np.not_equal),
    ],
)
def test_comparisons_return_u1(backend, op, ref, dtype):
    make = _floats if dtype in FLOATS else _ints
    a, b = make(dtype, seed=6), make(dtype, seed=7)
    b[::3] = a[::3]  # plenty of equal pairs
    np.testing.assert_array_equal(run_binary(backend, op, dtype, a, b, "u1"), ref(a, b))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_comparisons_with_nan_without_fast_math(backend, dtype):
    a = np.array([np.nan, 1.0, np.nan, 2.0], np_dtype(dtype))
    b = np.array([np.nan, np.nan, 1.0, 2.0], np_dtype(dtype))
    cfg = CompileConfig(fast_math=False)
    for op, ref in [("cmp_eq", np.equal), ("cmp_ne", np.not_equal), ("cmp_lt", np.less)]:
        got = run_binary(backend, op, dtype, a, b, "u1", cfg)
        np.testing.assert_array_equal(got, ref(a, b), err_msg=op)


# --- float binary ops -----------------------------------------------------------------------

FLOAT_REFERENCE = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "mod": np.fmod,  # C's fmod
    "max": np.maximum,
    "min": np.minimum,
    "atan2": np.arctan2,
    "pow": np.power,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", sorted(FLOAT_REFERENCE))
def test_float_binary_matches_numpy(backend, op, dtype):
    a, b = _floats(dtype, seed=8), _floats(dtype, seed=9)
    if op == "pow":
        a, b = np.abs(a) / 10 + 0.1, b / 10
    want = FLOAT_REFERENCE[op](a.astype(np.float64), b.astype(np.float64))
    rtol = 2e-6 if dtype == "f32" else 1e-13
    got = run_binary(backend, op, dtype, a, b, dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def test_u8_arithmetic_wraps(backend):
    a = np.array([200, 255, 0, 17], np.uint8)
    b = np.array([100, 1, 1, 16], np.uint8)
    assert run_binary(backend, "add", "u8", a, b, "u8").tolist() == [44, 0, 1, 33]
    assert run_binary(backend, "sub", "u8", a, b, "u8").tolist() == [100, 254, 255, 1]
    assert run_binary(backend, "mul", "u8", a, b, "u8").tolist() == [32, 255, 0, 16]


# --- unary ops ------------------------------------------------------------------------------


def _round_half_away(x: np.ndarray) -> np.ndarray:
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


FLOAT_UNARY = {
    "neg": (np.negative, -50, 50),
    "sqrt": (np.sqrt, 0, 100),
    "round": (_round_half_away, -50, 50),
    "floor": (np.floor, -50, 50),
    "ceil": (np.ceil, -50, 50),
    "abs": (np.abs, -50, 50),
    "sgn": (np.sign, -2, 2),
    "sin": (np.sin, -10, 10),
    "cos": (np.cos, -10, 10),
    "tan": (np.tan, -1.5, 1.5),
    "asin": (np.arcsin, -1, 1),
    "acos": (np.arccos, -1, 1),
    "tanh": (np.tanh, -5, 5),
    "exp": (np.exp, -20, 20),
    "log": (np.log, 0.001, 1000),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 0.01, 100),
    "inv": (lambda x: 1 / x, 0.5, 50),
    "rcp": (lambda x: 1 / x, -50, -0.5),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", sorted(FLOAT_UNARY))
def test_float_unary_matches_numpy(backend, op, dtype):
    ref, low, high = FLOAT_UNARY[op]
    a = _floats(dtype, seed=10, low=low, high=high)
    if op in ("round", "floor", "ceil", "sgn"):
        a[:8] = [0.5, -0.5, 1.5, -2.5, 2.0, -0.0, 0.0, 0.49999997]
    want = ref(a.astype(np.float64))
    if op == "round":
        want = _round_half_away(a)  # decide halves in the input's own precision
    rtol = 4e-6 if dtype == "f32" else 1e-13
    got = run_unary(backend, op, dtype, a)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def _clz(x: int, bits: int) -> int:
    return bits - (x & ((1 << bits) - 1)).bit_length()


@pytest.mark.parametrize("dtype", INTS)
def test_integer_unary_ops(backend, dtype):
    a = _ints(dtype, seed=11)
    bits = a.dtype.itemsize * 8
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(run_unary(backend, "neg", dtype, a), -a)
        np.testing.assert_array_equal(run_unary(backend, "abs", dtype, a), np.abs(a))
    np.testing.assert_array_equal(run_unary(backend, "sgn", dtype, a), np.sign(a))
    np.testing.assert_array_equal(run_unary(backend, "bit_not", dtype, a), np.invert(a))
    bit_count = np.bitwise_count(a.view(f"u{bits // 8}"))  # of the bits, not of abs(a)
    np.testing.assert_array_equal(run_unary(backend, "popcnt", dtype, a), bit_count)
    want_clz = np.array([_clz(int(x), bits) for x in a], a.dtype)
    np.testing.assert_array_equal(run_unary(backend, "clz", dtype, a), want_clz)
    np.testing.assert_array_equal(run_unary(backend, "logic_not", dtype, a, "u1"), a == 0)
    np.testing.assert_array_equal(run_unary(backend, "logic_not", dtype, a, "i32"), a == 0)
    # rounding an integer leaves it alone
    np.testing.assert_array_equal(run_unary(backend, "floor", dtype, a), a)


def test_logic_not_of_float(backend):
    a = np.array([0.0, -0.0, 1.5, np.inf], np.float32)
    assert run_unary(backend, "logic_not", "f32", a, "i32").tolist() == [1, 1, 0, 0]


# --- casts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("src", INTS)
@pytest.mark.parametrize("dst", INTS + FLOATS)
def test_cast_from_integer_matches_numpy(backend, src, dst):
    a = _ints(src, seed=12)
    got = run_unary(backend, "cast_value", src, a, dst)
    want = a.astype(np_dtype(dst))  # NumPy wraps / sign- or zero-extends by the source
    if dst in FLOATS:
        np.testing.assert_allclose(got, want, rtol=1e-7 if dst == "f32" else 0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src", FLOATS)
@pytest.mark.parametrize("dst", INTS + FLOATS)
def test_cast_from_float_truncates_toward_zero(backend, src, dst):
    dt = np_dtype(dst)
    if dst in FLOATS:
        a = _floats(src, seed=13, low=-1e4, high=1e4)
    else:
        info = np.iinfo(dt)
        low, high = max(info.min, -1e6), min(info.max, 1e6)
        a = _floats(src, seed=13, low=low, high=high)
        a[:4] = [-3.7, 3.7, -0.5, 0.99] if info.min < 0 else [3.7, 0.99, 0.0, 250.5]
    got = run_unary(backend, "cast_value", src, a, dst)
    want = np.trunc(a.astype(np.float64)).astype(dt) if dst in INTS else a.astype(dt)
    np.testing.assert_array_equal(got, want)


def test_float_to_narrow_unsigned_wraps_like_c(backend):
    a = np.array([-1.0, 256.0, 300.5, -2.5], np.float32)
    assert run_unary(backend, "cast_value", "f32", a, "u8").tolist() == [255, 0, 44, 254]
    big = np.array([1e30, -1e30, np.nan], np.float32)  # saturates, never poison
    assert run_unary(backend, "cast_value", "f32", big, "i32").tolist() == [2**31 - 1, -(2**31), 0]


@pytest.mark.parametrize("src", INTS + FLOATS)
def test_cast_to_u1_is_nonzero(backend, src):
    if src in FLOATS:
        a = np.array([0.0, -0.0, 0.5, -3.0, np.nan, np.inf], np_dtype(src))
    else:
        a = _ints(src, seed=14)
    got = run_unary(backend, "cast_value", src, a, "u1")
    np.testing.assert_array_equal(got, a != 0)


@pytest.mark.parametrize("dst", INTS + FLOATS)
def test_cast_from_u1(backend, dst):
    a = np.array([True, False, True, True], np.bool_)
    got = run_unary(backend, "cast_value", "u1", a, dst)
    np.testing.assert_array_equal(got, a.astype(np_dtype(dst)))


@pytest.mark.parametrize("pair", [("f32", "i32"), ("i32", "f32"), ("f64", "u64"), ("u16", "i16")])
def test_reinterpret_cast_bits(backend, pair):
    src, dst = pair
    a = _floats(src, seed=15) if src in FLOATS else _ints(src, seed=15)
    got = run_unary(backend, "reinterpret_cast_bits", src, a, dst)
    np.testing.assert_array_equal(got.view(np.uint8), a.view(np.uint8))


def test_half_precision_round_trip(backend):
    a = np.array([1.5, -2.25, 1024.0, 0.0], np.float16)
    got = run_unary(backend, "cast_value", "f16", a, "f32")
    np.testing.assert_array_equal(got, a.astype(np.float32))
    b = np.array([1.0, 2.0, 3.0, 4.0], np.float16)
    np.testing.assert_array_equal(run_binary(backend, "mul", "f16", a, b, "f16"), a * b)
