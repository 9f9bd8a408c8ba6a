"""`approx_math=True`: a transcendental's value is libmvec's wherever it is computed, on the quick
tier, in the optimised tier's vector body and in that loop's scalar remainder (`vecmath.py`).

References come from libmvec itself: small functions that call a variant (`_ZGVdN8v_sinf`) on
one vector of arguments, called through ctypes once per vector.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator

import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray
from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.lltypes import PTR, VOID
from tistudio.backends.llvm.vecmath import LIBM_NAMES, VectorLibrary
from tistudio.ir.config import CompileConfig
from tistudio.ir.ops import BinaryOpType
from tistudio.ir.types import parse_type

N = 1007  # 8k + 7: the optimised loop has a scalar remainder at every vector width
FUNCTIONS = [(op, dtype) for op in LIBM_NAMES for dtype in ("f32", "f64")]
IDS = [f"{op.value}-{dtype}" for op, dtype in FUNCTIONS]
ISAS = {"b": VectorLibrary("b", ((32, 4), (64, 2))), "d": VectorLibrary("d", ((32, 8), (64, 4)))}
NUMPY = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}


def _libm(op, dtype: str) -> str:
    return LIBM_NAMES[op] + ("f" if dtype == "f32" else "")


def _arity(op) -> int:
    return 2 if isinstance(op, BinaryOpType) else 1


class Libmvec:
    """Calls of libmvec's variants, and of the scalar functions that `VectorLibrary` emits for
    kernels, on arrays: `vector(...)` one vector at a time, `scalar(...)` one value at a time."""

    def __init__(self, jit: JitEngine, library: VectorLibrary) -> None:
        self.library = library
        self.functions: dict[str, ctypes._CFuncPtr] = {}
        self.compiled = [self._compile(jit, kind) for kind in ("vector", "scalar")]  # kept alive

    def _compile(self, jit: JitEngine, kind: str):
        module = ir.Module(f"libmvec_{self.library.isa}_{kind}")
        for op, dtype in FUNCTIONS:
            self._define(module, op, dtype, kind)
        names = [f"{kind}_{_libm(op, dtype)}" for op, dtype in FUNCTIONS]
        compiled = jit.compile(module, [f"{self.library.isa}_{n}" for n in names], opt_level=1)
        signature = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        self.functions.update({n: signature(a) for n, a in zip(names, compiled.addresses)})
        return compiled

    def _define(self, module: ir.Module, op, dtype: str, kind: str) -> None:
        """`kind_<libm>(out, a, b)`: `out[:lanes] = variant(a[:lanes], b[:lanes])` (vector) or
        `out[0] = tistudio_<libm>(a[0], b[0])` (scalar), fewer arguments for unary functions."""
        typ = {"f32": ir.FLOAT, "f64": ir.DOUBLE}[dtype]
        bits = parse_type(dtype).bits
        lanes = dict(self.library.lanes)[bits]
        name = f"{self.library.isa}_{kind}_{_libm(op, dtype)}"
        fn = ir.Function(module, ir.FunctionType(VOID, [PTR, PTR, PTR]), name)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        out, *pointers = fn.args
        if kind == "vector":
            vector = ir.vector_type(typ, lanes)
            args = [b.load(p, typ=vector, align=1) for p in pointers[: _arity(op)]]
            variant = f"_ZGV{self.library.isa}N{lanes}{'v' * len(args)}_{_libm(op, dtype)}"
            declared = ir.Function(module, ir.FunctionType(vector, [vector] * len(args)), variant)
            b.store(b.call(declared, args), out)
        else:
            args = [b.load(p, typ=typ) for p in pointers[: _arity(op)]]
            b.store(self.library.call(b, op, parse_type(dtype), args), out)
        b.ret_void()

    def vector(self, op, dtype: str, *args: np.ndarray) -> np.ndarray:
        lanes = dict(self.library.lanes)[parse_type(dtype).bits]
        size = -(-len(args[0]) // lanes) * lanes
        padded = [_aligned(np.resize(a, size)) for a in args]
        out = _aligned(padded[0])  # the vector store needs a vector's alignment
        fn = self.functions[f"vector_{_libm(op, dtype)}"]
        for start in range(0, len(out), lanes):
            pointers = [a[start:].ctypes.data for a in padded] + [0] * (2 - len(padded))
            fn(out[start:].ctypes.data, *pointers)
        return out[: len(args[0])]

    def scalar(self, op, dtype: str, *args: np.ndarray) -> np.ndarray:
        out = np.empty_like(args[0])
        fn = self.functions[f"scalar_{_libm(op, dtype)}"]
        for k in range(len(out)):
            pointers = [a[k:].ctypes.data for a in args] + [0] * (2 - len(args))
            fn(out[k:].ctypes.data, *pointers)
        return out


def _aligned(a: np.ndarray) -> np.ndarray:
    """A copy of `a` at a 64-byte boundary."""
    raw = np.empty(a.nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    copy = raw[start : start + a.nbytes].view(a.dtype)
    copy[:] = a
    return copy


def _arguments(rng: np.random.Generator, op, dtype: str, n: int) -> list[np.ndarray]:
    """Random arguments: ordinary values, the edges of each function's domain, and the ones
    that send a lane to libmvec's scalar fallback (NaN, infinities, -0, huge, subnormal)."""
    ftype, itype = NUMPY[dtype]
    info = np.finfo(ftype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, info.tiny, info.tiny / 4]
    special += [info.max, -info.max, 1e5, 1e22, -1e30, 88.7, 89.0, -104.0, 710.0, -746.0]
    arrays = []
    for _ in range(_arity(op)):
        kind = rng.integers(0, 6, n)
        x = rng.standard_normal(n) * 3
        x = np.where(kind == 1, rng.uniform(-1.1, 1.1, n), x)
        x = np.where(kind == 2, np.exp(rng.uniform(-60, 60, n)) * rng.choice([-1, 1], n), x)
        x = np.where(kind == 3, np.array(special)[rng.integers(0, len(special), n)], x)
        x = np.where(kind == 4, np.abs(x), x)
        with np.errstate(over="ignore"):
            x = x.astype(ftype)
        raw = rng.integers(0, np.iinfo(itype).max, n, dtype=itype, endpoint=True).view(ftype)
        arrays.append(np.where(kind == 5, raw, x))
    if op is BinaryOpType.pow:  # integer exponents too: pow's special cases
        arrays[1] = np.where(rng.random(n) < 0.3, rng.integers(-4, 5, n), arrays[1]).astype(ftype)
    return arrays


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.fixture(scope="module")
def jit() -> JitEngine:
    jit = JitEngine()
    if jit.vector_library is None:
        pytest.skip("this glibc has no libmvec")
    return jit


