"""Reductions into a vector or matrix local declared outside a parallel loop (issue #25).

`acc += vel[i]` on a `vec2` local read the whole vector, added and wrote it back, where a
scalar `acc += x` is an atomic add. `offload` makes a local that a parallel loop uses one shared
place, so on the GPU every invocation overwrote the others' sums (a different wrong vector on
each run); the CPU raced the same way, visibly only at millions of iterations. Now every element
update of `+=`, `-=`, `&=`, `|=`, `^=` and `ti.atomic_*` is an atomic, as for a scalar, and
`make_thread_local` turns it into per-thread partials merged once. Data are integers, so the
sums are exact in f32 and any lost update shows.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti

N = 1 << 16  # enough invocations that lost updates show on lavapipe's threads every run
RUNS = 3  # a race gives a different wrong answer per run

ARCHS = [pytest.param("cpu", id="cpu"), pytest.param("gpu", id="gpu")]


def _data() -> np.ndarray:
    i = np.arange(N)
    return np.stack([i % 7 - 3, i % 5, -(i % 11)], axis=1)


@pytest.fixture(params=ARCHS)
def fields(request, device):
    ti.init(arch=getattr(ti, request.param), fallback_to_cpu=False)
    vi = ti.Vector.field(3, ti.i32, shape=N)
    vf = ti.Vector.field(3, ti.f32, shape=N)
    vi.from_numpy(_data().astype(np.int32))
    vf.from_numpy(_data().astype(np.float32))
    yield vi, vf
    ti.reset()


def _reduces_exactly(kernel, want) -> None:
    """The same exact answer on every run, and per-thread partials merged once in the final IR
    (a `tls epilogue`), which `make_thread_local` builds only from atomic updates. The CPU
    rarely loses an update at this size, so there the second check is the one that fails."""
    for _ in range(RUNS):
        np.testing.assert_array_equal(np.asarray(kernel().to_numpy()), want)
    assert "tls epilogue" in kernel.compile_report().passes[-1].ir_text


def test_vec3_f32_sum_is_the_sum_on_every_run(fields) -> None:
    _, vf = fields

    @ti.kernel
    def total() -> ti.math.vec3:
        acc = ti.math.vec3(0.0)
        for i in range(N):
            acc += vf[i]
        return acc

    _reduces_exactly(total, _data().sum(axis=0))


def test_ivec3_subtract_and_bitwise_updates(fields) -> None:
    vi, _ = fields

    @ti.kernel
    def mixed() -> ti.types.matrix(3, 3, ti.i32):
        down = ti.math.ivec3(7)
        ors = ti.math.ivec3(0)
        xors = ti.math.ivec3(0)
        for i in range(N):
            down -= vi[i]
            ors |= vi[i] & 0xF
            xors ^= vi[i]
        return ti.Matrix.rows([down, ors, xors])

    data = _data()
    want = [7 - data.sum(axis=0), np.bitwise_or.reduce(data & 0xF), np.bitwise_xor.reduce(data)]
    _reduces_exactly(mixed, np.array(want))


def test_element_swizzle_and_run_time_index_updates(fields) -> None:
    vi, _ = fields

    @ti.kernel
    def by_element() -> ti.math.ivec3:
        acc = ti.math.ivec3(0)
        for i in range(N):
            acc[0] += vi[i][0]
            acc.zy += vi[i].zy
            acc[i % 3] += 1  # an element chosen at run time: one `if` per element
        return acc

    data = _data()
    want = data.sum(axis=0) + np.bincount(np.arange(N) % 3, minlength=3)
    _reduces_exactly(by_element, want)


def test_matrix_local_sum_of_outer_products(fields) -> None:
    vi, vf = fields

    @ti.kernel
    def gram() -> ti.types.matrix(3, 3, ti.f32):
        acc = ti.types.matrix(3, 3, ti.f32)(0.0)
        counts = ti.types.matrix(3, 3, ti.i32)(0)
        for i in range(N):
            acc += vf[i].outer_product(vf[i])
            counts[i % 3, 0] += 1
            for k in ti.static(range(3)):  # a whole row (Taichi has no m[i] row of a matrix)
                counts[1, k] += vi[i][k]
        return acc + ti.cast(counts, ti.f32)

    data = _data()
    counts = np.zeros((3, 3))
    counts[:, 0] = np.bincount(np.arange(N) % 3, minlength=3)
    counts[1] += data.sum(axis=0)
    _reduces_exactly(gram, data.T @ data + counts)


@pytest.mark.parametrize("dtype", [ti.i32, ti.f32], ids=["i32", "f32"])
def test_atomic_min_and_max_on_a_vector_local(fields, dtype) -> None:
    source = fields[0] if dtype == ti.i32 else fields[1]

    @ti.kernel
    def extremes() -> ti.types.matrix(2, 3, dtype):
        low = ti.Vector([100, 100, 100], dt=dtype)
        high = ti.Vector([-100, -100, -100], dt=dtype)
        for i in range(N):
            ti.atomic_min(low, source[i])
            ti.atomic_max(high, source[i])
        return ti.Matrix.rows([low, high])

    data = _data()
    _reduces_exactly(extremes, np.array([data.min(axis=0), data.max(axis=0)]))


def test_a_local_reduced_in_one_loop_is_read_whole_in_the_next(fields) -> None:
    vi, _ = fields
    out = ti.field(ti.i32, shape=N)

    @ti.kernel
    def spread() -> ti.math.ivec3:
        acc = ti.math.ivec3(0)
        for i in range(N):
            acc += vi[i]
        for i in range(N):
            out[i] = acc[i % 3]
        return acc

    sums = _data().sum(axis=0)
    _reduces_exactly(spread, sums)
    np.testing.assert_array_equal(out.to_numpy(), sums[np.arange(N) % 3])


def test_a_struct_member_vector(fields) -> None:
    vi, _ = fields
    tally = ti.types.struct(sum=ti.math.ivec3, count=ti.i32)

    @ti.kernel
    def collect() -> ti.math.ivec4:
        t = tally(sum=ti.math.ivec3(0), count=0)
        for i in range(N):
            t.sum += vi[i]
            t.count += 1
        return ti.Vector([t.sum.x, t.sum.y, t.sum.z, t.count])

    _reduces_exactly(collect, [*_data().sum(axis=0), N])
