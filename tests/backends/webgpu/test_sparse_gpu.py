"""Sparse SNodes on the GPU (backends/webgpu/sparse.py, runtime/gpu_memory.py): many
invocations activating the same pointer cells get one child cell each (the pool, sized to
exactly the node's cells, never runs dry), deactivated cells are collected after each launch
and reused over many rounds, an exhausted pool is a clear error after the launch, a program
whose pools cannot fit the GPU's budget is a clear error, and bitmasked and dynamic nodes take
concurrent activations, appends and deactivations."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.frontend.errors import TaichiRuntimeError
from tistudio.ir import sparse as layout
from tistudio.lang import impl


@pytest.fixture(autouse=True)
def _program():
    ti.init(arch=ti.gpu)
    if impl.get_program().gpu is None:
        pytest.skip("no WebGPU adapter")
    yield
    ti.reset()


def _counters(node) -> tuple[int, int, int, int]:
    """(bump counter, free cells, recycled cells, overflow) of a pointer pool, on the host."""
    program = impl.get_program()
    tree = program.tree_of(node.ptr)
    program.before_host_read(node.ptr)
    meta = node.ptr.meta_offset
    return tuple(int(w) for w in tree.buffer[meta : meta + layout.META_BYTES].view(np.uint32))


def test_invocations_activating_the_same_cells_take_one_child_each() -> None:
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 16)
    block.dense(ti.i, 1024).place(x)

    @ti.kernel
    def hammer():
        for i in range(1 << 16):  # 4096 invocations per block, all activating it
            ti.atomic_add(x[i % (1 << 14)], 1)

    hammer()
    assert block.ptr.pool_capacity == 16  # exactly the cells: any lost allocation overflows
    assert np.array_equal(x.to_numpy(), np.full(1 << 14, 4, np.int32))
    assert _counters(block) == (16, 0, 0, 0)


def test_cells_are_reused_over_many_rounds() -> None:
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 32)
    block.dense(ti.i, 64).place(x)

    @ti.kernel
    def fill(r: ti.i32):
        for i in range(32 * 64):
            if (i // 64 + r) % 3 != 0:
                x[i] += 1.0  # a reactivated cell starts from zero

    @ti.kernel
    def drop(r: ti.i32):
        for b in block:
            if (b + r) % 2 == 0:
                ti.deactivate(block, [b])

    blocks = np.arange(32).repeat(64)
    expected = np.zeros(32 * 64, np.float32)
    for r in range(40):
        fill(r)
        expected[(blocks + r) % 3 != 0] += 1.0
        assert np.array_equal(x.to_numpy(), expected)
        drop(r)
        expected[(blocks + r) % 2 == 0] = 0.0
        if r % 10 == 9:
            block.deactivate_all()
            expected[:] = 0.0
        assert np.array_equal(x.to_numpy(), expected)
    bump, _, recycled, overflow = _counters(block)
    assert bump <= 32 and recycled == 0 and overflow == 0


def test_an_exhausted_pool_is_an_error_after_the_launch() -> None:
    ti.reset()
    ti.init(arch=ti.gpu, device_memory_GB=1 / 1024)  # 1 MiB: 16 KiB cells, not 128 of them
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 128)
    block.dense(ti.i, 4096).place(x)

    @ti.kernel
    def touch(n: ti.i32):
        for k in range(n):
            x[k * 4096] = k + 1.0

    touch(8)
    capacity = block.ptr.pool_capacity
    assert 8 < capacity < 128
    with pytest.raises(TaichiRuntimeError, match=r"pool of pointer SNode S\d+pointer is exhausted"):
        touch(128)
    values = x.to_numpy()[::4096]
    assert np.count_nonzero(values) == capacity  # the writes that found no cell went nowhere
    assert set(values[values != 0]) <= {k + 1.0 for k in range(128)}


def test_pools_that_cannot_fit_the_budget_are_a_clear_error() -> None:
    ti.reset()
    ti.init(arch=ti.gpu, device_memory_GB=1 / 1024)
    dense = ti.field(ti.f32, shape=300_000)  # 1.2 MB of dense memory in the same tree
    y = ti.field(ti.f32)
    ti.root.pointer(ti.i, 4).dense(ti.i, 16).place(y)
    with pytest.raises(MemoryError, match=r"no room for the pool of pointer SNode.*GPU"):
        dense.fill(1.0)


def test_bitmasked_and_dynamic_under_concurrent_activation() -> None:
    b = ti.field(ti.i32)
    mask = ti.root.bitmasked(ti.i, 4096)
    mask.place(b)
    lists = ti.field(ti.i32)
    ti.root.dense(ti.i, 8).dynamic(ti.j, 1024, chunk_size=32).place(lists)
    count = ti.field(ti.i32, shape=())
    lengths = ti.field(ti.i32, shape=8)

    @ti.kernel
    def run():
        for i in range(8192):
            if i % 3 == 0:
                b[i % 4096] = 7  # neighbouring cells share a mask word
            ti.append(lists.parent(), i % 8, i)

    @ti.kernel
    def tally():
        for _ in b:
            count[None] += 1
        for r in range(8):
            lengths[r] = ti.length(lists.parent(), r)

    @ti.kernel
    def empty_odd_rows():
        for r in range(8):
            if r % 2 == 1:
                ti.deactivate(lists.parent(), [r])

    run()
    tally()
    cells = np.arange(4096)
    active = (cells % 3 == 0) | ((cells + 4096) % 3 == 0)
    assert count[None] == np.count_nonzero(active)
    assert np.array_equal(b.to_numpy() != 0, active)
    assert lengths.to_numpy().tolist() == [1024] * 8
    got = lists.to_numpy()
    assert np.all(got % 8 == np.arange(8)[:, None])  # each row holds only its own values
    assert len(np.unique(got)) == 8 * 1024  # no append lost or written twice
    empty_odd_rows()
    tally()
    assert lengths.to_numpy().tolist() == [1024, 0] * 4
    assert not lists.to_numpy()[1::2].any()


def test_host_copies_move_only_the_pool_cells_in_use() -> None:
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 4096)  # a 16 MiB pool of 4 KiB cells
    block.dense(ti.i, 1024).place(x)

    @ti.kernel
    def touch():
        x[5] = 1.0
        x[3 * 1024 + 7] = 2.0

    @ti.kernel
    def double():
        for i in x:
            x[i] *= 2.0

    memory = impl.get_program().gpu
    touch()
    before = memory.bytes_moved
    values = x.to_numpy()
    assert values[5] == 1.0 and values[3 * 1024 + 7] == 2.0 and np.count_nonzero(values) == 2
    assert memory.bytes_moved - before < 128 << 10  # slots, counters and 3 cells, not 16 MiB
    x[9 * 1024] = 3.0  # a Python-scope write activates a third cell: uploaded before a launch
    before = memory.bytes_moved
    double()
    assert memory.bytes_moved - before < 128 << 10
    values = x.to_numpy()
    assert (values[5], values[3 * 1024 + 7], values[9 * 1024]) == (2.0, 4.0, 6.0)
    assert np.count_nonzero(values) == 3


def test_sparse_nodes_in_windowed_trees_and_pools_within_one_window(device) -> None:
    small = GpuDevice(device.adapter, device.device, replace(device.caps, window_bytes=1024))
    ti.reset()
    ti.init(arch=ti.gpu)
    impl.get_program().use_gpu(small)
    b = ti.field(ti.i32)
    ti.root.dense(ti.i, 4).bitmasked(ti.i, 256).place(b)  # 4 KiB of cells: four windows
    d = ti.field(ti.i32)
    ti.root.dense(ti.i, 2).dynamic(ti.j, 300).place(d)

    @ti.kernel
    def run():
        for i in range(1024):
            if i % 5 == 0:
                b[i] = i
            if i < 600:  # 300 a row: both full
                ti.append(d.parent(), i % 2, i)

    @ti.kernel
    def empty_row():
        ti.deactivate(d.parent(), [1])

    run()
    assert "tree0_au32_w3" in run.compile_report().wgsl  # an atomic view of the fourth window
    expected = np.where(np.arange(1024) % 5 == 0, np.arange(1024), 0)
    np.testing.assert_array_equal(b.to_numpy(), expected)
    rows = d.to_numpy()
    assert sorted(rows[0]) == list(range(0, 600, 2)) and sorted(rows[1]) == list(range(1, 600, 2))
    empty_row()
    assert not d.to_numpy()[1].any() and sorted(d.to_numpy()[0]) == list(range(0, 600, 2))

    p = ti.field(ti.i32)  # a tree of its own, which fits one 1 KiB window
    block = ti.root.pointer(ti.i, 16)
    block.dense(ti.i, 16).place(p)

    @ti.kernel
    def touch():
        for i in range(256):
            if i % 16 == 3:
                p[i] = i

    with pytest.raises(TaichiRuntimeError, match="exhausted"):
        touch()
    assert impl.get_program().tree_of(block.ptr).buffer.nbytes <= 1024
    capacity = block.ptr.pool_capacity
    assert 0 < capacity < 16
    assert np.count_nonzero(p.to_numpy()) == capacity
