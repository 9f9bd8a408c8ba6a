"""What sparsity looks like in the IR (the pass explorer's view) and that the IR interpreter
gives sparse kernels their meaning before and after the passes."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiCompilationError
from tistudio.ir.interpreter import Interpreter
from tistudio.lang import impl
from tistudio.lang import sparse as sp
from tistudio.passes import lower_ast, type_check
from tistudio.passes.context import PassContext
from tistudio.passes.pipeline import compile_to_final_ir


@pytest.fixture(autouse=True)
def _program():
    ti.init(arch=ti.cpu)
    yield
    ti.reset()


def _final_ir(kernel, *args) -> str:
    return kernel.compile_report(*args).passes[-1].ir_text


def test_writes_activate_and_reads_go_through_the_pool() -> None:
    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.i, 8)
    ptr.bitmasked(ti.i, 4).place(x)

    @ti.kernel
    def write(i: ti.i32):
        x[i] = 1.0

    @ti.kernel
    def read(i: ti.i32) -> ti.f32:
        return x[i]

    written = _final_ir(write, 3)
    assert " : activate [S1pointer]::cell(" in written  # both levels activate (no value)
    assert "activate [S2bitmasked]::cell(" in written
    assert "[S1pointer]::pool(" in written  # slot load, then the pool cell
    read_ir = _final_ir(read, 3)
    assert "[S1pointer]::pool(" in read_ir
    assert "activate" not in read_ir  # a read activates nothing


def test_struct_for_tests_activity_and_loops_over_the_blocks_below() -> None:
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 8)
    ptr.dense(ti.i, 4).place(x)

    @ti.kernel
    def bump():
        for i in x:
            x[i] += 1

    report = bump.compile_report()
    demoted = next(p for p in report.passes if p.name == "demote_sparse_struct_fors")
    assert "is_active [S1pointer], index [" in demoted.ir_text
    assert "offloaded range_for(0, 8)" in demoted.ir_text  # parallel over the pointer cells
    assert "serialize=true" in demoted.ir_text  # the dense block inside, serially


def test_the_interpreter_runs_sparse_kernels_before_and_after_the_passes() -> None:
    x = ti.field(ti.i32)
    ptr = ti.root.pointer(ti.i, 4)
    lists = ptr.dynamic(ti.j, 8, chunk_size=4)
    lists.place(x)

    @ti.kernel
    def run() -> ti.i32:
        for i in range(3):
            for k in range(i + 1):
                sp.append(lists, [i * 1], k + 10 * i)
        total = 0
        for i, j in x:
            total += x[i, j]
        return total * 100 + sp.length(lists, [2]) * 10 + sp.is_active(ptr, [3])

    expected = 0 + (10 + 11) + (20 + 21 + 22)
    x[0, 0] = 0  # materialise the tree
    tree = impl.get_program().trees[0].buffer
    final = run.frontend_ir((), "run")
    compile_to_final_ir(final, PassContext())
    assert Interpreter(final, [], [tree.copy()]).run() == [expected * 100 + 30]
    early = run.frontend_ir((), "run")
    for module in (lower_ast, type_check):
        module.run(early, PassContext())
    buffer = tree.copy()
    assert Interpreter(early, [], [buffer]).run() == [expected * 100 + 30]
    assert run() == expected * 100 + 30  # and the CPU back end agrees
    assert np.array_equal(x.to_numpy()[:3, :3], [[0, 0, 0], [10, 11, 0], [20, 21, 22]])


def test_the_gpu_runs_a_sparse_field_and_refuses_get_addr() -> None:
    # (the GPU refused sparse fields until backends/webgpu/sparse.py; tests/backends/webgpu/
    # test_sparse_gpu.py has the rest)
    ti.reset()
    ti.init(arch=ti.gpu)
    grid = ti.field(ti.f32, name="grid")
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(grid)

    @ti.kernel
    def touch():
        grid[1, 2] = 3.0

    @ti.kernel
    def address() -> ti.u64:
        return ti.get_addr(grid, [1, 2])

    touch()
    expected = np.zeros((16, 16), np.float32)
    expected[1, 2] = 3.0
    assert np.array_equal(grid.to_numpy(), expected)
    with pytest.raises(TaichiCompilationError, match=r"get_addr.*not supported on the GPU"):
        address()


def test_aot_refuses_a_sparse_field() -> None:
    x = ti.field(ti.f32)
    ti.root.dense(ti.i, 2).bitmasked(ti.i, 8).place(x)
    module = ti.aot.Module()
    with pytest.raises(ValueError, match=r"bitmasked SNode \(S2bitmasked\).*AOT"):
        module.add_field("x", x)


def test_an_snode_template_argument_compiles_once() -> None:
    x = ti.field(ti.i32)
    ti.root.pointer(ti.i, 4).dense(ti.i, 4).place(x)
    x[5] = 1

    @ti.kernel
    def count(node: ti.template()) -> ti.i32:
        n = 0
        for i in node:
            n += 1 + 0 * i
        return n

    before = impl.get_program().num_compiled
    assert [count(x.parent(2)) for _ in range(3)] == [1, 1, 1]  # a new handle each call
    assert impl.get_program().num_compiled == before + 1


def test_the_disk_cache_key_holds_where_the_pools_are() -> None:
    from tistudio.runtime.cache_keys import layout_text

    x = ti.field(ti.f32)
    ptr = ti.root.pointer(ti.i, 4)
    ptr.dense(ti.i, 8).place(x)
    x[0] = 1.0  # materialise
    node = ptr.ptr
    expected = f"pool@{node.pool_offset}x{node.pool_capacity} meta@{node.meta_offset}"
    assert expected in layout_text(impl.get_program())
