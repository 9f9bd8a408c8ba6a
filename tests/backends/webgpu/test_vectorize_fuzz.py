"""Random stencil-like kernels with vec4 steps on and off, on lavapipe: the same fields after.

The general fuzzer (tests/fuzz) rarely builds a loop that `vectorize.plan` takes (its arrays
have at most 8 cells, and its bodies often loop), so this one draws what the vec4 path handles:
struct-fors and `ndrange`s over 2-D fields of power-of-two and other widths, neighbour reads at
random offsets under a bounds test, a store only some lanes make, and a load of that field after
its store (which must then stay scalar). hypothesis shrinks a disagreement to its smallest case.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tistudio as ti
from tests.backends.webgpu.test_vectorize import gpu_program


@dataclass(frozen=True)
class Case:
    height: int
    width: int
    dtype: str
    di: int  # the neighbour read is a[i + di, j + dj]
    dj: int
    every: int  # b[i, j] is stored where (i + j) % every == 0
    rows: tuple[int, int] | None  # an ndrange's bounds, or None for a struct-for over b
    cols: tuple[int, int] | None


@st.composite
def cases(draw: st.DrawFn) -> Case:
    height = draw(st.sampled_from([4, 8, 13]))
    width = draw(st.sampled_from([8, 12, 16, 64, 68, 70]))
    ranged = draw(st.booleans())
    rows = cols = None
    if ranged:
        lo = draw(st.integers(0, height - 1))
        rows = (lo, draw(st.integers(lo + 1, height)))
        lo = draw(st.integers(0, width - 1))
        cols = (lo, draw(st.integers(lo + 1, width)))
    return Case(
        height,
        width,
        draw(st.sampled_from(["f32", "i32"])),
        draw(st.integers(-2, 2)),
        draw(st.integers(-5, 5)),
        draw(st.integers(1, 3)),
        rows,
        cols,
    )


def run(case: Case, vectorize: bool) -> tuple[dict[str, np.ndarray], str]:
    with gpu_program(vectorize):
        dtype = getattr(ti, case.dtype)
        h, w, di, dj, every = case.height, case.width, case.di, case.dj, case.every
        a, b, c = (ti.field(dtype, shape=(h, w)) for _ in range(3))

        @ti.func
        def cell(i: ti.i32, j: ti.i32):
            ii, jj = i + di, j + dj
            if 0 <= ii < h and 0 <= jj < w:
                v = a[ii, jj] + a[i, j] * 3
                if (i + j) % every == 0:
                    b[i, j] = v
                c[i, j] = v - b[i, j]  # reads b after its store in the same iteration

        @ti.kernel
        def over_b():
            for i, j in b:
                cell(i, j)

        rows, cols = case.rows or (0, 1), case.cols or (0, 1)

        @ti.kernel
        def over_range():
            for i, j in ti.ndrange(rows, cols):
                cell(i, j)

        rng = np.random.default_rng(3)
        a.from_numpy(
            rng.integers(-50, 50, (h, w)).astype({"f32": np.float32, "i32": np.int32}[case.dtype])
        )
        b.fill(7)
        c.fill(-9)
        kernel = over_b if case.rows is None else over_range
        kernel()
        out = {"b": b.to_numpy(), "c": c.to_numpy()}
        wgsl = kernel.compile_report().wgsl
    return out, wgsl


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_vec4_steps_change_no_result(case: Case) -> None:
    vector, wgsl = run(case, True)
    scalar, plain = run(case, False)
    assert "v4" not in plain
    for name in scalar:
        np.testing.assert_array_equal(vector[name], scalar[name], err_msg=f"{name}: {case}")


def test_the_drawn_cases_reach_the_vec4_path() -> None:
    """Not vacuous: a typical drawn case is vectorised (a's loads; b and c stay scalar for the
    load after the store), and the comparison above would see a broken lane."""
    case = Case(8, 64, "f32", 1, -1, 2, None, None)
    _, wgsl = run(case, True)
    assert "let ld0 = " in wgsl and "_next = " in wgsl


@ti.func
def spelled(k: ti.i32, shift: ti.template()) -> ti.i32:
    """The value k, written so that (for shift > 0) it is not linear in k."""
    return ((k >> shift) << shift) + (k & ((1 << shift) - 1))


def run_spellings(n: int, begin: int, store: int, load: int, vectorize: bool) -> np.ndarray:
    with gpu_program(vectorize):
        x, y, z = (ti.field(ti.i32, shape=n) for _ in range(3))

        @ti.kernel
        def same_cell():
            for k in range(begin, n):
                y[spelled(k, store)] = x[k] * 2 + 1
                z[k] = y[spelled(k, load)] - x[k]  # the cell this iteration just wrote

        x.from_numpy(np.arange(n, dtype=np.int32) * 7 % 13)
        y.fill(-5)
        same_cell()
        out = np.stack([y.to_numpy(), z.to_numpy()])
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.integers(4, 70),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
)
def test_a_load_after_a_store_sees_the_store_however_the_address_is_spelled(
    n: int, begin: int, store: int, load: int
) -> None:
    got = run_spellings(n, begin, store, load, True)
    x = np.arange(n) * 7 % 13
    want_y = np.where(np.arange(n) >= begin, x * 2 + 1, -5)
    np.testing.assert_array_equal(got[0], want_y)
    np.testing.assert_array_equal(got[1][begin:], x[begin:] + 1)
