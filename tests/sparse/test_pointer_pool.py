"""The pointer pool under load (ir/sparse.py, backends/llvm/sparse.py): many threads activating
the same cells agree on one child cell each (compare-and-swap), deactivated cells are reused
(the bump counter stays bounded over many rounds), and an exhausted pool is a clear error after
the launch, never a write out of bounds."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.frontend.errors import TaichiRuntimeError
from tistudio.ir import sparse as layout
from tistudio.lang import impl
from tistudio.lang import sparse as sp


@pytest.fixture(autouse=True)
def _program():
    ti.init(arch=ti.cpu, cpu_max_num_threads=8)
    yield
    ti.reset()


def _counters(node) -> tuple[int, int, int]:
    """(bump counter, free cells, recycled cells) of a pointer node's pool."""
    buffer = impl.get_program().tree_of(node.ptr).buffer
    meta = node.ptr.meta_offset
    words = buffer[meta : meta + layout.META_BYTES].view(np.uint32)
    return int(words[0]), int(words[1]), int(words[2])


def test_threads_activating_the_same_cells_agree_on_one_child_each() -> None:
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 64)
    block.dense(ti.i, 16).place(x)

    @ti.kernel
    def hammer():
        for i in range(1 << 16):  # every block written by ~1000 iterations on 8 threads
            x[(i * 7919) % 1024] += 1

    hammer()
    assert (x.to_numpy() == 64).all()  # no increment landed in a cell another thread dropped
    bump, free, recycled = _counters(block)
    assert bump - free == 64  # live cells: exactly one per block; race losers were recycled
    assert recycled == 0  # (moved to the free list after the launch)


def test_deactivated_cells_are_reused_and_memory_does_not_grow() -> None:
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 32)
    block.dense(ti.i, 8).place(x)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def activate_all(r: ti.i32):
        for i in range(256):
            x[i] += r + 1.0

    @ti.kernel
    def drop_all():
        for b in block:
            sp.deactivate(block, [b])

    @ti.kernel
    def sum_all():
        total[None] = 0.0
        for i in x:
            total[None] += x[i]

    for r in range(50):
        activate_all(r)
        sum_all()
        assert total[None] == 256 * (r + 1.0)  # reactivated cells start from zero
        drop_all()
    bump, free, _ = _counters(block)
    assert bump <= 32 + 8  # 32 blocks, plus at most one lost race per thread
    assert bump - free == 0  # everything back in the free list


def test_an_exhausted_pool_is_an_error_after_the_launch() -> None:
    x = ti.field(ti.f32)
    # 64 MiB cells: the 1 GiB pool holds 16 of the 32 cells
    block = ti.root.pointer(ti.i, 32)
    block.dense(ti.i, 1 << 24).place(x)

    @ti.kernel
    def touch(n: ti.i32):
        for k in range(n):
            x[k << 24] = k + 1.0

    touch(16)
    assert block.ptr.pool_capacity == layout.POOL_BYTES // (4 << 24) == 16
    with pytest.raises(TaichiRuntimeError, match=r"pool of pointer SNode S\d+pointer is exhausted"):
        touch(20)
    assert [x[k << 24] for k in range(16)] == [k + 1.0 for k in range(16)]
    assert x[17 << 24] == 0.0  # the overflowing writes went nowhere that can be read back
    with pytest.raises(TaichiRuntimeError, match="exhausted"):
        x[18 << 24] = 1.0  # Python scope too


def test_deactivating_an_outer_pointer_frees_the_pointer_cells_inside_it() -> None:
    x = ti.field(ti.i32)
    outer = ti.root.pointer(ti.i, 4)
    inner = outer.pointer(ti.i, 4)  # its pool holds 16 cells: all of them, once
    inner.dense(ti.i, 2).place(x)

    @ti.kernel
    def write_all(r: ti.i32):
        for i in range(32):
            x[i] = r + i

    @ti.kernel
    def drop_outer():
        for b in range(4):
            sp.deactivate(outer, [b])

    for r in range(20):
        write_all(r)  # needs all 16 inner cells again: they must have come back
        assert x[31] == r + 31
        drop_outer()
        assert x[31] == 0
    bump, free, _ = _counters(inner)
    assert bump - free == 0 and bump <= 16


def test_deactivate_all_zeroes_the_used_part_of_the_pool_only() -> None:
    x = ti.field(ti.f32)
    block = ti.root.pointer(ti.i, 64)
    block.dense(ti.i, 4).place(x)

    @ti.kernel
    def write(n: ti.i32, v: ti.f32):
        for i in range(n):
            x[i] = v

    write(40, 3.0)  # 10 blocks: pool cells 1..10
    node = block.ptr
    buffer = impl.get_program().tree_of(node).buffer
    cells = buffer[node.pool_offset :].view(np.float32)[: 65 * 4].reshape(65, 4)
    bump, _, _ = _counters(block)
    assert bump == 10
    cells[bump + 1 :] = 7.0  # beyond the bump counter: never handed out (a marker here)
    block.deactivate_all()
    assert (cells[: bump + 1] == 0).all()  # every cell handed out is zero again
    assert (cells[bump + 1 :] == 7.0).all()  # the rest was not written (no memset of the pool)
    assert _counters(block) == (0, 0, 0)
    cells[bump + 1 :] = 0.0
    write(16, 1.0)  # reuses cells 1..4 from the bump counter: they read zeros before the write
    assert x.to_numpy()[:20].tolist() == [1.0] * 16 + [0.0] * 4


def test_no_pool_cell_is_taken_in_vain_by_threads_racing_for_a_slot() -> None:
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 64)  # its pool holds exactly 64 cells
    block.dense(ti.i, 16).place(x)

    @ti.kernel
    def hammer():
        for i in range(1 << 16):  # ~1000 writes per block, from 8 threads
            x[(i * 7919) % 1024] += 1

    for _ in range(5):
        hammer()  # a cell taken for a slot another thread filled would overflow the pool
        assert _counters(block) == (64, 0, 0)
        block.deactivate_all()
