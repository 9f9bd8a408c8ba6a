"""Fields with an index offset (`ti.field(..., offset=(-2, 3))`): element `(i, j)` of such a
field lives at `(i + 2, j - 3)` of its memory. Kernels (reads, writes, struct-for, `ti.grouped`,
debug bounds checks, autodiff) and Python scope (`x[i, j]`, `fill`, NumPy) all count from the
offset, on the CPU and on the GPU (lavapipe); NumPy arrays have no offset, as in Taichi 1.7.4."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tistudio as ti
from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout
from tistudio.ir.types import f32
from tistudio.lang.snode import root
from tistudio.passes import insert_debug_checks

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]


@pytest.mark.parametrize("arch", ARCHES)
def test_struct_for_indices_start_at_the_offset(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.i32, shape=(4, 8), offset=(-2, 3))

    @ti.kernel
    def label():
        for i, j in x:
            x[i, j] = i * 100 + j

    label()
    i, j = np.meshgrid(np.arange(-2, 2), np.arange(3, 11), indexing="ij")
    np.testing.assert_array_equal(x.to_numpy(), i * 100 + j)
    assert x.shape == (4, 8) and x.offset == (-2, 3)
    assert x[-2, 3] == -197 and x[1, 10] == 110


@pytest.mark.parametrize("arch", ARCHES)
def test_grouped_range_and_scalar_indices_count_from_the_offset(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=(3, 2), offset=(5, -7))
    total = ti.field(ti.f32, shape=(), offset=None)

    @ti.kernel
    def fill_grouped():
        for I in ti.grouped(x):
            x[I] = I[0] * 10 + I[1]

    @ti.kernel
    def sum_by_range() -> ti.f32:
        s = 0.0
        for i in range(5, 8):
            for j in range(-7, -5):
                s += x[i, j]
        return s

    @ti.kernel
    def read_corner():
        total[None] = x[7, -6] - x[5, -7]

    fill_grouped()
    expected = np.array([[43.0, 44.0], [53.0, 54.0], [63.0, 64.0]], np.float32)
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert sum_by_range() == pytest.approx(expected.sum())
    read_corner()
    assert total[None] == pytest.approx(64.0 - 43.0)


@pytest.mark.parametrize("arch", ARCHES)
def test_nested_struct_for_is_a_serial_loop_over_the_offset_range(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.i32, shape=4, offset=-10)
    out = ti.field(ti.i32, shape=3)

    @ti.kernel
    def run():
        for k in out:
            s = 0
            for i in x:  # an inner loop over a field: its indices, offset included
                s += i
            out[k] = s

    run()
    assert out.to_numpy().tolist() == [-10 - 9 - 8 - 7] * 3


@pytest.mark.parametrize("arch", ARCHES)
def test_python_scope_numpy_and_fill_ignore_the_offset_in_arrays(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=(2, 3), offset=(-1, 100))
    x.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x[-1, 100] == 0.0 and x[0, 102] == 5.0
    x[0, 101] = 42.0
    assert x.to_numpy()[1, 1] == 42.0
    with pytest.raises(IndexError, match="offset"):
        x[1, 100]
    with pytest.raises(IndexError):
        x[-1, 99]
    x.fill(2.5)
    np.testing.assert_array_equal(x.to_numpy(), np.full((2, 3), 2.5, np.float32))


@pytest.mark.parametrize("arch", ARCHES)
def test_vector_matrix_and_struct_fields_with_offset(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    v = ti.Vector.field(2, ti.i32, shape=3, offset=4)
    m = ti.Matrix.field(2, 2, ti.f32, shape=(2, 2), offset=(-16, 16))
    s = ti.Struct.field({"a": ti.i32, "b": ti.math.vec2}, shape=2, offset=(-1,))

    @ti.kernel
    def run():
        for i in v:
            v[i] = [i, -i]
        for i, j in m:
            m[i, j][0, 1] = i + j
        for i in s:
            s[i].a = i
            s[i].b = [i, 2 * i]

    run()
    assert v[4].to_list() == [4, -4] and v[6].to_list() == [6, -6]
    assert v.offset == (4,) and m.offset == (-16, 16) and s.offset == (-1,)
    assert m[-15, 17][0, 1] == 2.0 and m.to_numpy()[1, 1, 0, 1] == 2.0
    assert s[-1].a == -1 and s[0].b.to_list() == [0.0, 0.0] and s.b[-1].to_list() == [-1, -2]


def test_root_place_takes_an_offset() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.i32)
    root.dense(ti.ijk, 4).place(a, offset=(1024, -2048, 7))

    @ti.kernel
    def run():
        for i, j, k in a:
            a[i, j, k] = (i - 1024) * 100 + (j + 2048) * 10 + (k - 7)

    run()
    assert a[1027, -2045, 10] == 333 and a.offset == (1024, -2048, 7)
    assert a.to_numpy()[1, 2, 3] == 123


@pytest.mark.parametrize("arch", ARCHES)
def test_debug_bounds_check_reports_offset_coordinates(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)
    x = ti.field(ti.f32, shape=(4, 8), offset=(-2, 3))

    @ti.kernel
    def put(i: ti.i32, j: ti.i32):
        x[i, j] = 1.0

    put(-2, 3)
    put(1, 10)
    for bad in ((2, 3), (-3, 3), (0, 11), (0, 2)):
        with pytest.raises(ti.TaichiAssertionError) as info:
            put(*bad)
        message = str(info.value)
        assert f"Accessing field 'x' of shape (4, 8) offset (-2, 3) with indices {bad}" in message
    assert x.to_numpy().sum() == 2.0


@pytest.mark.parametrize("arch", ARCHES)
def test_gradients_share_the_offset(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=3, offset=-1, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def f():
        for i in x:
            loss[None] += x[i] * x[i] * i

    x.from_numpy(np.array([1.0, 2.0, 3.0], np.float32))
    with ti.ad.Tape(loss=loss):
        f()
    assert x.grad.offset == (-1,)
    assert x.grad[-1] == pytest.approx(-2.0) and x.grad[1] == pytest.approx(6.0)
    np.testing.assert_allclose(x.grad.to_numpy(), [-2.0, 0.0, 6.0])


def test_offset_errors_are_taichi_syntax_errors() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    same = "The dimensionality of shape and offset must be the same"
    with pytest.raises(ti.TaichiSyntaxError, match=r"must be the same \(1 != 2\)"):
        ti.field(ti.f32, shape=3, offset=(3, 4))
    with pytest.raises(ti.TaichiSyntaxError, match="shape cannot be None when offset is set"):
        ti.field(ti.f32, offset=(3, 4))
    with pytest.raises(ti.TaichiSyntaxError, match=same):
        ti.Vector.field(3, ti.f32, shape=3, offset=(3, 4))
    with pytest.raises(ti.TaichiSyntaxError, match="shape cannot be None when offset is set"):
        ti.Matrix.field(3, 3, ti.i32, offset=(32, 16))
    with pytest.raises(ti.TaichiSyntaxError, match="shape cannot be None when offset is being"):
        ti.Struct.field({"a": ti.f32}, offset=(1,))
    with pytest.raises(ti.TaichiSyntaxError, match=same):
        root.dense(ti.ij, 4).place(ti.field(ti.f32), offset=(1,))


def test_zero_offset_is_no_offset() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=(3, 3), offset=(0, 0))
    assert x.offset == (0, 0) and x._ti_place_snode.index_offsets == ()


def test_debug_check_reports_indices_plus_offset_and_runs_once() -> None:
    """The pass sees indices counted from 0; its message adds the offset back (a second run
    of the pass must still find its own check: `check_pass` runs it twice)."""
    root_node = SNode(0, "root")
    dense = root_node.dense((0, 1), (4, 8), 1)
    place = dense.place(f32, 2, "x", (-2, 3))
    finalize_layout(root_node)
    message = "Accessing field 'x' of shape (4, 8) offset (-2, 3) with indices (%d, %d)"
    check_pass(
        insert_debug_checks,
        snodes={0: root_node, 1: dense, 2: place},
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <*f32> $2 = global ptr [S2place<f32>], index [$0, $1]
            <f32> $3 = global load $2
        """,
        after=f"""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = const 4
            <i32> $3 = const 8
            <i32> $4 = const 0
            <u1> $5 = cmp_ge $0 $4
            <u1> $6 = cmp_lt $0 $2
            <u1> $7 = bit_and $5 $6
            <u1> $8 = cmp_ge $1 $4
            <u1> $9 = cmp_lt $1 $3
            <u1> $10 = bit_and $8 $9
            <u1> $11 = bit_and $7 $10
            <i32> $12 = const -2
            <i32> $13 = add $0 $12
            <i32> $14 = const 3
            <i32> $15 = add $1 $14
            $16 : assert $11, "{message}", args [$13, $15]
            <*f32> $17 = global ptr [S2place<f32>], index [$0, $1]
            <f32> $18 = global load $17
        """,
    )
