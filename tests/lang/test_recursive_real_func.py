"""A `ti.real_func` that calls itself: an IR function and call statements, on the CPU.

Expected values are arithmetic facts (sums, Fibonacci numbers), checked against Taichi 1.7.4
running the same programs where noted."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiCompilationError
from tistudio.ir import print_ir
from tistudio.lang.real_func import real_func

pair = ti.types.struct(a=ti.i32, b=ti.f32)  # module level: the annotations are strings


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)


def test_scalar_recursion_fibonacci() -> None:
    @real_func
    def fib(n: ti.i32) -> ti.i32:
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return fib(n)

    assert [run(n) for n in (0, 1, 2, 10, 20)] == [0, 1, 1, 55, 6765]


def test_template_arguments_make_one_function_per_field() -> None:
    a = ti.field(ti.i32, shape=64)
    b = ti.field(ti.f32, shape=64)
    a.from_numpy(np.arange(64, dtype=np.int32))
    b.from_numpy(np.full(64, 0.5, dtype=np.float32))

    @real_func
    def total(f: ti.template(), lo: ti.i32, hi: ti.i32) -> ti.f32:
        if hi - lo == 1:
            return f[lo]
        mid = (lo + hi) // 2
        return total(f, lo, mid) + total(f, mid, hi)

    @ti.kernel
    def run() -> ti.f32:
        return total(a, 0, 64) * 100 + total(b, 0, 64)

    assert run() == pytest.approx(2016 * 100 + 32)
    text = print_ir(run.frontend_ir((), "run"))
    assert "function total_0(i32 lo, i32 hi) -> f32 {" in text  # for a
    assert "function total_1(i32 lo, i32 hi) -> f32 {" in text  # for b


def test_mutual_recursion_of_two_real_functions() -> None:
    @real_func
    def is_even(n: ti.i32) -> ti.i32:
        if n == 0:
            return 1
        return is_odd(n - 1)

    @real_func
    def is_odd(n: ti.i32) -> ti.i32:
        if n == 0:
            return 0
        return is_even(n - 1)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return is_even(n) * 10 + is_odd(n)

    assert run(7) == 1
    assert run(10) == 10


def test_a_recursive_function_reads_and_writes_a_field() -> None:
    depth = ti.field(ti.i32, shape=32)
    calls = ti.field(ti.i32, shape=())

    @real_func
    def mark(i: ti.i32, d: ti.i32):
        calls[None] += 1
        depth[i] = d
        if i < 31:
            mark(i + 1, d + 2)
            depth[i] += depth[i + 1]  # read after the call: not forwarded across it

    @ti.kernel
    def run():
        mark(0, 1)

    run()
    expected = np.cumsum((1 + 2 * np.arange(32))[::-1])[::-1]
    np.testing.assert_array_equal(depth.to_numpy(), expected)
    assert calls[None] == 32


def test_return_from_inside_a_loop_of_a_recursive_function() -> None:
    @real_func
    def first_divisor(n: ti.i32, k: ti.i32) -> ti.i32:
        for d in range(k, n):
            if n % d == 0:
                return d
        return n

    @real_func
    def largest_prime_factor(n: ti.i32) -> ti.i32:
        d = first_divisor(n, 2)
        if d == n:
            return n
        return ti.max(d, largest_prime_factor(n // d))

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return largest_prime_factor(n)

    assert run(2 * 3 * 7 * 13) == 13
    assert run(97) == 97


def test_a_recursive_function_in_a_parallel_loop() -> None:
    out = ti.field(ti.i64, shape=4096)

    @real_func
    def tri(n: ti.i32) -> ti.i64:
        if n == 0:
            return 0
        return tri(n - 1) + n

    @ti.kernel
    def run():
        for i in out:
            out[i] = tri(i % 1000)

    run()
    n = np.arange(4096) % 1000
    np.testing.assert_array_equal(out.to_numpy(), n * (n + 1) // 2)


def test_vector_and_struct_parameters() -> None:
    @real_func
    def power_sum(v: ti.types.vector(3, ti.f32), p: pair, k: ti.i32) -> ti.f32:
        if k == 0:
            return p.b
        return v.dot(v) * p.a + power_sum(v * 0.5, p, k - 1)

    @ti.kernel
    def run() -> ti.f32:
        return power_sum(ti.Vector([1.0, 2.0, 2.0]), pair(a=2, b=0.25), 3)

    assert run() == pytest.approx(9 * 2 + 2.25 * 2 + 0.5625 * 2 + 0.25)


def test_printed_ir_shows_the_function_and_its_calls() -> None:
    from tistudio.passes.context import PassContext
    from tistudio.passes.pipeline import compile_to_final_ir

    @real_func
    def down(n: ti.i32) -> ti.i32:
        if n <= 0:
            return 0
        return down(n - 1)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return down(n)

    kernel = run.frontend_ir((3,), "run")
    compile_to_final_ir(kernel, PassContext())
    text = print_ir(kernel)
    assert "function down_0(i32 n) -> i32 {" in text
    assert "= call down_0(" in text
    assert text.index("kernel {") < text.index("function down_0")


def test_gpu_refuses_a_recursive_function_naming_it_and_its_line() -> None:
    from tistudio.ir.config import CompileConfig
    from tistudio.passes.context import PassContext
    from tistudio.passes.pipeline import compile_to_final_ir

    @real_func
    def down(n: ti.i32) -> ti.i32:
        if n <= 0:
            return 0
        return down(n - 1)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return down(n)

    kernel = run.frontend_ir((3,), "run")
    with pytest.raises(TaichiCompilationError, match="'down', which calls itself.*ti.cpu") as e:
        compile_to_final_ir(kernel, PassContext(CompileConfig(arch="gpu")))
    assert e.value.loc is not None and "def down" in e.value.loc.source_line


def test_a_template_parameter_needs_a_compile_time_value() -> None:
    @real_func
    def down(n: ti.template()) -> ti.i32:
        return down(n)

    @ti.kernel
    def run(k: ti.i32) -> ti.i32:
        return down(k)

    with pytest.raises(ti.TaichiSyntaxError, match="takes a value known at compile time"):
        run(3)


def test_aot_export_refuses_a_recursive_function(tmp_path) -> None:
    @real_func
    def down(n: ti.i32) -> ti.i32:
        if n <= 0:
            return 0
        return down(n - 1)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return down(n)

    module = ti.aot.Module()
    with pytest.raises(TaichiCompilationError, match="'down', which calls itself.*AOT"):
        module.add_kernel(run)
        module.save(tmp_path / "m")


def test_the_ir_interpreter_runs_calls_before_and_after_the_passes() -> None:
    from tistudio.ir.interpreter import Interpreter
    from tistudio.passes.context import PassContext
    from tistudio.passes.pipeline import compile_to_final_ir

    @real_func
    def fib(n: ti.i32) -> ti.i32:
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @ti.kernel
    def run(n: ti.i32) -> ti.i32:
        return fib(n) * 2

    kernel = run.frontend_ir((12,), "run")
    typed = run.frontend_ir((12,), "run")
    compile_to_final_ir(kernel, PassContext())
    assert Interpreter(kernel, [12], []).run() == [288]
    from tistudio.passes import lower_ast, type_check

    for module in (lower_ast, type_check):
        module.run(typed, PassContext())
        for function in typed.functions:
            module.run(function, PassContext())
    assert Interpreter(typed, [12], []).run() == [288]