@pytest.mark.parametrize("isa", sorted(ISAS))
def test_libmvec_lanes_are_independent(jit, isa):
    """A lane's result depends on that lane's arguments only, also where other lanes take
    libmvec's scalar fallback: each value gives the same bits in two random arrangements
    of its neighbours and alone (the scalar function, lane 0 of a splat)."""
    if isa == "d" and "+avx2" not in jit.cpu_features:
        pytest.skip("the AVX2 variants need an AVX2 CPU")
    libmvec = Libmvec(jit, ISAS[isa])
    rng = np.random.default_rng(25)
    for op, dtype in FUNCTIONS:
        args = _arguments(rng, op, dtype, 2048)
        order = rng.permutation(2048)
        alone = _bits(libmvec.scalar(op, dtype, *args))
        together = _bits(libmvec.vector(op, dtype, *args))
        shuffled = _bits(libmvec.vector(op, dtype, *(a[order] for a in args)))
        name = f"{isa} {_libm(op, dtype)}"
        np.testing.assert_array_equal(together, alone, err_msg=name)
        np.testing.assert_array_equal(shuffled, alone[order], err_msg=name)


def _kernel_text(op, dtype: str) -> str:
    """`x[i] = op(x[i])` or `x[i] = op(x[i], y[i])` over N elements."""
    operands = " ".join(f"${4 + k}" for k in range(_arity(op)))
    return f"""
    $0 = offloaded range_for(0, {N}) body {{
      <i32> $1 = loop $0 index 0
      <*{dtype}> $2 = external_ptr arg 0, [$1]
      <*{dtype}> $3 = external_ptr arg 1, [$1]
      <{dtype}> $4 = global load $2
      <{dtype}> $5 = global load $3
      <{dtype}> $6 = {op.value} {operands}
      $7 : global store [$2 <- $6]
    }}
    """


@pytest.fixture(scope="module")
def tiers(jit) -> Iterator[dict[str, CpuBackend]]:
    made = {}
    for tier in ("quick", "optimised"):
        made[tier] = CpuBackend(num_threads=4, tiering=tier)
    yield made
    for backend in made.values():
        backend.close()


@pytest.mark.parametrize(("op", "dtype"), FUNCTIONS, ids=IDS)
def test_approx_math_gives_libmvecs_bits_on_every_tier(jit, tiers, op, dtype):
    """Both tiers, and every position in the optimised loop (vector body or remainder), give
    the bits that libmvec's vector function gives for the same argument."""
    reference = Libmvec(jit, tiers["optimised"].jit.vector_library)
    args = _arguments(np.random.default_rng(7), op, dtype, N)
    want = _bits(reference.vector(op, dtype, *args))
    params = [ndarray("x", dtype, 1), ndarray("y", dtype, 1)]
    config = CompileConfig(approx_math=True)
    wrong = {}
    for tier, backend in tiers.items():
        ex = compile_text(backend, _kernel_text(op, dtype), params=params, config=config)
        if tier == "optimised":  # the loop is vectorised: its body calls the vector function
            task = re.search(r"define void @\S+_task0_range_for.*?\n}", ex.llvm_ir_optimized, re.S)
            assert re.search(r"call[ a-z]* <\d+ x \w+> @_ZGV", task.group(0)), "not vectorised"
        x, y = args[0].copy(), args[-1].copy()
        ex.launch([x, y], [])
        wrong[tier] = np.flatnonzero(_bits(x) != want).tolist()
    assert wrong == {"quick": [], "optimised": []}  # the positions whose bits differ
