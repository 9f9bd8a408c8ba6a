"""SNode paths that skip an axis (`ti.root.dense(ti.k, 8)`): a field's indices are the path's
active axes in ascending order, so the SNode's shape, the interpreter's element offsets and the
AOT field description all see one index, as Taichi's `physical_index_position` gives."""

from __future__ import annotations

import numpy as np

import tistudio as ti
import tistudio.aot
from tistudio.ir.interpreter import field_offset, interpret
from tistudio.ir.snode import SNode, finalize_layout
from tistudio.ir.types import f32, i32
from tistudio.lang import impl


def _tree() -> tuple[SNode, SNode, SNode, SNode]:
    """root -> dense(k, 3) -> dense(i, 2) -> place(i32), and a place(f32) on dense(k, 3)."""
    root = SNode(0, "root")
    outer = root.dense((2,), (3,), 1)
    inner = outer.dense((0,), (2,), 2)
    deep = inner.place(i32, 3)
    shallow = outer.place(f32, 4)
    finalize_layout(root)
    return outer, inner, deep, shallow


def test_indices_are_the_active_axes_in_ascending_order() -> None:
    outer, inner, deep, shallow = _tree()
    assert (outer.physical_axes, outer.num_axes, outer.shape) == ((2,), 1, (3,))
    assert (deep.physical_axes, deep.num_axes, deep.shape) == ((0, 2), 2, (2, 3))
    assert shallow.shape == (3,)
    assert deep.index_positions(outer) == (1,)  # axis k is the field's second index
    assert deep.index_positions(inner) == (0,)
    assert shallow.index_positions(outer) == (0,)


def test_contiguous_axes_keep_their_numbers() -> None:
    root = SNode(0, "root")
    place = root.dense((0, 1), (4, 2), 1).dense((1,), (3,), 2).place(i32, 3)
    assert place.shape == (4, 6)
    assert [positions for _, positions in place.levels()] == [(), (0, 1), (1,), ()]


def test_element_offsets_follow_the_memory_order() -> None:
    outer, _, deep, shallow = _tree()
    # a cell of `outer` holds dense(i, 2) of i32 (8 bytes), then the f32: 12 bytes
    assert outer.cell_size == 12
    assert field_offset(deep, [1, 2]) == 2 * 12 + 4  # k = 2 outer, i = 1 inner
    assert field_offset(shallow, [2]) == 2 * 12 + 8


def test_interpreter_runs_a_kernel_on_a_field_that_skips_axes() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.i32)
    ti.root.dense(ti.k, 3).dense(ti.i, 2).place(x)

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        total = 0
        for i, j in x:
            x[i, j] = i * 10 + j * a
            total += x[i, j]
        return total

    ir = k.compile_report(5).result.final_ir
    program = impl.get_program()
    trees = [t.buffer.copy() for t in program.trees]
    assert interpret(ir, [5], trees) == [k(5)]
    for tree, buffer in zip(program.trees, trees):
        assert np.array_equal(tree.buffer, buffer)
    np.testing.assert_array_equal(x.to_numpy(), [[0, 5, 10], [10, 15, 20]])


def test_aot_field_description_has_one_index_per_active_axis(tmp_path) -> None:  # noqa: ANN001
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32)
    ti.root.dense(ti.k, 8).place(x)

    @ti.kernel
    def ramp():
        for i in x:
            x[i] = i * 0.5

    module = tistudio.aot.Module(ti.cpu)
    module.add_field("x", x)
    module.add_kernel(ramp)
    path = tmp_path / "m.tcm"
    module.archive(str(path))
    ti.reset()
    loaded = tistudio.aot.load(path, arch=ti.cpu)
    assert loaded.fields["x"].shape == (8,)
    loaded.get_kernel("ramp")()
    np.testing.assert_array_equal(loaded.fields["x"].to_numpy(), np.arange(8) * 0.5)
