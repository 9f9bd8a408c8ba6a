"""The same bits on every x86-64 CPU and in both tiers: f16, f32 and f64 kernels round to their
type after every operation, as NumPy's arithmetic on arrays of that type and Taichi 1.7.4's CPU
code do (no FMA contraction, f16 never kept in f32 between operations).

Kernels are compiled for explicit CPUs (`CpuBackend(cpu_name=...)`): x86-64 (SSE2: f16 through
the conversion functions of `half.py`), Haswell (F16C, FMA, AVX2), Skylake-AVX512 (AVX-512, f16
through F16C) and Sapphire Rapids (AVX-512-FP16: f16 arithmetic in hardware), plus the host as
`ti.init` gets it. A CPU's code runs here when the host has the features that CPU stands for
(features the named CPU has and the host lacks are turned off, so nothing else can trap); on a
host without them it is only compiled, and its assembly checked, so CI covers CPUs it does not
run on. Each set runs on the quick tier and at O3, on random inputs with subnormals,
infinities and NaNs; NaN payloads are compared between CPUs and tiers, not against NumPy
(x86 quiets a signalling NaN on conversion, NumPy keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import llvmlite.binding as llvm
import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray, np_dtype, scalar
from tistudio.backends.llvm import CpuBackend

pytestmark = pytest.mark.skipif(
    not llvm.get_process_triple().startswith("x86_64"), reason="x86-64 CPUs only"
)

# name -> (LLVM CPU, the features it stands for: run here only if the host has them all)
CPUS = {
    "x86-64": ("x86-64", ()),
    "haswell": ("haswell", ("f16c", "fma", "avx2")),
    "skylake-avx512": ("skylake-avx512", ("avx512f", "avx512bw", "avx512dq", "avx512vl")),
    "sapphirerapids": ("sapphirerapids", ("avx512fp16",)),
}
# what f16 arithmetic looks like in each CPU's assembly: a rounding to f16 after each operation
F16_ROUNDING = {
    "x86-64": "__truncsfhf2",
    "haswell": "vcvtps2ph",
    "skylake-avx512": "vcvtps2ph",
    "sapphirerapids": r"vadd[sp]h",  # f16 arithmetic in hardware rounds by itself
}
FUSED = re.compile(r"\bv?fn?m(add|sub)\w*")  # vfmadd213ss, vfnmsub231ph, ...
TIERS = ("quick", "optimised")
N = 4099  # odd: vector loops run their scalar remainder too


def host_runs(cpu: str) -> bool:
    host = llvm.get_host_cpu_features()
    return all(host.get(feature, False) for feature in CPUS[cpu][1])


def make_backend(cpu: str, runnable: bool) -> CpuBackend:
    """A back end compiling for `cpu`; `runnable`: without the features the host lacks."""
    if cpu == "host":
        return CpuBackend(num_threads=2)
    lacking = [f"-{f}" for f, on in llvm.get_host_cpu_features().items() if not on]
    features = ",".join(lacking) if runnable else ""
    return CpuBackend(num_threads=2, cpu_name=CPUS[cpu][0], cpu_features=features)


# --- kernels --------------------------------------------------------------------------------


def _stores(results: list[str], t: str, arg: int) -> str:
    """IR storing each of `results` (a `$n`) into column k of the 2D ndarray `arg`."""
    lines = []
    for k, value in enumerate(results):
        n = 100 * arg + 1000 + 3 * k
        lines += [
            f"<i32> ${n} = const {k}",
            f"<*{t}> ${n + 1} = external_ptr arg {arg}, [$1, ${n}]",
            f"${n + 2} : global store [${n + 1} <- {value}]",
        ]
    return "\n".join(lines)


ARITH = """
$0 = offloaded range_for(0, {n}) body {{
  <i32> $1 = loop $0 index 0
  <*{t}> $2 = external_ptr arg 0, [$1]
  <*{t}> $3 = external_ptr arg 1, [$1]
  <{t}> $4 = global load $2
  <{t}> $5 = global load $3
  <{t}> $6 = argload[2]
  <{t}> $7 = const 3.0
  <{t}> $10 = add $4 $5
  <{t}> $11 = sub $4 $5
  <{t}> $12 = mul $4 $5
  <{t}> $13 = div $4 $5
  <{t}> $14 = sqrt $4
  <{t}> $15 = mul $4 $4
  <{t}> $16 = add $15 $6
  <{t}> $17 = mul $6 $7
  <{t}> $18 = sub $4 $17
  <{t}> $19 = div $4 $7
  <{t}> $20 = mul $5 $5
  <{t}> $21 = sub $20 $6
  <{t}> $22 = sub $4 $4
  <{t}> $23 = div $5 $22
{stores}
}}
"""
# (result, what it is, NumPy on arrays of the kernel's type: rounded after each operation)
ARITH_COLUMNS = [
    ("$10", "a + b", lambda a, b, s, three: a + b),
    ("$11", "a - b", lambda a, b, s, three: a - b),
    ("$12", "a * b", lambda a, b, s, three: a * b),
    ("$13", "a / b", lambda a, b, s, three: a / b),
    ("$14", "sqrt(a)", lambda a, b, s, three: np.sqrt(a)),
    ("$16", "a * a + s", lambda a, b, s, three: a * a + s),  # rounded twice, never an FMA
    ("$18", "a - s * 3", lambda a, b, s, three: a - s * three),
    ("$19", "a / 3", lambda a, b, s, three: a / three),  # not a times a rounded 1/3
    ("$21", "b * b - s", lambda a, b, s, three: b * b - s),
    ("$23", "b / (a - a)", lambda a, b, s, three: b / (a - a)),  # inf or NaN, never folded
]
SCALAR = 0.30004882812  # an f16 value (0.3 rounded), so every type gets the same argument

MIXED = """
$0 = offloaded range_for(0, {n}) body {
  <i32> $1 = loop $0 index 0
  <*f16> $2 = external_ptr arg 0, [$1]
  <*f32> $3 = external_ptr arg 1, [$1]
  <*f64> $4 = external_ptr arg 2, [$1]
  <*i32> $5 = external_ptr arg 3, [$1]
  <*i64> $6 = external_ptr arg 4, [$1]
  <f16> $7 = global load $2
  <f32> $8 = global load $3
  <f64> $9 = global load $4
  <i32> $10 = global load $5
  <i64> $11 = global load $6
  <f32> $20 = cast_value $7
  <f32> $21 = add $20 $8
  <f64> $22 = cast_value $7
  <f64> $23 = mul $22 $9
  <f16> $24 = cast_value $8
  <f16> $25 = cast_value $9
  <f16> $26 = cast_value $10
  <f16> $27 = cast_value $11
  <f16> $28 = add $7 $26
  <f16> $29 = mul $7 $24
  <i32> $30 = cast_value $7
  <i8> $31 = cast_value $7
  <i32> $32 = cast_value $31
STORES
}
"""
# output ndarray (arg) -> [(result, NumPy of h: f16, c: f32, d: f64, k: i32, m: i64)]
MIXED_COLUMNS = {
    5: [
        ("$24", "f32 -> f16", lambda h, c, d, k, m: c.astype(np.float16)),
        ("$25", "f64 -> f16", lambda h, c, d, k, m: d.astype(np.float32).astype(np.float16)),
        ("$26", "i32 -> f16", lambda h, c, d, k, m: k.astype(np.float16)),
        ("$27", "i64 -> f16", lambda h, c, d, k, m: m.astype(np.float16)),
        ("$28", "f16 + i32", lambda h, c, d, k, m: h + k.astype(np.float16)),  # stays f16
        ("$29", "f16 * f16(f32)", lambda h, c, d, k, m: h * c.astype(np.float16)),
    ],
    6: [  # f16 with f32 widens
        ("$20", "f16 -> f32", lambda h, c, d, k, m: h.astype(np.float32)),
        ("$21", "f16 + f32", lambda h, c, d, k, m: h.astype(np.float32) + c),
    ],
    7: [
        ("$22", "f16 -> f64", lambda h, c, d, k, m: h.astype(np.float64)),
        ("$23", "f16 * f64", lambda h, c, d, k, m: h.astype(np.float64) * d),
    ],
    8: [  # truncated toward zero, NaN 0, saturated; i8 wraps through i32
        ("$30", "f16 -> i32", lambda h, c, d, k, m: _to_i32(h)),
        ("$32", "f16 -> i8", lambda h, c, d, k, m: _to_i32(h).astype(np.int8).astype(np.int32)),
    ],
}
MIXED_TYPES = {5: "f16", 6: "f32", 7: "f64", 8: "i32"}

# a serial loop's sums (fixed order: compared bit for bit) and a parallel one (thread-local
# partial sums in any order: its terms are small integers, so every order gives the exact sum)
REDUCE = """
$0 = offloaded serial body {{
  <*{t}> $1 = alloca
  <*{t}> $2 = alloca
  <i32> $3 = const 0
  <i32> $4 = const {n}
  $5 : for in range($3, $4) reversed=false serialize=false {{
    <i32> $6 = loop $5 index 0
    <*{t}> $7 = external_ptr arg 0, [$6]
    <*{t}> $8 = external_ptr arg 1, [$6]
    <{t}> $9 = global load $7
    <{t}> $10 = global load $8
    <{t}> $11 = local load [$1]
    <{t}> $12 = add $11 $9
    $13 : local store [$1 <- $12]
    <{t}> $14 = mul $9 $10
    <{t}> $15 = local load [$2]
    <{t}> $16 = add $15 $14
    $17 : local store [$2 <- $16]
  }}
  <{t}> $18 = local load [$1]
  <i32> $19 = const 0
  <*{t}> $20 = external_ptr arg 3, [$19]
  $21 : global store [$20 <- $18]
  <{t}> $22 = local load [$2]
  <i32> $23 = const 1
  <*{t}> $24 = external_ptr arg 3, [$23]
  $25 : global store [$24 <- $22]
}}
$30 = offloaded range_for(0, {n}) tls_size=8 tls prologue {{
  <*{t}> $31 = thread local ptr (offset = 0 B)
  <{t}> $32 = const 0.0
  $33 : global store [$31 <- $32]
}} body {{
  <i32> $34 = loop $30 index 0
  <*{t}> $35 = external_ptr arg 2, [$34]
  <{t}> $36 = global load $35
  <*{t}> $37 = thread local ptr (offset = 0 B)
  <{t}> $38 = global load $37
  <{t}> $39 = add $38 $36
  $40 : global store [$37 <- $39]
}} tls epilogue {{
  <*{t}> $41 = thread local ptr (offset = 0 B)
  <{t}> $42 = global load $41
  <i32> $43 = const 2
  <*{t}> $44 = external_ptr arg 3, [$43]
  <{t}> $45 = atomic add($44, $42)
}}
"""
REDUCE_N = 1000


def _to_i32(h: np.ndarray) -> np.ndarray:
    wide = np.nan_to_num(np.trunc(h.astype(np.float64)), nan=0.0, posinf=2**31 - 1, neginf=-(2**31))
    return wide.astype(np.int32)


# --- inputs and references ------------------------------------------------------------------


def _floats(dtype: str, n: int, seed: int) -> np.ndarray:
    """Half ordinary values of similar size (where an FMA would round differently), half random
    bit patterns (subnormals, NaNs with payloads, huge and tiny values), the specials first."""
    t = np_dtype(dtype)
    rng = np.random.default_rng(seed)
    bits = np.dtype(f"u{t.itemsize}")
    values = rng.uniform(-4, 4, n).astype(t)
    values[n // 2 :] = rng.integers(
        0, np.iinfo(bits).max, n - n // 2, dtype=bits, endpoint=True
    ).view(t)
    tiny = np.finfo(t).smallest_subnormal
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, tiny, -tiny, np.finfo(t).max, 1.0]
    values[: len(specials)] = np.array(specials, t)
    return values


def arith_inputs(t: str) -> tuple[np.ndarray, np.ndarray]:
    return _floats(t, N, 1), _floats(t, N, 2)


def arith_reference(t: str) -> np.ndarray:
    a, b = arith_inputs(t)
    s, three = np_dtype(t).type(SCALAR), np_dtype(t).type(3)
    with np.errstate(all="ignore"):
        return np.stack([f(a, b, s, three) for _, _, f in ARITH_COLUMNS], axis=1)


def mixed_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    h, c, d = _floats("f16", N, 4), _floats("f32", N, 5), _floats("f64", N, 6)
    c[N // 4 : N // 2] *= 2e4  # around f16's largest values and its overflow to inf
    d[10:13] = [1 + 2**-11 + 2**-40, 65519.99, 2**-25]  # rounded twice through f32, as Taichi
    k = rng.integers(-70000, 70000, N, dtype=np.int32)
    m = rng.integers(-(2**62), 2**62, N, dtype=np.int64)
    m[: N // 2] //= 2**46
    return [h, c, d, k, m]


def mixed_reference() -> dict[int, np.ndarray]:
    inputs = mixed_inputs()
    with np.errstate(all="ignore"):
        return {
            arg: np.stack([f(*inputs) for _, _, f in columns], axis=1).astype(
                np_dtype(MIXED_TYPES[arg])
            )
            for arg, columns in MIXED_COLUMNS.items()
        }


def reduce_inputs(t: str) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    a, b = (rng.uniform(-2, 2, REDUCE_N).astype(np_dtype(t)) for _ in range(2))
    small = rng.integers(-2, 3, REDUCE_N).astype(np_dtype(t))  # sum of |terms| <= 2000 < 2**11
    return [a, b, small]


def reduce_reference(t: str) -> np.ndarray:
    a, b, small = reduce_inputs(t)
    total, dot = (np.add.accumulate(x)[-1] for x in (a, a * b))  # in order, rounded each step
    return np.array([total, dot, small.sum(dtype=np.float64)], np_dtype(t))


# --- compiling and running ------------------------------------------------------------------


def compile_kernels(cpu: CpuBackend) -> dict:
    """Every kernel of this file, compiled by `cpu` (on its tier)."""
    kernels = {}
    for t in ("f16", "f32", "f64"):
        body = ARITH.format(n=N, t=t, stores=_stores([r for r, _, _ in ARITH_COLUMNS], t, 3))
        params = [ndarray("a", t, 1), ndarray("b", t, 1), scalar("s", t), ndarray("out", t, 2)]
        kernels[f"arith {t}"] = compile_text(cpu, body, params=params)
        params = [*(ndarray(x, t, 1) for x in "abq"), ndarray("out", t, 1)]
        kernels[f"reduce {t}"] = compile_text(cpu, REDUCE.format(n=REDUCE_N, t=t), params=params)
    stores = [
        _stores([r for r, *_ in MIXED_COLUMNS[arg]], t, arg) for arg, t in MIXED_TYPES.items()
    ]
    body = MIXED.replace("{n}", str(N)).replace("STORES", "\n".join(stores))
    params = [ndarray(x, t, 1) for x, t in zip("hcdkm", ("f16", "f32", "f64", "i32", "i64"))]
    params += [ndarray(f"out{arg}", t, 2) for arg, t in MIXED_TYPES.items()]
    kernels["mixed"] = compile_text(cpu, body, params=params)
    return kernels


def run_kernels(kernels: dict) -> dict[str, np.ndarray]:
    """Each kernel's outputs on this file's inputs, by name ("arith f16", "mixed f32", ...)."""
    results = {}
    for t in ("f16", "f32", "f64"):
        a, b = arith_inputs(t)
        out = np.zeros((N, len(ARITH_COLUMNS)), np_dtype(t))
        kernels[f"arith {t}"].launch([a, b, SCALAR, out], [])
        results[f"arith {t}"] = out
        out = np.zeros(3, np_dtype(t))
        kernels[f"reduce {t}"].launch([*reduce_inputs(t), out], [])
        results[f"reduce {t}"] = out
    outs = {
        arg: np.zeros((N, len(MIXED_COLUMNS[arg])), np_dtype(t)) for arg, t in MIXED_TYPES.items()
    }
    kernels["mixed"].launch([*mixed_inputs(), *outs.values()], [])
    results.update({f"mixed {MIXED_TYPES[arg]}": out for arg, out in outs.items()})
    return results


def references() -> dict[str, np.ndarray]:
    refs = {}
    for t in ("f16", "f32", "f64"):
        refs[f"arith {t}"] = arith_reference(t)
        refs[f"reduce {t}"] = reduce_reference(t)
    mixed = mixed_reference()
    refs.update({f"mixed {MIXED_TYPES[arg]}": out for arg, out in mixed.items()})
    return refs


def column_names(name: str) -> list[str]:
    """What each column (each element, for a reduction) of the output `name` holds."""
    kind, t = name.split()
    if kind == "arith":
        return [what for _, what, _ in ARITH_COLUMNS]
    if kind == "reduce":
        return ["sum in order", "a * b summed in order", "parallel sum"]
    arg = next(arg for arg, out_type in MIXED_TYPES.items() if out_type == t)
    return [what for _, what, _ in MIXED_COLUMNS[arg]]


def wrong_columns(name: str, bad: np.ndarray) -> dict[str, int]:
    """`{"arith f16: a * a + s": count}` for the columns of output `name` where `bad` is set."""
    counts = bad.sum(axis=0) if bad.ndim == 2 else bad
    return {f"{name}: {what}": int(c) for what, c in zip(column_names(name), counts) if c}


TARGETS = ["host", *CPUS]


@pytest.fixture(scope="module")
def results() -> Iterator[dict[tuple[str, str], dict[str, np.ndarray]]]:
    """Outputs of every kernel per (CPU, tier), for the CPUs this host runs."""
    found = {}
    for target in TARGETS:
        if target != "host" and not host_runs(target):
            continue
        cpu = make_backend(target, runnable=True)
        for tier in TIERS:
            cpu.tiering = tier
            found[target, tier] = run_kernels(compile_kernels(cpu))
        cpu.close()
    yield found


def _differences(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where `got` and `want` differ: in bits, or in being a NaN (NaN payloads aside)."""
    if got.dtype.kind != "f":
        return got != want
    same_bits = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
    return ~(same_bits | (np.isnan(got) & np.isnan(want)))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_operation_is_rounded_to_its_type(results, target, tier):
    if (target, tier) not in results:
        pytest.skip(f"this host lacks {CPUS[target][1]}: compiled only (assembly test below)")
    wrong = {}
    for name, want in references().items():
        wrong |= wrong_columns(name, _differences(results[target, tier][name], want))
    assert not wrong, f"{target}, {tier} tier: values unlike NumPy's (of {N}): {wrong}"


