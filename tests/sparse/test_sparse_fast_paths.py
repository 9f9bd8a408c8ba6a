"""The cheap paths of sparse code on the CPU (issue #28's speed target): a write to a bitmasked
cell whose bit is already set does not take the atomic, and the activity they skip is still
exactly Taichi's."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import sparse as sp


@pytest.fixture(autouse=True)
def _program():
    ti.init(arch=ti.cpu, cpu_max_num_threads=4)
    yield
    ti.reset()


def _block_of(llvm_ir: str, needle: str) -> str:
    """The name of the basic block of the first line of `llvm_ir` holding `needle`."""
    label = "entry"
    for line in llvm_ir.splitlines():
        found = re.match(r"^([\w.]+):", line)
        if found:
            label = found.group(1)
        elif needle in line:
            return label
    raise AssertionError(f"{needle!r} not in the IR")


def test_a_bitmasked_write_tests_the_bit_before_the_atomic_or() -> None:
    x = ti.field(ti.f32)
    block = ti.root.bitmasked(ti.i, 64)
    block.dense(ti.i, 16).place(x)

    @ti.kernel
    def write(n: ti.i32):
        for i in range(n):
            x[i] = 1.0

    text = write.compile_report(8).llvm_ir_unoptimized
    assert _block_of(text, "atomicrmw or").startswith("set_bit")  # reached only for a clear bit
    write(1000)  # many threads writing the cells of the same blocks
    assert x.to_numpy().tolist() == [1.0] * 1000 + [0.0] * 24


def test_every_bit_is_set_when_threads_race_on_one_mask_word() -> None:
    x = ti.field(ti.i32)
    block = ti.root.bitmasked(ti.i, 256)  # 8 mask words, each shared by 32 blocks
    block.dense(ti.i, 4).place(x)

    @ti.kernel
    def write():
        for i in range(1 << 14):
            x[(i * 7919) % 1024] = 1  # every cell, in a scattered order

    @ti.kernel
    def count() -> ti.i32:
        c = 0
        for b in block:
            c += 1 + 0 * b
        return c

    write()
    assert count() == 256
    assert np.count_nonzero(x.to_numpy()) == 1024


def _final_ir(kernel, *args) -> str:
    return kernel.compile_report(*args).passes[-1].ir_text


@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_a_struct_for_writing_its_own_cells_does_not_activate_them(kind: str) -> None:
    x = ti.field(ti.f32)
    block = getattr(ti.root, kind)(ti.ij, 4)
    block.dense(ti.ij, 8).place(x)

    @ti.kernel
    def update():
        for i, j in x:
            x[i, j] = 0.5 * x[i, j] + 1.0  # the loop's own cell: active already

    @ti.kernel
    def transpose():
        for i, j in x:
            x[j, i] = x[i, j] + 1.0  # another cell, maybe inactive: activates

    @ti.kernel
    def active(a: ti.i32, b: ti.i32) -> ti.i32:
        return sp.is_active(block, [a, b])

    assert f"activate [S1{kind}]" not in _final_ir(update)
    assert f"activate [S1{kind}]" in _final_ir(transpose)
    x[3, 10] = 4.0
    update()
    assert x[3, 10] == 3.0 and active(0, 1) == 1
    transpose()
    assert x[10, 3] == 4.0 and active(1, 0) == 1


def test_a_struct_for_that_deactivates_or_loops_over_blocks_still_activates() -> None:
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 4)
    block.dense(ti.i, 4).place(x)

    @ti.kernel
    def drop_and_write():
        for i in x:
            sp.deactivate(block, [i // 4])
            x[i] = 2

    @ti.kernel
    def per_block():
        for b in block:  # b numbers blocks, x[b] is an element of block 0
            x[b] = 5

    assert "activate [S1pointer]" in _final_ir(drop_and_write)
    assert "activate [S1pointer]" in _final_ir(per_block)
    x[9] = 1
    per_block()
    assert x.to_numpy().tolist() == [0, 0, 5, 0] + [0] * 5 + [1] + [0] * 6


@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_few_large_blocks_are_split_so_every_thread_gets_part_of_each(kind: str) -> None:
    x = ti.field(ti.f32)
    block = getattr(ti.root, kind)(ti.ij, 4)  # 16 blocks of 256x256
    block.dense(ti.ij, 256).place(x)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def fill():
        for i, j in ti.ndrange(256, 256):
            x[i + 256, j + 512] = ti.cast(i * 3 + j, ti.f32)  # one block, (1, 2), of the 16

    @ti.kernel
    def update():
        for i, j in x:
            x[i, j] = x[i, j] + 1.0
            total[None] += i + j

    ir = _final_ir(update)
    assert "offloaded range_for(0, 256)" in ir  # 16 parts of each of the 16 blocks
    assert "serialize=true" in ir
    fill()
    update()
    i, j = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    expected = np.zeros((1024, 1024), np.float32)
    expected[256:512, 512:768] = i * 3 + j + 1.0
    assert np.array_equal(x.to_numpy(), expected)
    assert total[None] == int(((i + 256) + (j + 512)).sum())


def test_many_blocks_or_small_ones_are_not_split() -> None:
    x = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 64).dense(ti.ij, 16).place(x)  # 4096 blocks: parallel enough
    y = ti.field(ti.f32)
    ti.root.pointer(ti.i, 4).dense(ti.i, 64).place(y)  # blocks of 64 cells: nothing to split

    @ti.kernel
    def update_x():
        for i, j in x:
            x[i, j] += 1.0

    @ti.kernel
    def update_y():
        for i in y:
            y[i] += 1.0

    assert "offloaded range_for(0, 4096)" in _final_ir(update_x)
    assert "offloaded range_for(0, 4)" in _final_ir(update_y)


def test_a_split_dynamic_level_visits_each_list_up_to_its_length() -> None:
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 4)
    block.dynamic(ti.j, 1024, chunk_size=32).place(x)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def grow():
        for k in range(700):
            sp.append(x.parent(), 2, k)  # one list of 700 (of 1024)

    @ti.kernel
    def count():
        for i, j in x:
            total[None] += 1 + 0 * x[i, j]

    assert "offloaded range_for(0, 64)" in _final_ir(count)  # 16 parts of 64 cells
    grow()
    count()
    assert total[None] == 700
