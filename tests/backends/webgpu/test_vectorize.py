"""vec4 access in simple elementwise loops (`backends/webgpu/vectorize.py`): the WGSL it writes,
when it must not apply, and the same results as the scalar loop on lavapipe."""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

import tistudio as ti
from tests.backends.webgpu.test_emitter import CAPS, accepted, range_task, shaders, tree
from tistudio.lang import impl

VEC4 = replace(CAPS, vectorize=True)


@contextlib.contextmanager
def gpu_program(vectorize: bool) -> Iterator[None]:
    """A GPU program with vec4 loops on or off; after it, the device's default and ti.reset."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False, offline_cache=False)
    device = impl.get_program().gpu.device
    device.caps = replace(device.caps, vectorize=vectorize)
    try:
        yield
    finally:
        device.caps = replace(device.caps, vectorize=True)
        ti.reset()


DOUBLE = """
<*f32> $7 = get child [S2place<f32>] $6
<f32> $8 = global load $7
<f32> $9 = const 2.0
<f32> $10 = mul $8 $9
$11 : global store [$7 <- $10]
"""

GOLDEN = textwrap.dedent(
    """\
    // kernel k, task 0: offloaded range_for(0, 10)
    @group(0) @binding(0) var<storage, read_write> tree0_v4f32: array<vec4<f32>>;
    var<private> ti_never: bool;  // false at run time (ieee.opaque)

    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) gid: vec3<u32>,
            @builtin(local_invocation_index) lid: u32,
            @builtin(num_workgroups) groups: vec3<u32>) {
        ti_never = groups.y == 0u;
        let count: u32 = 10u;
        for (var k4: u32 = gid.x; k4 < 2u; k4 = k4 + groups.x * 64u) {
            let s0_i: i32 = i32(k4 * 4u);  // lane 0, for the addresses
            let s1: i32 = s0_i;
            let s6: u32 = u32(s1) * 4u;
            let ld0 = tree0_v4f32[(s6 >> 4u)];
            var st0: vec4<f32>;
            {
                let s0_i: i32 = i32(k4 * 4u);
                let s1: i32 = s0_i;
                let s6: u32 = u32(s1) * 4u;
                let s8: f32 = ld0[0];
                let c9: f32 = select(2.0f, 0.0f, ti_never);
                let s10: f32 = (s8 * c9);
                st0[0] = s10;
            }
            {
                let s0_i: i32 = i32(k4 * 4u + 1u);
                let s1: i32 = s0_i;
                let s6: u32 = u32(s1) * 4u;
                let s8: f32 = ld0[1];
                let c9: f32 = select(2.0f, 0.0f, ti_never);
                let s10: f32 = (s8 * c9);
                st0[1] = s10;
            }
            {
                let s0_i: i32 = i32(k4 * 4u + 2u);
                let s1: i32 = s0_i;
                let s6: u32 = u32(s1) * 4u;
                let s8: f32 = ld0[2];
                let c9: f32 = select(2.0f, 0.0f, ti_never);
                let s10: f32 = (s8 * c9);
                st0[2] = s10;
            }
            {
                let s0_i: i32 = i32(k4 * 4u + 3u);
                let s1: i32 = s0_i;
                let s6: u32 = u32(s1) * 4u;
                let s8: f32 = ld0[3];
                let c9: f32 = select(2.0f, 0.0f, ti_never);
                let s10: f32 = (s8 * c9);
                st0[3] = s10;
            }
            tree0_v4f32[(s6 >> 4u)] = st0;
        }
        for (var k: u32 = 8u + gid.x; k < count; k = k + groups.x * 64u) {
            let s0_i: i32 = i32(k);
            let s1: i32 = s0_i;
            let s6: u32 = u32(s1) * 4u;
            let s8: f32 = tree0_v4f32[((s6 >> 2u) >> 2u)][(s6 >> 2u) & 3u];
            let c9: f32 = select(2.0f, 0.0f, ti_never);
            let s10: f32 = (s8 * c9);
            tree0_v4f32[((s6 >> 2u) >> 2u)][(s6 >> 2u) & 3u] = s10;
        }
    }
