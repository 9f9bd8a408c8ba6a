"""`ti.random` and `ti.randn` in kernels: the distributions, the reproducibility that the
counter-based generator promises (same seed, same numbers; both CPU tiers and the IR
interpreter give the same bits, the ones `ir/random.py` defines), new numbers for each call and
each launch, and passes that keep, never merge or hoist, a draw. `ti.random` is taken from
`tistudio.lang.ops` until the package exports it."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tests.passes.golden import check_pass
from tistudio.ir import random as rng
from tistudio.ir.interpreter import interpret
from tistudio.lang import impl
from tistudio.lang.ops import randn, random
from tistudio.passes import cse, die, loop_invariant_code_motion


def _fill(dtype, n: int = 256, seed: int = 0, tiering: str = "tiered") -> np.ndarray:  # noqa: ANN001
    ti.init(arch=ti.cpu, offline_cache=False, random_seed=seed, tiering=tiering)
    x = ti.field(dtype, shape=(n, n))

    @ti.kernel
    def fill():
        for i in range(n):
            for j in range(n):  # a serial inner loop: calls in one thread must differ
                x[i, j] = random(dtype)

    fill()
    impl.get_program().wait_for_optimised()
    return x.to_numpy()


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64], ids=["f32", "f64"])
def test_floats_are_uniform_in_zero_one(dtype) -> None:  # noqa: ANN001
    x = _fill(dtype).astype(np.float64)
    assert 0.0 <= x.min() and x.max() < 1.0
    for k in (1, 2, 3):
        assert (x**k).mean() == pytest.approx(1 / (k + 1), rel=1e-2)
    counts, _ = np.histogram(x, bins=16, range=(0, 1))
    assert counts.min() > 0.9 * x.size / 16


def test_f64_has_more_than_32_random_bits() -> None:
    frac, _ = np.modf(_fill(ti.f64, n=64) * 2.0**32)
    assert frac.max() > 0


@pytest.mark.parametrize(
    "dtype, low, high",
    [(ti.i32, -(2**31), 2**31), (ti.u32, 0, 2**32), (ti.i64, -(2**63), 2**63)],
    ids=["i32", "u32", "i64"],
)
def test_integers_cover_the_whole_type(dtype, low: int, high: int) -> None:  # noqa: ANN001
    x = _fill(dtype, n=128).astype(np.float64)
    scaled = (x - low) / (high - low)
    assert scaled.mean() == pytest.approx(0.5, rel=2e-2)
    assert scaled.min() < 0.01 and scaled.max() > 0.99


def test_randn_is_standard_normal() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    n = 512
    x = ti.field(ti.f32, shape=(n, n))

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = randn()

    fill()
    values = x.to_numpy().astype(np.float64)
    for k, moment in enumerate([0.0, 1.0, 0.0, 3.0]):
        assert (values ** (k + 1)).mean() == pytest.approx(moment, abs=3e-2)


def test_two_calls_in_one_iteration_are_independent() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    n = 1 << 18
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)

    @ti.kernel
    def fill():
        for i in range(n):
            x[i] = random()
            y[i] = random()

    fill()
    a, b = x.to_numpy(), y.to_numpy()
    assert not np.any(a == b)
    assert (a * b).mean() == pytest.approx(0.25, rel=1e-2)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.01


def test_each_launch_draws_new_numbers() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def gen(i: ti.i32):
        x[i] = random()

    for i in range(4):
        gen(i)
    assert len(set(x.to_numpy().tolist())) == 4


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    first, again, other = _fill(ti.f32, 32, 0), _fill(ti.f32, 32, 0), _fill(ti.f32, 32, 7)
    assert np.array_equal(first, again)
    assert not np.any(first == other)


def test_quick_and_optimised_tiers_give_the_same_bits() -> None:
    quick = _fill(ti.u32, 64, tiering="quick")
    optimised = _fill(ti.u32, 64, tiering="optimised")
    assert np.array_equal(quick, optimised)


def test_the_cpu_computes_the_reference_hash_and_the_interpreter_too() -> None:
    """Launch 0 of `gen`, task 0, iteration i, calls 0 and 1: `ir/random.py` by hand."""
    ti.init(arch=ti.cpu, offline_cache=False, random_seed=3)
    n = 16
    x = ti.field(ti.u32, shape=(n, 2))

    @ti.kernel
    def gen():
        for i in range(n):
            x[i, 0] = random(ti.u32)
            x[i, 1] = random(ti.u32)

    report = gen.compile_report()  # a kernel of its own, named "gen_report"
    final = report.result.final_ir
    program = impl.get_program()
    trees = [np.zeros_like(t.buffer) for t in program.trees]
    report.result.executable.launch([], program.root_addresses)  # its launch 0
    key = rng.launch_key(3, rng.kernel_salt(final.name), 0)
    task = rng.task_key(key, 0)
    want = [[rng.draw(rng.stream(task, i), c) for c in (0, 1)] for i in range(n)]
    assert x.to_numpy().tolist() == want
    interpret(final, [], trees, random_key=key)
    assert trees[0].view(np.uint32).reshape(n, 2).tolist() == want


def test_reverse_mode_refuses_a_kernel_that_draws() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def k():
        for i in x:
            loss[None] += x[i] * random()

    k()
    # Taichi's words and class (a RuntimeError), at the user's line
    with pytest.raises(RuntimeError, match="RandStmt not supported in AutoDiff") as e:
        k.grad()
    assert "loss[None] += x[i] * random()" in str(e.value)
    assert isinstance(e.value, ti.TaichiCompilationError)


def test_die_keeps_an_unused_draw_and_cse_merges_no_two() -> None:
    """A draw advances the call counter: deleting or merging one changes the numbers after it."""
    two_draws = """
        <u32> $0 = rand()
        <u32> $1 = rand()
        <u32> $2 = add $0 $1
        <*u32> $3 = global tmp var (offset = 0 B)
        $4 : global store [$3 <- $2]
    """
    check_pass(cse, before=two_draws, after=two_draws)
    check_pass(
        die,
        before="""
        <u32> $0 = rand()
        <u32> $1 = rand()
        <*u32> $2 = global tmp var (offset = 0 B)
        $3 : global store [$2 <- $1]
    """,
        after="""
        <u32> $0 = rand()
        <u32> $1 = rand()
        <*u32> $2 = global tmp var (offset = 0 B)
        $3 : global store [$2 <- $1]
    """,
    )


def test_licm_leaves_a_draw_in_its_loop() -> None:
    check_pass(
        loop_invariant_code_motion,
        before="""
        <i32> $0 = const 0
        <i32> $1 = const 4
        $2 : for in range($0, $1) reversed=false serialize=true {
          <u32> $3 = rand()
          <*u32> $4 = global tmp var (offset = 0 B)
          $5 : global store [$4 <- $3]
        }
    """,
        after="""
        <i32> $0 = const 0
        <i32> $1 = const 4
        <*u32> $2 = global tmp var (offset = 0 B)
        $3 : for in range($0, $1) reversed=false serialize=true {
          <u32> $4 = rand()
          $5 : global store [$2 <- $4]
        }
    """,
    )