def test_every_cpu_and_tier_gives_the_same_bits(results):
    """NaN payloads included: a NaN keeps the payload of the operand that x86 propagates."""
    first_key = ("host", "optimised")
    first = results[first_key]
    for key, outputs in results.items():
        wrong = {}
        for name, got in outputs.items():
            bits = f"u{got.itemsize}"
            wrong |= wrong_columns(name, got.view(bits) != first[name].view(bits))
        assert not wrong, f"{key} differs from {first_key} in: {wrong}"


@pytest.mark.parametrize("target", CPUS)
def test_assembly_rounds_f16_after_each_operation_and_never_fuses(target):
    """The code each CPU gets, whether or not this host can run it: an f16 result is rounded
    to f16 (by a conversion, or by an f16 instruction on AVX-512-FP16), and no multiply-add
    is fused, in any type."""
    cpu = make_backend(target, runnable=False)
    cpu.tiering = "optimised"
    kernels = compile_kernels(cpu)
    for name, kernel in kernels.items():
        fused = sorted(set(m.group(0) for m in FUSED.finditer(kernel.assembly)))
        assert not fused, f"{target}, {name}: fused multiply-adds {fused}"
    for name in ("arith f16", "reduce f16", "mixed"):
        assert re.search(F16_ROUNDING[target], kernels[name].assembly), f"{target}, {name}"
    cpu.close()


