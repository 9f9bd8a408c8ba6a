"""IR functions on the CPU (`backends/llvm/functions.py`): internal LLVM functions and calls,
deep recursion on the thread pool's threads, and debug checks and prints inside them."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.llvm.codegen import build_module
from tistudio.backends.llvm.context import ContextLayout
from tistudio.ir.config import CompileConfig
from tistudio.lang.real_func import real_func
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import compile_to_final_ir


@real_func
def _countdown(n: ti.i32) -> ti.i64:
    if n == 0:
        return 0
    return _countdown(n - 1) + 1


def test_a_function_is_an_internal_llvm_function_that_calls_itself() -> None:
    ti.init(arch=ti.cpu)

    @ti.kernel
    def run(n: ti.i32) -> ti.i64:
        return _countdown(n)

    kernel = run.frontend_ir((5,), "run")
    compile_to_final_ir(kernel, PassContext())
    module, tasks = build_module(kernel, CompileConfig(), ContextLayout.of(kernel), "k")
    text = str(module)
    assert len(tasks) == 1
    assert 'define internal i64 @"k_fn__countdown_0"(ptr noalias %"ctx", i32 %"n")' in text
    body = text[text.index('define internal i64 @"k_fn__countdown_0"') :]
    assert 'call i64 @"k_fn__countdown_0"(ptr %"ctx", i32' in body  # the recursive call
    task = text[text.index(f'@"{tasks[0]}"') :]
    assert 'call i64 @"k_fn__countdown_0"' in task


def test_deep_recursion_on_every_thread_of_the_pool() -> None:
    """Depth 20,000 in each of many parallel iterations: far below the 8 MiB thread stacks."""
    ti.init(arch=ti.cpu, cpu_max_num_threads=4)
    out = ti.field(ti.i64, shape=256)

    @ti.kernel
    def run(n: ti.i32):
        for i in out:
            out[i] = _countdown(n + i)

    run(20000)
    np.testing.assert_array_equal(out.to_numpy(), 20000 + np.arange(256))


def test_a_failed_bounds_check_inside_a_function_is_reported() -> None:
    ti.init(arch=ti.cpu, debug=True)
    f = ti.field(ti.i32, shape=8)
    f.from_numpy(np.arange(8, dtype=np.int32))

    @real_func
    def prefix(i: ti.i32) -> ti.i32:
        if i == 0:
            return f[0]
        return f[i] + prefix(i - 1)

    @ti.kernel
    def run(k: ti.i32) -> ti.i32:
        return prefix(k)

    assert run(7) == 28
    with pytest.raises(ti.TaichiAssertionError, match=r"indices \(8,\)"):
        run(8)
    assert run(3) == 6  # the next launch starts clean


def test_print_inside_a_recursive_function(capfd: pytest.CaptureFixture[str]) -> None:
    ti.init(arch=ti.cpu)

    @real_func
    def show(n: ti.i32):
        if n > 0:
            show(n - 1)
            print("level", n)

    @ti.kernel
    def run():
        print("start")
        show(3)

    run()
    ti.sync()
    assert capfd.readouterr().out.splitlines() == ["start", "level 1", "level 2", "level 3"]
