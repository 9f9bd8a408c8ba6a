"""Run one generated program three ways and compare: the CPU back end, the reference interpreter
on the final IR, and the interpreter on the early IR (right after `type_check` and `scalarize`).

Early IR vs final IR disagreeing points at a pass; final IR vs CPU points at the back end. Integers
compare bit for bit. Floats compare exactly when the program used no transcendental function;
otherwise with a relative tolerance of 1e-6 for f32, 1e-12 for f64 and 2^-8 for f16 (4 units in
the last place), because libm and NumPy may differ in the last bits of `sin` or `exp`. That holds
with `fast_math=False` and with Taichi's default `fast_math=True` alike: the contract
(docs/compiler-contract.md) rounds every operation as IEEE does, as NumPy does, f16 ones to f16
(the interpreter computes f16 on NumPy's float16), whatever `fast_math` says. `same_bits`
compares two runs of the compiler itself (tests/fuzz/tiers.py): every bit, NaN payloads aside.
"""

from __future__ import annotations

import importlib.util
import itertools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import tistudio as ti
from tistudio.frontend.kernel_builder import build_frontend_ir
from tistudio.ir.interpreter import interpret
from tistudio.lang import impl
from tistudio.lang.types import to_dtype
from tistudio.passes import lower_ast, scalarize, type_check
from tistudio.passes.context import PassContext

from .generator import TRANSCENDENTAL, Program

_COUNTER = itertools.count()
_DIR = Path(tempfile.mkdtemp(prefix="tistudio_fuzz_"))


# (relative, absolute) tolerance of floats computed by libm on the CPU and NumPy's functions
TOLERANCE = {"f32": (1e-6, 1e-6), "f64": (1e-12, 1e-12), "f16": (2.0**-8, 2.0**-14)}


class Mismatch(AssertionError):
    """The three runs of a program disagree."""


@dataclass
class Outcome:
    """Everything a run produced: the return value, and every field and ndarray afterwards."""

    returned: Any
    arrays: dict[str, np.ndarray]