"""
)


def test_golden_a_doubling_loop_takes_four_indices_per_step_then_the_rest(device):
    (shader,) = shaders(range_task(DOUBLE, end=10), caps=VEC4, snodes=tree("f32", n=10))
    assert shader.wgsl == GOLDEN
    assert shader.groups == 1  # 10 indices: three invocations' work, one workgroup
    assert [b.view for b in shader.bindings] == ["v4f32"]  # the rest loop reads through it too
    accepted(device, shader.wgsl)


def vec4_views(body: str, n: int = 16, *dtypes: str) -> list[str]:
    snodes = tree(*(dtypes or ("f32",)), n=n)
    (shader,) = shaders(range_task(body, end=n), caps=VEC4, snodes=snodes)
    return [b.view for b in shader.bindings if b.view.startswith("v4")]


AFTER_STORE = DOUBLE + "<f32> $12 = global load $7\n$13 : global store [$7 <- $12]"
NEIGHBOUR = """
<i32> $12 = const 1
<i32> $13 = add $1 $12
<*gen> $14 = [S1dense]::lookup($5, $13)
<*f32> $15 = get child [S2place<f32>] $14
<*f32> $7 = get child [S2place<f32>] $6
<f32> $16 = global load $7
$17 : global store [$15 <- $16]
"""
AFTER_OTHER_STORE = """
<i32> $20 = const 7
<i32> $21 = bit_and $1 $20
<i32> $22 = const 3
<i32> $23 = bit_sar $1 $22
<i32> $24 = bit_shl $23 $22
<i32> $25 = add $24 $21
<*gen> $26 = [S1dense]::lookup($5, $25)
<*f32> $27 = get child [S2place<f32>] $26
<f32> $28 = const 1.0
$29 : global store [$27 <- $28]
<*f32> $7 = get child [S2place<f32>] $6
<f32> $8 = global load $7
$30 : global store [$7 <- $8]
"""
ATOMIC = """
<*f32> $7 = get child [S2place<f32>] $6
<f32> $8 = const 1.0
<f32> $9 = atomic add($7, $8)
"""
LOOP = """
<*f32> $7 = get child [S2place<f32>] $6
<i32> $20 = const 0
<i32> $21 = const 3
<f32> $8 = global load $7
$9 : for in range($20, $21) reversed=false serialize=false {
  $10 : global store [$7 <- $8]
}
"""


@pytest.mark.parametrize(
    "why, body",
    [
        ("a load after the field's store must see the store", AFTER_STORE),
        ("the store is x[i + 1]: its vectors would not be 16-byte aligned", NEIGHBOUR),
        (
            "x[i] is loaded after a store to x[(i >> 3 << 3) + (i & 7)], the same cell",
            AFTER_OTHER_STORE,
        ),
        ("an atomic on the field", ATOMIC),
        ("a loop in the body", LOOP),
    ],
)
def test_loops_that_must_stay_scalar(why, body):
    assert vec4_views(body) == [], why


def test_a_field_whose_cells_are_not_four_bytes_stays_scalar():
    body = """
    <*f32> $7 = get child [S2place<f32>] $6
    <f32> $8 = global load $7
    <*i32> $9 = get child [S3place<i32>] $6
    <i32> $10 = cast_value<i32> $8
    $11 : global store [$9 <- $10]
    """
    # one dense of cells holding an f32 and an i32: 8 bytes a cell, no field is x[4 * i]
    assert vec4_views(textwrap.dedent(body), 16, "f32", "i32") == []


def run_kernels(vectorize: bool, n: int) -> tuple[dict[str, np.ndarray], str]:
    with gpu_program(vectorize):
        x = ti.field(ti.f32, shape=n)
        y = ti.field(ti.f32, shape=n)
        k = ti.field(ti.i32, shape=n)
        total = ti.field(ti.f32, shape=())
        count = ti.field(ti.i32, shape=())

        @ti.kernel
        def saxpy(a: ti.f32):
            for i in x:
                y[i] = a * x[i] + y[i]

        @ti.kernel
        def reduce():
            for i in x:
                total[None] += x[i]
                count[None] += k[i]

        @ti.kernel
        def chain():
            for i in k:
                k[i] = k[i] * 3 + i
                x[i] = ti.cast(k[i], ti.f32) + 0.5  # reads k after its store: k stays scalar

        x.from_numpy(np.arange(n, dtype=np.float32) % 13)
        y.from_numpy(np.ones(n, np.float32))
        k.from_numpy(np.arange(n, dtype=np.int32) % 5)
        saxpy(2.0)
        reduce()
        chain()
        wgsl = saxpy.compile_report(2.0).wgsl + reduce.compile_report().wgsl
        out = {"x": x.to_numpy(), "y": y.to_numpy(), "k": k.to_numpy()}
        out.update(total=np.array([total[None]]), count=np.array([count[None]]))
    return out, wgsl


def test_rows_of_a_matrix_field_are_runs_of_their_own(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    m = ti.field(ti.i32, shape=(3, 12))

    @ti.kernel
    def rows():
        for i in range(12):
            m[0, i] = i
            m[1, i] = 2 * i
            m[2, i] = m[0, i] + 100  # its row 0 load comes after the store: row 0 is scalar

    rows()
    want = np.stack([np.arange(12), 2 * np.arange(12), np.arange(12) + 100])
    np.testing.assert_array_equal(m.to_numpy(), want)
    wgsl = rows.compile_report().wgsl
    # rows 1 and 2 are written as vectors; row 0 is loaded after its store, so it stays scalar
    assert "var st1: vec4<i32>;" in wgsl and "var st2" not in wgsl and "let ld" not in wgsl
    ti.reset()


@pytest.mark.parametrize("n", [1000, 1001, 1002, 1003])  # every remainder of the lanes
def test_vec4_loops_give_the_scalar_loops_results(device, n):
    vector, wgsl = run_kernels(True, n)
    scalar, plain = run_kernels(False, n)
    assert "tree0_v4f32" in wgsl and "v4" not in plain
    for name in scalar:
        np.testing.assert_array_equal(vector[name], scalar[name], err_msg=name)
    np.testing.assert_array_equal(vector["y"], 2 * (np.arange(n) % 13) + 1)


def assert_one_view_per_written_buffer(*kernels) -> None:  # noqa: ANN002
    """Browsers' WebGPU forbids binding a written buffer twice (the AOT web runner)."""
    for k in kernels:
        for shader, _, _ in k.instances()[0].result.executable.tasks:
            written = [(b.resource, b.window) for b in shader.bindings if b.writable]
            assert len(written) == len(set(written)), (k, shader.bindings)


