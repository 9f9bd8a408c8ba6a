"""The field viewer on sparse fields: which elements are active (against Taichi 1.7.4's
`ti.is_active` on the same layout), the block grid, a dynamic node's lengths, the stats line,
and the static picture, where inactive elements are grey."""

from __future__ import annotations

import io

import matplotlib.image
import numpy as np
import taichi

import tistudio
from tistudio.studio.activity import read_activity
from tistudio.studio.field_view import FieldView, render_png


def nested_pointers(ti):
    """A 16x16 field under pointer(4x4) -> pointer(2x2) -> dense(2x2); four writes, one inner
    block deactivated. Returns the field and Taichi's `is_active` of every element's path."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32)
    outer = ti.root.pointer(ti.ij, 4)
    inner = outer.pointer(ti.ij, 2)
    inner.dense(ti.ij, 2).place(x)
    oracle = ti.field(ti.i32, shape=(16, 16))

    @ti.kernel
    def write():
        x[1, 2] = 0.0  # an active zero
        x[9, 3] = 1.0
        x[10, 3] = 2.0
        x[15, 15] = 3.0
        ti.deactivate(inner, [4, 1])  # x[9, 3]'s block

    @ti.kernel
    def ask():
        for i, j in oracle:
            a = ti.is_active(outer, ti.rescale_index(x, outer, [i, j]))
            oracle[i, j] = a * ti.is_active(inner, ti.rescale_index(x, inner, [i, j]))

    write()
    ask()
    return x, oracle.to_numpy().astype(bool)


def bitmasked_and_dynamic(ti):
    """A bitmasked 8x6 grid (written, one cell deactivated) and five dynamic lists of up to 8
    (list i holds i elements); Taichi's `is_active` of the grid, the elements its struct-for
    visits in the lists, and `ti.length` of each list."""
    ti.init(arch=ti.cpu)
    b = ti.field(ti.i32)
    mask = ti.root.bitmasked(ti.ij, (8, 6))
    mask.place(b)
    d = ti.field(ti.i32)
    lists = ti.root.dense(ti.i, 5).dynamic(ti.j, 8)
    lists.place(d)
    seen_b = ti.field(ti.i32, shape=(8, 6))
    seen_d = ti.field(ti.i32, shape=(5, 8))
    lengths = ti.field(ti.i32, shape=5)

    @ti.kernel
    def write():
        for k in range(7):
            b[k, (k * 5) % 6] = k
        ti.deactivate(mask, [3, 3])
        for i in range(5):
            for j in range(i):
                ti.append(d.parent(), i, j * 10)

    @ti.kernel
    def ask():
        for i, j in seen_b:
            seen_b[i, j] = ti.is_active(mask, [i, j])
        for i, j in d:  # (is_active takes no dynamic node: its struct-for visits the active)
            seen_d[i, j] = 1
        for i in lengths:
            lengths[i] = ti.length(lists, [i])

    write()
    ask()
    return b, d, seen_b.to_numpy().astype(bool), seen_d.to_numpy().astype(bool), lengths


def test_activity_of_nested_pointers_is_taichis_is_active():
    _, expected = nested_pointers(taichi)
    x, ours = nested_pointers(tistudio)
    assert expected.sum() == 12  # three 2x2 blocks: the test means something
    np.testing.assert_array_equal(ours, expected)
    found = read_activity(x)
    np.testing.assert_array_equal(found.mask, expected)
    assert found.blocks == [[4, 4], [2, 2]]
    assert found.text() == "12 of 256 cells (4.69 %)"
    assert found.lengths is None


def test_activity_of_bitmasked_and_dynamic_nodes_is_taichis():
    _, _, want_b, want_d, want_len = bitmasked_and_dynamic(taichi)
    b, d, got_b, got_d, got_len = bitmasked_and_dynamic(tistudio)
    np.testing.assert_array_equal(got_b, want_b)
    np.testing.assert_array_equal(got_d, want_d)
    bits, lists = read_activity(b), read_activity(d)
    np.testing.assert_array_equal(bits.mask, want_b)
    assert bits.blocks == []  # one element per cell: no grid worth drawing
    assert bits.text() == "6 of 48 cells (12.5 %)"
    np.testing.assert_array_equal(lists.mask, want_d)
    np.testing.assert_array_equal(lists.lengths, want_len.to_numpy())
    assert lists.lengths_text() == "0, 1, 2, 3, 4 (of 8)"


def test_dense_fields_and_arrays_have_no_activity():
    tistudio.init(arch=tistudio.cpu)
    x = tistudio.field(tistudio.f32, shape=(4, 4))
    assert read_activity(x) is None
    assert read_activity(np.zeros((4, 4))) is None
    view = FieldView(x, live=False)
    assert view.active == b"" and view.activity == "" and view.blocks == []
    assert "active" not in view.static_text()


def test_field_view_stats_and_traits_follow_activation():
    x, expected = nested_pointers(tistudio)
    view = FieldView(x, title="x", max_fps=1000)
    assert view.static_text().endswith("; active: 12 of 256 cells (4.69 %)")
    assert view.blocks == [[4, 4], [2, 2]]
    np.testing.assert_array_equal(view.current_active(), expected)
    assert "active: 12 of 256 cells (4.69 %)" in view.static_html()

    outer = x.parent(3)

    @tistudio.kernel
    def clear():
        for i, j in tistudio.ndrange(4, 4):
            tistudio.deactivate(outer, [i, j])

    clear()  # a kernel writes x: the live view reads its activity again
    view.flush()
    assert view.activity == "0 of 256 cells (0 %)"
    assert not view.current_active().any()
    view.close()


def test_dynamic_lengths_in_the_stats_line():
    _, d, *_ = bitmasked_and_dynamic(tistudio)
    text = FieldView(d, title="d", live=False).static_text()
    assert text.endswith("; active: 10 of 40 cells (25 %); lengths: 0, 1, 2, 3, 4 (of 8)")


def grey_pixels(png: bytes) -> int:
    rgb = (matplotlib.image.imread(io.BytesIO(png))[..., :3] * 255 + 0.5).astype(int)
    return int((rgb == 0xC8).all(axis=-1).sum())


def test_static_picture_greys_inactive_elements_only():
    x, expected = nested_pointers(tistudio)
    values = x.to_numpy()
    sparse = render_png(values, "x", "viridis", active=expected, blocks=[[4, 4], [2, 2]])
    dense = render_png(values, "x", "viridis")
    assert grey_pixels(sparse) > 5000  # 244 of 256 elements are inactive
    assert grey_pixels(dense) < 50  # viridis has no neutral grey (the text's edges have some)
    everywhere = render_png(values, "x", "viridis", active=np.ones((16, 16), bool))
    assert grey_pixels(everywhere) < 50


def test_a_sparse_vector_fields_view_shows_its_components_activity():
    tistudio.init(arch=tistudio.cpu)
    v = tistudio.Vector.field(2, tistudio.f32)
    tistudio.root.bitmasked(tistudio.i, 4).dense(tistudio.i, 3).place(v)
    v[7] = [3.0, 4.0]
    view = FieldView(v, live=False)
    assert view.vector and view.activity == "3 of 12 cells (25 %)"
    assert view.current_active().tolist() == [False] * 6 + [True] * 3 + [False] * 3
    assert view.blocks == [[3]]
