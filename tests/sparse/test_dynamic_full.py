"""Appending to a full `dynamic` list, as Taichi 1.7.4 does it: the cells it holds are kept (the
value is dropped) and `ti.append` gives an index past the end. Here that index is the capacity
and the length stays there (Taichi lets the length, and so the index, run on: 5 for a sixth
append to a list of 4; every reader here needs the length within the list). It overwrote the last
cell before, losing the value there."""

from __future__ import annotations

import pytest

import tistudio as ti


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_a_full_list_keeps_its_cells(arch: str) -> None:
    ti.init(arch=getattr(ti, arch), offline_cache=False)
    try:
        x = ti.field(ti.i32)
        v = ti.Vector.field(2, ti.f32)
        lists = ti.root.dense(ti.i, 3).dynamic(ti.j, 4, chunk_size=4)
        lists.place(x)
        ti.root.dense(ti.i, 3).dynamic(ti.j, 4).place(v)

        @ti.kernel
        def fill(count: ti.i32) -> ti.i32:
            last = 0
            for row in range(3):
                ti.loop_config(serialize=True)
                for k in range(count):
                    last = ti.append(lists, row, 10 * row + k)
                    v[row].append(ti.Vector([k, -k]))
            return last

        assert fill(6) == 4  # the index the sixth append was given: past the end
        assert x.to_numpy().tolist() == [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]]
        assert v.to_numpy()[1].tolist() == [[0, 0], [1, -1], [2, -2], [3, -3]]

        @ti.kernel
        def lengths() -> ti.i32:
            return ti.length(lists, 0) + ti.length(lists, 1) * 10 + ti.length(lists, 2) * 100

        assert lengths() == 444
    finally:
        ti.reset()
