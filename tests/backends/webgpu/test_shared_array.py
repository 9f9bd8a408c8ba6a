"""`ti.simt.block` on the GPU back end (backends/webgpu/simt.py): shared arrays in workgroup
memory, `sync()` as a workgroup barrier, `thread_idx()`, and `ti.loop_config(block_dim=B)` as
the workgroup size. Tiled kernels give the plain kernels' results, for ranges of whole tiles
and for a partial last tile (fixed or known at launch); the passes neither drop a shared store
nor merge loads across a barrier; the CPU, float atomics on a shared array and what a partial
tile cannot guard are refused at the user's line; the IR shows the new statements."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.frontend.errors import TaichiSyntaxError

N, B = 512, 64


@pytest.fixture
def gpu(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    yield
    ti.reset()


def _nbody_kernels(n: int, block: int):
    """The classic CUDA n-body, in Taichi: each workgroup loads a tile of `block` bodies into
    shared memory, every invocation adds the pull of the tile's bodies on its own body."""
    pos = ti.Vector.field(3, ti.f32, shape=n)
    acc_plain = ti.Vector.field(3, ti.f32, shape=n)
    acc_tiled = ti.Vector.field(3, ti.f32, shape=n)

    @ti.kernel
    def plain():
        for i in range(n):
            p = pos[i]
            a = ti.Vector([0.0, 0.0, 0.0])
            for j in range(n):
                d = pos[j] - p
                r2 = d.dot(d) + 0.01
                a += d / (r2 * ti.sqrt(r2))
            acc_plain[i] = a

    @ti.kernel
    def tiled():
        ti.loop_config(block_dim=block)
        for i in range(n):
            tile = ti.simt.block.SharedArray((block, 3), ti.f32)
            t = ti.simt.block.thread_idx()
            p = pos[i]
            a = ti.Vector([0.0, 0.0, 0.0])
            for k in range(n // block):
                q = pos[k * block + t]
                tile[t, 0] = q[0]
                tile[t, 1] = q[1]
                tile[t, 2] = q[2]
                ti.simt.block.sync()
                for j in range(block):
                    d = ti.Vector([tile[j, 0], tile[j, 1], tile[j, 2]]) - p
                    r2 = d.dot(d) + 0.01
                    a += d / (r2 * ti.sqrt(r2))
                ti.simt.block.sync()
            acc_tiled[i] = a

    return pos, acc_plain, acc_tiled, plain, tiled


def test_a_tiled_nbody_matches_the_plain_kernel(gpu):
    pos, acc_plain, acc_tiled, plain, tiled = _nbody_kernels(N, B)
    rng = np.random.default_rng(7)
    pos.from_numpy(rng.standard_normal((N, 3)).astype(np.float32))
    plain()
    tiled()
    want, got = acc_plain.to_numpy(), acc_tiled.to_numpy()
    assert np.abs(want).max() > 1.0  # the bodies pull: a zero result would not pass
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    wgsl = tiled.compile_report().wgsl
    assert "var<workgroup> shared_s" in wgsl and f"array<f32, {B * 3}>" in wgsl
    assert wgsl.count("workgroupBarrier();") == 2
    assert f"@workgroup_size({B})" in wgsl


def test_an_integer_tiled_sum_over_all_elements_is_exact(gpu):
    """Every invocation sums all `N` values through tiles: each one must see every tile
    complete (the first barrier) and not yet overwritten (the second)."""
    x = ti.field(ti.i32, shape=N)
    out = ti.field(ti.i32, shape=N)

    @ti.kernel
    def tiled_sum():
        ti.loop_config(block_dim=B)
        for i in range(N):
            tile = ti.simt.block.SharedArray(B, ti.i32)
            t = ti.simt.block.thread_idx()
            total = 0
            for k in range(N // B):
                tile[t] = x[k * B + t]
                ti.simt.block.sync()
                for j in range(B):
                    total += tile[j] * (j + 1)
                ti.simt.block.sync()
            out[i] = total + i

    values = np.arange(N, dtype=np.int32) * 7 - 1000
    x.from_numpy(values)
    tiled_sum()
    weights = np.arange(N) % B + 1
    want = int((values.astype(np.int64) * weights).sum())
    np.testing.assert_array_equal(out.to_numpy(), want + np.arange(N))


def test_atomic_updates_of_shared_elements_are_workgroup_atomics(gpu):
    """`s[0] += t` from every invocation: the workgroup's sum of 0..B-1, in each workgroup
    (the array becomes atomic<i32>); its other elements still read and write."""
    out = ti.field(ti.i32, shape=N)
    old = ti.field(ti.i32, shape=N)

    @ti.kernel
    def atomic_add():
        ti.loop_config(block_dim=B)
        for i in range(N):
            t = ti.simt.block.thread_idx()
            s = ti.simt.block.SharedArray((B,), ti.i32)
            s[t] = t
            ti.simt.block.sync()
            s[0] += t
            old[i] = ti.atomic_max(s[1], 1000 + i % 7)
            ti.simt.block.sync()
            out[i] = s[0] * 10000 + s[1] + s[t] * 0

    atomic_add()
    group = B * (B - 1) // 2
    np.testing.assert_array_equal(out.to_numpy(), group * 10000 + 1006)
    assert set(old.to_numpy()) <= {1} | set(range(1000, 1007))
    assert "array<atomic<i32>, 64>" in atomic_add.compile_report().wgsl


def test_a_float_atomic_on_a_shared_element_is_refused(gpu):
    out = ti.field(ti.f32, shape=B)

    @ti.kernel
    def atomic_add():
        ti.loop_config(block_dim=B)
        for i in range(B):
            s = ti.simt.block.SharedArray((B,), ti.f32)
            s[i] = 0.0
            ti.simt.block.sync()
            s[0] += 1.5
            ti.simt.block.sync()
            out[i] = s[0]

    with pytest.raises(TaichiSyntaxError, match="i32 and u32 only") as info:
        atomic_add()
    assert "s[0] += 1.5" in str(info.value)


def test_a_tree_reduction_without_atomics(gpu):
    x = ti.field(ti.i32, shape=N)
    sums = ti.field(ti.i32, shape=N // B)

    @ti.kernel
    def block_sums():
        ti.loop_config(block_dim=B)
        for i in range(N):
            s = ti.simt.block.SharedArray((B,), ti.i32)
            t = ti.simt.block.thread_idx()
            s[t] = x[i]
            ti.simt.block.sync()
            for level in range(6):  # strides 32, 16, ..., 1
                stride = B >> (level + 1)
                v = s[t]
                if t < stride:
                    v = v + s[t + stride]
                ti.simt.block.sync()
                s[t] = v
                ti.simt.block.sync()
            if t == 0:
                sums[i // B] = s[0]

    values = (np.arange(N, dtype=np.int32) * 37) % 101 - 50
    x.from_numpy(values)
    block_sums()
    np.testing.assert_array_equal(sums.to_numpy(), values.reshape(-1, B).sum(axis=1))


@pytest.mark.parametrize("block", [32, 128])
def test_block_dim_sets_the_workgroup_and_thread_idx(gpu, block):
    n = 4 * block
    idx = ti.field(ti.i32, shape=n)
    gidx = ti.field(ti.i32, shape=n)
    plain = ti.field(ti.i32, shape=n)

    @ti.kernel
    def write_ids():
        ti.loop_config(block_dim=block)
        for i in range(n):
            idx[i] = ti.simt.block.thread_idx()
            gidx[i] = ti.simt.block.global_thread_idx()

    @ti.kernel
    def no_simt():
        ti.loop_config(block_dim=block)
        for i in range(n):
            plain[i] = i

    write_ids()
    no_simt()
    np.testing.assert_array_equal(idx.to_numpy(), np.arange(n) % block)
    np.testing.assert_array_equal(gidx.to_numpy(), np.arange(n))  # one index per invocation
    assert f"@workgroup_size({block})" in write_ids.compile_report().wgsl
    assert f"@workgroup_size({block})" in no_simt.compile_report().wgsl  # not 64 for 128 items
    np.testing.assert_array_equal(plain.to_numpy(), np.arange(n))


def test_passes_keep_shared_stores_and_loads_on_both_sides_of_a_barrier(gpu):
    """`s[u]` is read, the array rewritten, and `s[u]` read again: merging the two loads (cse)
    or dropping the second store would give `a` twice."""
    out = ti.field(ti.i32, shape=N)

    @ti.kernel
    def twice():
        ti.loop_config(block_dim=B)
        for i in range(N):
            s = ti.simt.block.SharedArray((B,), ti.i32)
            t = ti.simt.block.thread_idx()
            u = (t + 1) % B
            s[t] = i
            ti.simt.block.sync()
            a = s[u]
            ti.simt.block.sync()
            s[t] = i * 3
            ti.simt.block.sync()
            b = s[u]
            out[i] = a * 10000 + b

    twice()
    i = np.arange(N)
    neighbour = i - i % B + (i % B + 1) % B
    np.testing.assert_array_equal(out.to_numpy(), neighbour * 10000 + neighbour * 3)


@pytest.mark.parametrize("n", [100, 64 * 3 + 1, 17])
def test_ranges_that_are_not_a_multiple_of_block_dim(gpu, n):
    """A partial last tile, with the range's end known at compile time or only at launch: the
    invocations past the end reach every barrier and help stage a tile, but write nothing."""
    x = ti.field(ti.i32, shape=256)
    out = ti.field(ti.i32, shape=256)
    total = ti.field(ti.i32, shape=())

    def body(i, m):
        s = ti.simt.block.SharedArray((64,), ti.i32)
        t = ti.simt.block.thread_idx()
        acc = 0
        for k in range((m + 63) // 64):  # every element, staged by tile with its own check
            s[t] = x[k * 64 + t] if k * 64 + t < m else 0
            ti.simt.block.sync()
            for j in range(64):
                acc += s[j]
            ti.simt.block.sync()
        out[i] = acc + i
        total[None] += 1  # an atomic whose value is unused: one per index of the range

    @ti.kernel
    def fixed():
        ti.loop_config(block_dim=64)
        for i in range(n):
            body(i, n)

    @ti.kernel
    def at_launch(m: ti.i32):
        ti.loop_config(block_dim=64)
        for i in range(m):
            body(i, m)

    body = ti.func(body)
    values = (np.arange(256, dtype=np.int32) * 13) % 97 - 40
    x.from_numpy(values)
    want = np.full(256, 0, dtype=np.int32)
    want[:n] = values[:n].sum() + np.arange(n)
    for run in (fixed, lambda: at_launch(n)):
        out.fill(0)
        total[None] = 0
        run()
        np.testing.assert_array_equal(out.to_numpy(), want)
        assert total[None] == n
    assert "if (ti_active) {" in fixed.compile_report().wgsl


def test_the_value_of_an_atomic_in_a_partial_tile_is_refused(gpu):
    out = ti.field(ti.i32, shape=100)
    count = ti.field(ti.i32, shape=())

    @ti.kernel
    def ragged():
        ti.loop_config(block_dim=64)
        for i in range(100):
            s = ti.simt.block.SharedArray((64,), ti.i32)
            s[i % 64] = i
            ti.simt.block.sync()
            out[i] = ti.atomic_add(count[None], 1) + s[(i + 1) % 64]

    with pytest.raises(UnsupportedOnBackend, match="not a compile-time multiple") as info:
        ragged()
    assert "out[i] = ti.atomic_add(count[None], 1)" in str(info.value)


def test_a_sparse_write_in_a_partial_tile_is_refused(gpu):
    """Writing a pointer field activates its cell, an operation with a value: no `if` fits
    around it, so a partial tile cannot keep its extra invocations from activating cells."""
    y = ti.field(ti.i32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 16).place(y)

    @ti.kernel
    def ragged():
        ti.loop_config(block_dim=64)
        for i in range(100):
            s = ti.simt.block.SharedArray((64,), ti.i32)
            s[i % 64] = i
            ti.simt.block.sync()
            y[i] = s[(i + 1) % 64]

    with pytest.raises(UnsupportedOnBackend, match="a sparse operation"):
        ragged()


def test_the_cpu_refuses_simt_at_the_users_line():
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=64)

    @ti.kernel
    def on_cpu():
        ti.loop_config(block_dim=16)
        for i in range(64):
            s = ti.simt.block.SharedArray((16,), ti.i32)
            s[i % 16] = i
            out[i] = s[i % 16]

    try:
        with pytest.raises(TaichiSyntaxError, match=r"SharedArray needs the GPU back end") as e:
            on_cpu()
        assert "s = ti.simt.block.SharedArray((16,), ti.i32)" in str(e.value)
    finally:
        ti.reset()


def test_simt_outside_a_parallel_loop_is_refused(gpu):
    @ti.kernel
    def serial_sync():
        ti.simt.block.sync()

    with pytest.raises(TaichiSyntaxError, match="inside a parallel for loop"):
        serial_sync()


def test_a_ti_func_can_stage_and_sync(gpu):
    """The array travels into a ti.func as a template argument; sync() inside the func is the
    same workgroup barrier."""
    out = ti.field(ti.f32, shape=256)

    @ti.func
    def stage(s: ti.template(), t: ti.i32, v: ti.f32):
        s[t] = v
        ti.simt.block.sync()

    @ti.kernel
    def mirror():
        ti.loop_config(block_dim=128)
        for i in range(256):
            s = ti.simt.block.SharedArray(128, ti.f32)
            t = ti.simt.block.thread_idx()
            stage(s, t, i * 1.0)
            out[i] = s[127 - t]

    mirror()
    i = np.arange(256)
    np.testing.assert_array_equal(out.to_numpy(), i - i % 128 + 127 - i % 128)


def test_the_ir_shows_shared_arrays_barriers_and_thread_indices(gpu):
    out = ti.field(ti.f32, shape=128)

    @ti.kernel
    def shown():
        ti.loop_config(block_dim=64)
        for i in range(128):
            s = ti.simt.block.SharedArray((64,), ti.f32)
            s[ti.simt.block.thread_idx()] = i * 0.5
            ti.simt.block.sync()
            out[i] = s[63 - ti.simt.block.thread_idx()]

    shown()
    records = {r.name: r.ir_text for r in shown.compile_report().passes}
    final = shown.compile_report().passes[-1].ir_text
    for text in (records["lower_ast"], final):
        assert "<*f32> $" in text and "= shared array [64]" in text
        assert "shared store $" in text and "shared load $" in text
        assert ": block barrier" in text and 'thread index "local"' in text
    assert "offloaded range_for(0, 128) block_dim=64" in final
    np.testing.assert_array_equal(
        out.to_numpy(), (np.arange(128) - np.arange(128) % 64 + 63 - np.arange(128) % 64) * 0.5
    )


def test_the_ir_interpreter_refuses_simt_statements():
    """The interpreter runs one invocation at a time: no workgroup to share with or wait for."""
    from tistudio.ir.interpreter import Interpreter
    from tistudio.ir.parser import parse_ir

    for line in ("<*f32> $1 = shared array [64]", "$1 : block barrier"):
        kernel = parse_ir(f"kernel {{\n  <i32> $0 = const 1\n  {line}\n}}")
        with pytest.raises(NotImplementedError, match=r"need the GPU back end \(arch=ti.gpu\)"):
            Interpreter(kernel, [], []).run()
