"""Small real kernels that the pass reference compiles at build time.

Each example sets up tistudio (`ti.init` with the arch and options it needs), defines its fields
and one kernel, and returns the kernel with the arguments to compile it for. The pass reference
(`passref.py`) takes, for each pass, the first example whose compile report shows that pass
changing the IR, so the order below is the order of preference: the smallest kernel first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tistudio as ti

Example = tuple[Any, tuple[Any, ...]]  # (kernel or its .grad, arguments)


def reduction() -> Example:
    """A sum over a field: offload, thread-local accumulation, field access."""
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=64)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def sum_scaled(a: ti.f32):
        for i in x:
            v = ti.Vector([x[i], a])
            total[None] += (v * 2.0).sum()

    return sum_scaled, (1.0,)


def arithmetic() -> Example:
    """Mixed types, constants, identities and a loop-invariant product."""
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=(16, 8))

    @ti.kernel
    def scale(a: ti.f32, n: ti.i32):
        for i in range(16):
            for j in range(n):
                x[i, j] = x[i, j] * 1.0 + a * (2 + 3) + i // 4 + 0 * j

    return scale, (0.5, 8)


def histogram() -> Example:
    """Counts into a small field that the loop reaches only by `+=`: a per-thread copy."""
    ti.init(arch=ti.cpu, offline_cache=False)
    values = ti.field(ti.i32, shape=1024)
    bins = ti.field(ti.i32, shape=16)

    @ti.kernel
    def count():
        for i in values:
            bins[values[i] % 16] += 1

    return count, ()


def checked() -> Example:
    """With `debug=True`: bounds and division-by-zero checks."""
    ti.init(arch=ti.cpu, debug=True, offline_cache=False)
    x = ti.field(ti.i32, shape=8)

    @ti.kernel
    def divide(d: ti.i32):
        for i in x:
            x[i] = x[i] // d

    return divide, (3,)


def matrix_rows() -> Example:
    """A long inner loop per row: unroll-and-jam on the CPU."""
    ti.init(arch=ti.cpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(64, 64))
    y = ti.field(ti.f32, shape=64)

    @ti.kernel
    def row_sums():
        for i in range(64):
            s = 0.0
            for j in range(64):
                s += a[i, j]
            y[i] = s

    return row_sums, ()


def gradient() -> Example:
    """The reverse-mode gradient of a run-time loop: autodiff and its stack."""
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    y = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def sines(n: ti.i32):
        for i in x:
            v = x[i]
            for _ in range(n):
                v = ti.sin(v)
            y[i] = v

    return sines.grad, (3,)


def sparse() -> Example:
    """A struct-for over a pointer grid: only the active blocks."""
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 8).dense(ti.i, 4).place(x)

    @ti.kernel
    def double():
        for i in x:
            x[i] *= 2.0

    return double, ()


def quantized() -> Example:
    """A 5-bit integer field: bit operations on its word."""
    ti.init(arch=ti.cpu, offline_cache=False)
    q = ti.field(ti.types.quant.int(5, True))
    word = ti.BitpackedFields(max_num_bits=32)
    word.place(q)
    ti.root.dense(ti.i, 8).place(word)

    @ti.kernel
    def bump():
        for i in q:
            q[i] = q[i] + 1

    return bump, ()


def gpu_stencil() -> Example:
    """An ndrange whose rows start at 1, on the GPU: padded rows and vec4 loads and stores."""
    ti.init(arch=ti.gpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(64, 256))
    b = ti.field(ti.f32, shape=(64, 256))

    @ti.kernel
    def halve():
        for i, j in ti.ndrange((1, 63), (1, 255)):
            b[i, j] = a[i, j] * 0.5

    return halve, ()


def gpu_all_pairs() -> Example:
    """Each invocation walks a serial loop over all bodies, on the GPU: unrolled by four."""
    ti.init(arch=ti.gpu, offline_cache=False)
    x = ti.field(ti.f32, shape=256)
    near = ti.field(ti.f32, shape=256)

    @ti.kernel
    def closeness(n: ti.i32):
        for i in x:
            s = 0.0
            for k in range(n):
                s += 1.0 / (1.0 + ti.abs(x[i] - x[k]))
            near[i] = s

    return closeness, (256,)


def gpu_split_sum() -> Example:
    """A few hundred invocations, each summing a 1024-trip loop, on the GPU: each sum split
    over 32 lanes that add their parts in workgroup memory."""
    ti.init(arch=ti.gpu, offline_cache=False)
    x = ti.field(ti.f32, shape=1024)
    near = ti.field(ti.f32, shape=256)

    @ti.kernel
    def closeness():
        for i in range(256):
            s = 0.0
            for k in range(1024):
                s += 1.0 / (1.0 + ti.abs(x[i] - x[k]))
            near[i] = s

    return closeness, ()


def gpu_matmul() -> Example:
    """A small matrix product on the GPU: each invocation computes eight rows of one column of
    the result, loading each element of `b` once for all of them."""
    ti.init(arch=ti.gpu, offline_cache=False)
    a = ti.field(ti.f32, shape=(8, 64))
    b = ti.field(ti.f32, shape=(64, 8))
    c = ti.field(ti.f32, shape=(8, 8))

    @ti.kernel
    def matmul():
        for i, j in c:
            acc = 0.0
            for k in range(64):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    return matmul, ()


EXAMPLES: tuple[Callable[[], Example], ...] = (
    reduction,
    arithmetic,
    histogram,
    checked,
    matrix_rows,
    gradient,
    sparse,
    quantized,
    gpu_stencil,
    gpu_all_pairs,
    gpu_split_sum,
    gpu_matmul,
)
