"""Differential harness: run one program on Taichi and on tistudio and compare what comes out.

A case is a function `case_<name>(ti) -> dict[str, object]`. It receives the module (`taichi` or
`tistudio`), calls `ti.init(arch=ti.cpu, ...)` itself, defines its fields and kernels inside the
function with that `ti`, runs them and returns named results: NumPy arrays (from `to_numpy()` or
from arrays passed to `ti.types.ndarray` parameters) and Python scalars (kernel returns, `x[None]`,
shapes). Taichi 1.7.4 is the oracle; tistudio must return the same keys, the same array dtypes and
the same values.

Floats compare with `rtol=1e-6` for f32 arrays and Python floats, `1e-12` for f64 arrays. A case
that needs more room (transcendental math, where libm and LLVM intrinsics may differ in the last
ulps) sets `case.rtol` / `case.atol` and says why in a comment next to the assignment.

`test_taichi_determinism` runs each case twice on Taichi and demands bit-identical results, so
cases are written to be deterministic (integer-valued float sums, order-free max/min). A case
that cannot be would set `case.nondeterministic = True` and be compared under its tolerances.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
from collections.abc import Callable
from types import ModuleType

import numpy as np

Case = Callable[[ModuleType], dict]

CASE_MODULES = (
    "cases_fields",
    "cases_kernels",
    "cases_funcs",
    "cases_loops",
    "cases_arith",
    "cases_math",
    "cases_atomics",
    "cases_static",
    "cases_programs",
    "cases_vectors",
    "cases_matrices",
    "cases_math_vec",
    "cases_vector_fields",
    "cases_structs",
    "cases_vec_returns",
    "cases_ndarrays_vec",
    "cases_snodes",
    "cases_autodiff",
    "cases_f16",
    "cases_offset",
    "cases_recursion",
    "cases_sparse",
)

RTOL_F32 = 1e-6
RTOL_F64 = 1e-12


def collect_cases() -> dict[str, Case]:
    """Every `case_*` function of the case modules, by name without the `case_` prefix."""
    cases: dict[str, Case] = {}
    for module_name in CASE_MODULES:
        module = importlib.import_module(f"{__package__}.{module_name}")
        for attr, value in vars(module).items():
            if not (attr.startswith("case_") and callable(value)):
                continue
            name = attr.removeprefix("case_")
            assert name not in cases, f"case name {name!r} defined twice"
            cases[name] = value
    return cases


def restore_default_fp_environment() -> None:
    """Taichi's `ti.init` turns on flush-to-zero and denormals-are-zero (MXCSR) for the whole
    process; put the C default back so that later code (ours, NumPy) sees IEEE denormals."""
    libc = ctypes.CDLL(None)
    libc.fesetenv(ctypes.c_void_p(-1))  # FE_DFL_ENV on glibc


def run_case(case: Case, module: ModuleType) -> dict[str, object]:
    """Run `case` on `module` (taichi or tistudio) and reset the module afterwards."""
    try:
        result = case(module)
    finally:
        # Free the case's objects while their program is alive: a Taichi ndarray finalised by a
        # later garbage collection, after the next ti.init, fails inside Taichi.
        gc.collect()
        module.reset()
        restore_default_fp_environment()
    assert isinstance(result, dict), f"{case.__name__} returned {type(result).__name__}"
    assert all(isinstance(key, str) for key in result), "result keys must be strings"
    return result


def compare(
    expected: dict[str, object], actual: dict[str, object], case: Case, exact: bool = False
) -> None:
    """Assert that `actual` matches `expected` (from Taichi) under the case's tolerances.

    With `exact=True` floats must be bit-identical too (used to check that a case is
    deterministic on Taichi).
    """
    assert isinstance(actual, dict), f"result is {type(actual).__name__}, not dict"
    assert sorted(actual) == sorted(expected), (
        f"result keys differ: expected {sorted(expected)}, got {sorted(actual)}"
    )
    rtol = None if exact else getattr(case, "rtol", None)
    atol = 0.0 if exact else getattr(case, "atol", 0.0)
    for key in expected:
        _compare_value(key, expected[key], actual[key], exact, rtol, atol)


def _scalar_kind(value: object) -> str:
    """The type class a Python scalar result must keep: bool, int, float or str."""
    if isinstance(value, bool):
        return "bool"
    for kind in (int, float, str):
        if type(value) is kind:
            return kind.__name__
    raise AssertionError(f"unsupported result type {type(value).__name__}: {value!r}")


def _compare_value(
    path: str, expected: object, actual: object, exact: bool, rtol: float | None, atol: float
) -> None:
    if isinstance(expected, np.ndarray):
        _compare_array(path, expected, actual, exact, rtol, atol)
    elif isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), (
            f"{path}: expected {type(expected).__name__}, got {type(actual).__name__}"
        )
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for index, (e, a) in enumerate(zip(expected, actual)):
            _compare_value(f"{path}[{index}]", e, a, exact, rtol, atol)
    else:
        kind = _scalar_kind(expected)
        assert kind == _scalar_kind(actual), (
            f"{path}: expected a Python {kind} ({expected!r}), got {type(actual).__name__} "
            f"({actual!r})"
        )
        if kind == "float":
            _compare_array(path, np.array(expected), np.array(actual), exact, rtol, atol, RTOL_F32)
        else:
            assert actual == expected, f"{path}: expected {expected!r}, got {actual!r}"


def _compare_array(
    path: str,
    expected: np.ndarray,
    actual: object,
    exact: bool,
    rtol: float | None,
    atol: float,
    default_rtol: float | None = None,
) -> None:
    assert isinstance(actual, np.ndarray), (
        f"{path}: expected a numpy array, got {type(actual).__name__}"
    )
    assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != {expected.shape}"
    if exact or expected.dtype.kind not in "fc":
        np.testing.assert_array_equal(actual, expected, err_msg=path, strict=True)
        return
    if default_rtol is None:
        default_rtol = RTOL_F32 if expected.dtype == np.float32 else RTOL_F64
    np.testing.assert_allclose(
        actual, expected, rtol=max(default_rtol, rtol or 0.0), atol=atol, err_msg=path
    )


class OnGpu:
    """`ti` for a case, with every `ti.init(...)` switched to `arch=ti.gpu` (and no silent
    fallback to the CPU), so the same case runs on tistudio's WebGPU back end."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> object:
        return getattr(self._module, name)

    def init(self, *args: object, **kwargs: object) -> None:
        kwargs.pop("arch", None)
        self._module.init(*args[1:], arch=self._module.gpu, fallback_to_cpu=False, **kwargs)
