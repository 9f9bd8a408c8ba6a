"""The floating-point contract (docs/compiler-contract.md) as a user meets it on the CPU: a
kernel's first call (quick tier) and its later calls (optimised tier) give the same bits, those
bits are NumPy's and glibc's (as Taichi 1.7.4's), and NaN and infinities reach memory.

Each test compares the first call with a call after `wait_for_optimised`, under Taichi's default
`fast_math=True` and with `fast_math=False`, tiered whatever `TISTUDIO_TIERED` says.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl

N = 1000


def _first_and_optimised(kernel, out) -> tuple[np.ndarray, np.ndarray]:
    kernel()
    first = out.to_numpy()
    impl.current.program.wait_for_optimised()
    kernel()
    return first, out.to_numpy()


@pytest.fixture(params=[True, False], ids=["fast_math", "ieee"])
def cpu(request):
    ti.init(arch=ti.cpu, offline_cache=False, fast_math=request.param, tiering="tiered")
    yield
    ti.reset()


def _fields(*arrays: np.ndarray):
    made = []
    for a in arrays:
        f = ti.field(ti.f32, shape=a.shape)
        f.from_numpy(a)
        made.append(f)
    return made


def test_multiply_add_is_not_fused_on_any_call(cpu):
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    fa, fb, fc = _fields(a, b, c)
    out = ti.field(ti.f32, shape=N)

    @ti.kernel
    def mad():
        for i in out:
            out[i] = fa[i] * fb[i] + fc[i]

    first, later = _first_and_optimised(mad, out)
    want = a * b + c  # rounded after the product and after the sum
    np.testing.assert_array_equal(first, want)
    np.testing.assert_array_equal(later, want)


def test_nan_and_inf_of_equal_operands_reach_memory(cpu):
    """`f / (f - f)` is `f / 0`: an infinity of f's sign (NaN for 0); LLVM's `nnan`/`ninf`
    made it fold away and the field kept its values."""
    rng = np.random.default_rng(1)
    values = rng.random((64, 64)).astype(np.float32) - 0.5
    values[0, :4] = [0.0, np.inf, -np.inf, np.nan]
    (f,) = _fields(values)
    out = ti.field(ti.f32, shape=values.shape)

    @ti.kernel
    def divide():
        for i, j in f:
            out[i, j] = f[i, j] / (f[i, j] - f[i, j])

    first, later = _first_and_optimised(divide, out)
    with np.errstate(all="ignore"):
        want = values / (values - values)
    assert np.isinf(want).sum() == values.size - 4  # the check is about infinities
    for got in (first, later):
        np.testing.assert_array_equal(got, want)  # NaN where NumPy has NaN


def test_transcendentals_are_glibcs_on_every_call(cpu):
    """Taichi's CPU code calls glibc's `sinf`/`expf`; so do both tiers (libmvec, 4 ulp, only
    with `ti.init(approx_math=True)`)."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in ("sinf", "expf"):
        getattr(libm, name).restype = ctypes.c_float
        getattr(libm, name).argtypes = [ctypes.c_float]
    x = np.random.default_rng(2).uniform(-20, 20, N).astype(np.float32)
    (fx,) = _fields(x)
    out = ti.field(ti.f32, shape=N)

    @ti.kernel
    def waves():
        for i in out:
            out[i] = ti.sin(fx[i]) + ti.exp(fx[i] * 0.25)

    first, later = _first_and_optimised(waves, out)
    quarter = x * np.float32(0.25)
    want = np.array([libm.sinf(float(v)) for v in x], np.float32) + np.array(
        [libm.expf(float(v)) for v in quarter], np.float32
    )
    np.testing.assert_array_equal(first, want)
    np.testing.assert_array_equal(later, want)