def run_branchy_kernels(vectorize: bool) -> tuple[dict[str, np.ndarray], str]:
    """A struct-for stencil (branches, neighbours, stores by some lanes only), stores by every
    third lane, and loads one cell off alignment: the vec4 plan's new cases."""
    with gpu_program(vectorize):
        side, n = 16, 256
        a = ti.field(
            ti.f32, shape=(side, side)
        )  # the tree's first field: a[i - 1, j] reads before it
        b = ti.field(ti.f32, shape=(side, side))
        y = ti.field(ti.i32, shape=n)
        z = ti.field(ti.i32, shape=n)
        x = ti.field(ti.i32, shape=n)  # the tree's last field: x[k + 1] reads past its end

        @ti.kernel
        def stencil():
            for i, j in b:
                if 0 < i < side - 1 and 0 < j < side - 1:
                    b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

        @ti.kernel
        def every_third():
            for k in y:
                if k % 3 == 0 and k < n - 1:
                    y[k] = x[k] * 2 + x[k + 1]

        @ti.kernel
        def shifted():
            for k in range(1, n - 5):  # starts one cell in: its lanes' cells are not aligned
                z[k] = x[k - 1] - x[k + 1]

        rng = np.random.default_rng(5)
        a.from_numpy(rng.integers(-9, 9, (side, side)).astype(np.float32))
        x.from_numpy(rng.integers(-99, 99, n).astype(np.int32))
        b.fill(-7.0)
        y.fill(-1)
        z.fill(-1)
        stencil()
        every_third()
        shifted()
        wgsl = "".join(k.compile_report().wgsl for k in (stencil, every_third, shifted))
        assert_one_view_per_written_buffer(stencil, every_third, shifted)
        out = {name: f.to_numpy() for name, f in (("a", a), ("b", b), ("x", x), ("y", y), ("z", z))}
    return out, wgsl