CAST = """
$0 = offloaded range_for(0, {n}) body {{
  <i32> $1 = loop $0 index 0
  <*{src}> $2 = external_ptr arg 0, [$1]
  <{src}> $3 = global load $2
  <{dst}> $4 = cast_value $3
  <*{dst}> $5 = external_ptr arg 1, [$1]
  $6 : global store [$5 <- $4]
}}
"""


def _cast(cpu: CpuBackend, src: str, dst: str, values: np.ndarray) -> np.ndarray:
    body = CAST.format(n=len(values), src=src, dst=dst)
    kernel = compile_text(cpu, body, params=[ndarray("x", src, 1), ndarray("y", dst, 1)])
    out = np.zeros(len(values), np_dtype(dst))
    kernel.launch([values, out], [])
    return out


def _f32_near_f16_roundings(seed: int = 8) -> np.ndarray:
    """f32 values where rounding to f16 decides: every midpoint between two f16 values of
    either sign (and the overflow threshold), one f32 unit either side; and random bits."""
    halves = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    midpoints = ((halves[:-1] + halves[1:]) / 2).astype(np.float32)
    midpoints = np.append(midpoints, np.float32(65520.0)).view(np.uint32)
    near = np.concatenate([midpoints - 1, midpoints, midpoints + 1])
    near = np.concatenate([near, near | np.uint32(0x80000000)])
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 2**32, 1 << 16, dtype=np.uint32)
    return np.concatenate([near, noise]).view(np.float32)