def load_program(program: Program) -> Any:
    """Write the program's source to a new file (the frontend reads real source) and import it."""
    path = _DIR / f"fuzz_kernel_{next(_COUNTER)}.py"
    path.write_text(program.source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_values(
    dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator, integral: bool = False
) -> np.ndarray:
    """Data for an array: for floats, a pool of values with NaN, infinities and random ones, or
    small integers only (`integral`, see `generator.Array`)."""
    if integral:
        return rng.integers(-100, 101, size=shape).astype(dtype)
    if dtype.kind == "f":
        pool = [0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e10, -1e-3, 1e30, 7.75, 100.5, -42.0]
        pool = np.array(pool + [3e9 + 0.5, -(2.0**31) - 0.5])  # f64 fractions beyond i32
        special = np.array([np.nan, np.inf, -np.inf])  # one value in eight
        # one in four of the rest has all its bits set at random, so that a product rounds and
        # a fused multiply-add would show (the pool's values mostly multiply exactly)
        noise = (rng.standard_normal(shape) * 10.0).astype(dtype)
        values = np.where(rng.random(shape) < 0.25, noise, rng.choice(pool, shape))
        values = np.where(rng.random(shape) < 0.125, rng.choice(special, shape), values)
        return values.astype(dtype)
    info = np.iinfo(dtype)
    raw = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    small = rng.integers(-3, 10, size=shape).astype(dtype)
    return np.where(rng.random(shape) < 0.5, small, raw)


@dataclass
class Loaded:
    """A program made in the current `ti` program, its fields filled with its seed's data."""

    kern: Any
    fields: list[Any]
    ndarrays: list[Any]  # the program's ndarray `Array`s
    arrays: list[np.ndarray]  # their NumPy data
    args: list[Any]  # scalar arguments, then the arrays

    def outcome(self, returned: Any) -> Outcome:
        return Outcome(returned, _arrays_of(self.fields, self.ndarrays, self.arrays))


def load(program: Program, **init: Any) -> Loaded:
    """`ti.init(**init)`, then make the program and fill its fields and ndarrays."""
    ti.init(offline_cache=False, **init)
    kern, fields = load_program(program).make(ti)
    rng = np.random.default_rng(program.data_seed)
    described = [a for a in program.arrays if not a.is_ndarray]  # in the order of `fields`
    for f, a in zip(fields, described):
        f.from_numpy(random_values(f.to_numpy().dtype, f.to_numpy().shape, rng, a.integral))
    ndarrays = [a for a in program.arrays if a.is_ndarray]
    arrays = [
        random_values(np.dtype(_numpy_name(a.dtype)), a.shape, rng, a.integral) for a in ndarrays
    ]
    args = [value for _, value in program.scalar_args] + arrays
    return Loaded(kern, fields, ndarrays, arrays, args)


def run_program(program: Program, fast_math: bool = False, **init: Any) -> None:
    """Run `program` on the CPU and on the interpreter (twice); raise `Mismatch` if they differ.
    `init`: more `ti.init` options (`approx_math=True`)."""
    loaded = load(program, arch=ti.cpu, fast_math=fast_math, **init)
    program_state = impl.get_program()
    program_state.materialize()
    initial = [t.buffer.copy() for t in program_state.trees]
    initial_arrays = [a.copy() for a in loaded.arrays]
    cpu = loaded.outcome(loaded.kern(*loaded.args))
    final = loaded.kern.instances()[0].result.final_ir
    interpreted = {}
    for label, ir in (("early IR", early_ir(loaded.kern, loaded.args)), ("final IR", final)):
        trees = [b.copy() for b in initial]
        copies = [a.copy() for a in initial_arrays]
        returned = interpret(ir, [v for _, v in program.scalar_args] + copies, trees)
        interpreted[label] = (returned, trees, copies)
    exact = not any(fn in program.source for fn in TRANSCENDENTAL + ("**",))
    for label, (returned, trees, copies) in interpreted.items():
        for tree, buffer in zip(program_state.trees, trees):
            tree.buffer[...] = buffer
        value = returned[0] if returned else None
        outcome = Outcome(value, _arrays_of(loaded.fields, loaded.ndarrays, copies))
        compare(cpu, outcome, exact, f"CPU vs interpreter on {label}", program.ret_type or "")


def _numpy_name(dtype: str) -> str:
    return getattr(ti, dtype).numpy_name


def _arrays_of(fields: list[Any], ndarrays: list[Any], arrays: list[np.ndarray]) -> dict:
    out = {f"field {k}": f.to_numpy() for k, f in enumerate(fields)}
    out.update({f"ndarray {a.name}": arr.copy() for a, arr in zip(ndarrays, arrays)})
    return out


def compare(
    expected: Outcome,
    actual: Outcome,
    exact: bool,
    label: str,
    ret: str = "",
    tolerance: dict[str, tuple[float, float]] | None = None,
) -> None:
    """Raise `Mismatch` unless the outcomes agree (`same`; `tolerance` as there)."""
    _compare_with(expected, actual, label, ret, lambda a, b: same(a, b, exact, tolerance))


def compare_bits(expected: Outcome, actual: Outcome, label: str, ret: str = "") -> None:
    """Raise `Mismatch` unless the outcomes agree bit for bit (`same_bits`)."""
    _compare_with(expected, actual, label, ret, same_bits)


def _compare_with(
    expected: Outcome,
    actual: Outcome,
    label: str,
    ret: str,
    agree: Callable[[np.ndarray, np.ndarray], bool],
) -> None:
    problems = []
    want, got = np.asarray(expected.returned), np.asarray(actual.returned)
    if ret in ("f16", "f32", "f64"):  # Python floats: compare at the kernel's precision
        want, got = want.astype(ret.replace("f", "float")), got.astype(ret.replace("f", "float"))
    if not agree(want, got):
        problems.append(f"return value: {expected.returned!r} != {actual.returned!r}")
    for name, want in expected.arrays.items():
        got = actual.arrays[name]
        if not agree(want, got):
            problems.append(f"{name}: {_differences(want, got, agree)}")
    if problems:
        raise Mismatch(f"{label}: " + "\n".join(problems))


def _differences(want: np.ndarray, got: np.ndarray, agree: Callable[..., bool]) -> str:
    """The first elements where `want` and `got` disagree, and how many do."""
    if want.shape != got.shape or want.dtype != got.dtype:
        return f"{want!r} != {got!r}"
    where = [k for k in np.ndindex(want.shape) if not agree(want[k][()], got[k][()])]
    shown = ", ".join(f"[{', '.join(map(str, k))}] {want[k]!r} != {got[k]!r}" for k in where[:4])
    return f"{len(where)} of {want.size} elements differ ({want.dtype}): {shown}"


def same(
    a: np.ndarray,
    b: np.ndarray,
    exact: bool,
    tolerance: dict[str, tuple[float, float]] | None = None,
) -> bool:
    """Integers bit for bit; floats exactly or to `tolerance[dtype name]` = (relative,
    absolute), by default `TOLERANCE`; NaN only matches NaN."""
    if a.dtype.kind != "f" and b.dtype.kind != "f":
        return a.shape == b.shape and bool(np.array_equal(a, b))
    name = "f64"
    for t in ("f32", "f16"):  # the narrower type of the two decides
        if np.dtype(t.replace("f", "float")) in (a.dtype, b.dtype):
            name = t
    rtol, atol = (tolerance or TOLERANCE)[name]
    a, b = a.astype(np.float64), b.astype(np.float64)
    if exact:
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, type and bits; floats too (-0.0 is not 0.0), except that any NaN matches
    any NaN (the contract does not fix NaN payloads)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    nan = np.isnan(a)
    if not np.array_equal(nan, np.isnan(b)):
        return False
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    return bool(np.array_equal(a.view(unsigned)[~nan], b.view(unsigned)[~nan]))


def early_ir(kern: Any, args: list[Any]) -> Any:
    """The kernel's IR after `lower_ast`, `type_check` and `scalarize`, before any optimisation."""
    program = impl.get_program()
    specs = kern._specs_cached
    ndarrays = {
        s.name: (to_dtype(a.dtype), a.ndim, ()) for s, a in zip(specs, args) if s.kind == "ndarray"
    }
    ir = build_frontend_ir(
        kern.fn, kern._parsed, specs, {}, ndarrays, kern._ret_types(), program.config, "early"
    )
    ctx = PassContext(program.config)
    for module in (lower_ast, type_check, scalarize):
        module.run(ir, ctx)
    return ir