def test_branches_neighbours_and_unaligned_loads_give_the_scalar_results(device):
    vector, wgsl = run_branchy_kernels(True)
    scalar, plain = run_branchy_kernels(False)
    for name in scalar:
        np.testing.assert_array_equal(vector[name], scalar[name], err_msg=name)
    a, x = vector["a"], vector["x"]
    want_b = np.full_like(a, -7.0)
    want_b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    np.testing.assert_array_equal(vector["b"], want_b)
    k = np.arange(x.size)
    want_y = np.where((k % 3 == 0) & (k < x.size - 1), x * 2 + np.roll(x, -1), -1)
    np.testing.assert_array_equal(vector["y"], want_y)
    want_z = np.full_like(x, -1)
    want_z[1:-5] = x[:-6] - x[2:-4]
    np.testing.assert_array_equal(vector["z"], want_z)
    assert "v4" not in plain
    assert "all(st0_did)" in wgsl  # stores inside a branch: lane by lane unless all stored
    assert "let ld2_next = " in wgsl  # a[i, j - 1] straddles two vectors


def test_two_element_types_of_one_tree_keep_one_view_each(device):
    """An f32 and an i32 field of one tree: vec4 views take the place of the scalar views (as
    many views as the scalar loop binds), and the rest loop reads through them."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    a = ti.field(ti.f32, shape=12)
    b = ti.field(ti.i32, shape=12)  # 48 bytes in: its cells start 16-byte aligned

    @ti.kernel
    def convert():
        for i in range(10):  # two steps of four, then a rest of two
            b[i] = ti.cast(a[i], ti.i32) * 2
            a[i] = a[i] + 0.5

    a.from_numpy(np.arange(12, dtype=np.float32))
    convert()
    k = np.arange(12)
    np.testing.assert_array_equal(b.to_numpy(), np.where(k < 10, k * 2, 0))
    np.testing.assert_array_equal(a.to_numpy(), np.where(k < 10, k + 0.5, k))
    ((shader, _, _),) = convert.instances()[0].result.executable.tasks
    assert sorted(b.view for b in shader.bindings) == ["v4f32", "v4i32"]
    ti.reset()


@pytest.mark.parametrize("factor", [1, 4])
def test_a_loop_that_stores_nothing_takes_several_vec4_steps_per_iteration(factor):
    """A sum's vec4 loop takes `Caps.stream_unroll` steps `stride` apart per iteration, then
    the rest one by one; a loop that stores keeps one step (saxpy halved when unrolled on an
    H200). 1,000,003 elements: on lavapipe (64 workgroups of 256) three unrolled iterations,
    a remainder of vec4 steps and three scalar indices; the sums are exact."""
    n = 1_000_003
    with gpu_program(vectorize=True):
        device = impl.get_program().gpu.device
        before = device.caps
        device.caps = replace(device.caps, stream_unroll=factor)
        try:
            x = ti.field(ti.f32, shape=n)
            y = ti.field(ti.f32, shape=n)
            total = ti.field(ti.f32, shape=())
            count = ti.field(ti.i32, shape=())

            @ti.kernel
            def fill():
                for i in x:
                    x[i] = i % 7
                    y[i] = x[i] * 2.0

            @ti.kernel
            def sum_x():
                for i in x:
                    total[None] += x[i]
                    count[None] += ti.cast(x[i], ti.i32)

            fill()
            sum_x()
            exact = int(np.sum(np.arange(n) % 7))
            assert (total[None], count[None]) == (exact, exact)
            np.testing.assert_array_equal(y.to_numpy(), 2.0 * (np.arange(n) % 7))
            summed, stored = sum_x.compile_report().wgsl, fill.compile_report().wgsl
        finally:
            device.caps = before
    unrolled = "kk4 = kk4 + 4u * (groups.x * 256u)"
    assert (unrolled in summed) == (factor == 4), summed
    assert "kk4" not in stored and "for (var k4: u32" in stored, stored