@pytest.mark.parametrize("target", ["host", "x86-64"])
def test_f16_conversions_round_like_f16c(target):
    """Without F16C, f16 <-> f32 goes through `half.py`'s functions: every f16 widens exactly,
    f32 rounds to the nearest f16 (ties to even, overflow to inf), and NaNs are quieted with
    their payload's top bits kept, as F16C's vcvtph2ps / vcvtps2ph do. (The truncation was also
    checked against vcvtps2ph on all 2**32 f32 values, once, outside the suite.)"""
    cpu = make_backend(target, runnable=True)
    cpu.tiering = "quick"
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    want = halves.astype(np.float32).view(np.uint32)  # NumPy keeps a signalling NaN: quiet it
    want[np.isnan(halves)] |= 0x400000
    np.testing.assert_array_equal(_cast(cpu, "f16", "f32", halves).view(np.uint32), want)
    singles = _f32_near_f16_roundings()
    with np.errstate(over="ignore"):
        want = singles.astype(np.float16).view(np.uint16)
    nan = np.isnan(singles)
    bits = singles.view(np.uint32)[nan]
    want[nan] = ((bits >> 16) & 0x8000) | 0x7E00 | ((bits >> 13) & 0x3FF)
    np.testing.assert_array_equal(_cast(cpu, "f32", "f16", singles).view(np.uint16), want)
    cpu.close()
