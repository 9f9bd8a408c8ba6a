"""privatize_fields: per-thread copies of fields that a parallel loop only reduces into."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tests.passes.golden import _kernel_text, check_pass
from tests.passes.test_lower_access import _field
from tistudio.ir import parse_ir
from tistudio.ir.config import CompileConfig
from tistudio.passes import privatize_fields
from tistudio.passes.context import PassContext

TWO_THREADS = CompileConfig(cpu_max_num_threads=2)

SCATTER = """
    $0 = offloaded range_for(0, {n}) body {{
      <i32> $1 = loop $0 index 0
      <i32> $2 = const 4
      <i32> $3 = mod $1 $2
      <i32> $4 = const 8
      <i32> $5 = mod $1 $4
      <f32> $6 = const 1.5
      <*f32> $7 = global ptr [S2place<f32>], index [$3, $5]
      <f32> $8 = atomic {op}($7, $6)
    }}
"""


def test_a_2d_scatter_accumulates_into_a_private_copy_merged_per_element():
    check_pass(
        privatize_fields,
        before=SCATTER.format(n=1000, op="add"),
        after="""
            $0 = offloaded range_for(0, 1000) tls_size=128 tls prologue {
              <i32> $1 = const 0
              <i32> $2 = const 32
              $3 : for in range($1, $2) reversed=false serialize=false {
                <i32> $4 = loop $3 index 0
                <*f32> $5 = thread local array ptr (offset = 0 B) [$4]
                <f32> $6 = const -0.0
                $7 : global store [$5 <- $6]
              }
            } body {
              <i32> $8 = loop $0 index 0
              <i32> $9 = const 4
              <i32> $10 = mod $8 $9
              <i32> $11 = const 8
              <i32> $12 = mod $8 $11
              <f32> $13 = const 1.5
              <i32> $14 = const 8
              <i32> $15 = mul $10 $14
              <i32> $16 = add $15 $12
              <*f32> $17 = thread local array ptr (offset = 0 B) [$16]
              <f32> $18 = atomic add($17, $13)
            } tls epilogue {
              <i32> $19 = const 0
              <i32> $20 = const 32
              $21 : for in range($19, $20) reversed=false serialize=false {
                <i32> $22 = loop $21 index 0
                <*f32> $23 = thread local array ptr (offset = 0 B) [$22]
                <f32> $24 = global load $23
                <f32> $25 = const -0.0
                <u32> $26 = reinterpret_cast_bits<u32> $24
                <u32> $27 = reinterpret_cast_bits<u32> $25
                <u1> $28 = cmp_ne $26 $27
                $29 : if $28 {
                  <i32> $30 = const 8
                  <i32> $31 = div $22 $30
                  <i32> $32 = const 4
                  <i32> $33 = mod $31 $32
                  <i32> $34 = const 1
                  <i32> $35 = div $22 $34
                  <i32> $36 = const 8
                  <i32> $37 = mod $35 $36
                  <*f32> $38 = global ptr [S2place<f32>], index [$33, $37]
                  <f32> $39 = atomic add($38, $24)
                }
              }
            }
        """,
        snodes=_field(((0, 1), (4, 8))),
        config=TWO_THREADS,
    )


def _privatized(text: str, config: CompileConfig = TWO_THREADS, shape=(4, 8)) -> bool:
    kernel = parse_ir(_kernel_text(text), _field(((0, 1), shape)))
    return privatize_fields.run(kernel, PassContext(config))


@pytest.mark.parametrize(
    "text",
    [
        # the field is also read in the body
        SCATTER.format(n=1000, op="add").replace(
            "<f32> $8 = atomic add($7, $6)",
            "<f32> $8 = atomic add($7, $6)\n<f32> $9 = global load $7",
        ),
        # the atomic's old value is used
        SCATTER.format(n=1000, op="add").replace(
            "<f32> $8 = atomic add($7, $6)",
            "<f32> $8 = atomic add($7, $6)\n<f32> $9 = add $8 $8\n$10 : global store [$7 <- $9]",
        ),
        # two kinds of reduction into one field
        SCATTER.format(n=1000, op="add").replace(
            "<f32> $8 = atomic add($7, $6)",
            "<f32> $8 = atomic add($7, $6)\n<f32> $9 = atomic max($7, $6)",
        ),
        # too few iterations to pay for zeroing and merging 32 elements on 2 threads
        SCATTER.format(n=100, op="add"),
    ],
    ids=["also-read", "old-value-used", "mixed-ops", "does-not-pay-off"],
)
def test_what_is_not_privatizable_is_left_alone(text: str) -> None:
    assert not _privatized(text)


def test_debug_mode_keeps_every_access_on_the_field() -> None:
    debug = CompileConfig(cpu_max_num_threads=2, debug=True)
    assert not _privatized(SCATTER.format(n=1000, op="add"), debug)
    assert _privatized(SCATTER.format(n=1000, op="add"))


def test_fields_beyond_the_stack_budget_are_left_alone() -> None:
    side = 1024  # 1024 x 1024 f32 = 4 MiB > MAX_PRIVATE_BYTES
    text = SCATTER.format(n=10**8, op="add").replace("const 4\n", f"const {side}\n")
    assert not _privatized(text.replace("const 8\n", f"const {side}\n"), shape=(side, side))


# --- end to end: the compiled kernels against NumPy -------------------------------------------


@pytest.fixture
def cpu() -> None:
    ti.init(arch=ti.cpu, cpu_max_num_threads=2, offline_cache=False)


def _passes_of(kernel, *args) -> list[str]:
    return [p.name for p in kernel.compile_report(*args).passes]


def test_histogram_counts_match_bincount(cpu: None) -> None:
    rng = np.random.default_rng(1)
    data = rng.integers(0, 300, 200_000).astype(np.int32)
    x = ti.field(ti.i32, shape=data.size)
    hist = ti.field(ti.i32, shape=300)
    x.from_numpy(data)

    @ti.kernel
    def count():
        for i in x:
            hist[x[i]] += 1

    count()
    count()  # a second launch adds to the first
    np.testing.assert_array_equal(hist.to_numpy(), 2 * np.bincount(data, minlength=300))
    report = count.compile_report()
    ran = next(p for p in report.passes if p.name == "privatize_fields")
    assert ran.changed and "thread local array ptr" in ran.ir_text


@pytest.mark.parametrize("op", ["sub", "min", "max"])
def test_other_reductions_into_a_2d_field(cpu: None, op: str) -> None:
    rng = np.random.default_rng(2)
    n = 50_000
    ii, jj = rng.integers(0, 16, n), rng.integers(0, 24, n)
    vals = rng.integers(-1000, 1000, n)
    grid = ti.field(ti.i32, shape=(16, 24))
    src = ti.field(ti.i32, shape=(n, 3))
    src.from_numpy(np.stack([ii, jj, vals], axis=1).astype(np.int32))
    start = {"sub": 0, "min": 10**6, "max": -(10**6)}[op]
    grid.fill(start)

    @ti.kernel
    def scatter():
        for p in range(n):
            i, j, v = src[p, 0], src[p, 1], src[p, 2]
            if ti.static(op == "sub"):
                grid[i, j] -= v
            elif ti.static(op == "min"):
                ti.atomic_min(grid[i, j], v)
            else:
                ti.atomic_max(grid[i, j], v)

    scatter()
    want = np.full((16, 24), start, dtype=np.int64)
    ufunc = {"sub": np.subtract, "min": np.minimum, "max": np.maximum}[op]
    ufunc.at(want, (ii, jj), vals)
    np.testing.assert_array_equal(grid.to_numpy(), want.astype(np.int32))
    assert "privatize_fields" in [p.name for p in scatter.compile_report().passes if p.changed]


def test_particle_to_grid_with_vectors_matches_numpy(cpu: None) -> None:
    rng = np.random.default_rng(3)
    n, side = 20_000, 32
    pos = rng.random((n, 2)).astype(np.float32)
    x = ti.Vector.field(2, ti.f32, shape=n)
    grid_m = ti.field(ti.f32, shape=(side, side))
    grid_v = ti.Vector.field(2, ti.f32, shape=(side, side))
    x.from_numpy(pos)

    @ti.kernel
    def p2g():
        for p in x:
            cell = ti.cast(x[p] * side, ti.i32)
            grid_m[cell] += 1.0
            grid_v[cell] += x[p]

    p2g()
    cells = np.minimum((pos * side).astype(np.int64), side - 1)
    want_m = np.zeros((side, side))
    np.add.at(want_m, (cells[:, 0], cells[:, 1]), 1.0)
    want_v = np.zeros((side, side, 2))
    np.add.at(want_v, (cells[:, 0], cells[:, 1]), pos.astype(np.float64))
    np.testing.assert_allclose(grid_m.to_numpy(), want_m, rtol=1e-6)
    np.testing.assert_allclose(grid_v.to_numpy(), want_v, rtol=1e-4, atol=1e-4)
    assert "privatize_fields" in [p.name for p in p2g.compile_report().passes if p.changed]


def test_the_gpu_pipeline_does_not_privatize() -> None:
    ti.init(arch=ti.vulkan, offline_cache=False)
    data = np.random.default_rng(4).integers(0, 64, 10_000).astype(np.int32)
    x = ti.field(ti.i32, shape=data.size)
    hist = ti.field(ti.i32, shape=64)
    x.from_numpy(data)

    @ti.kernel
    def count():
        for i in x:
            hist[x[i]] += 1

    count()
    np.testing.assert_array_equal(hist.to_numpy(), np.bincount(data, minlength=64))
    assert "privatize_fields" not in _passes_of(count)
