"""Fields with an index offset, and vector/matrix dtypes given to `ti.field`, against Taichi.

Kernels write and read in offset coordinates (struct-for, `ti.grouped`, range loops, autodiff);
NumPy arrays have no offset; Python-scope reads count from the offset; errors for an offset of
the wrong length or without a shape have Taichi's type and words.

No `from __future__ import annotations` here: Taichi reads kernel annotations as objects.
"""

import numpy as np


def case_offset_struct_for_grouped_and_range(ti):
    """One field of each rank 1..3 with negative and positive offsets, filled by a struct-for,
    a ti.grouped loop, and read back by a range loop and from Python."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=6, offset=-3)
    b = ti.field(ti.f32, shape=(3, 4), offset=(2, -5))
    c = ti.field(ti.i32)
    ti.root.dense(ti.ijk, (2, 3, 2)).place(c, offset=(-1, 10, 100))
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill():
        for i in a:
            a[i] = i * i - i
        for I in ti.grouped(b):
            b[I] = I[0] * 0.5 + I[1]
        for i, j, k in c:
            c[i, j, k] = i * 10000 + j * 100 + k

    @ti.kernel
    def read():
        s = 0.0
        for i in range(2, 5):
            for j in range(-5, -1):
                s += b[i, j] * a[i - 3]
        total[None] = s

    fill()
    read()
    return {
        "a": a.to_numpy(),
        "b": b.to_numpy(),
        "c": c.to_numpy(),
        "total": total[None],
        "python_reads": [a[-3], a[2], b[4, -2], c[0, 12, 101]],
        "shapes": [a.shape, b.shape, c.shape],
    }


def case_offset_vector_and_matrix_fields(ti):
    """Vector and matrix fields with offsets, and ti.field(vector/matrix type) with one."""
    ti.init(arch=ti.cpu)
    v = ti.Vector.field(3, ti.f32, shape=4, offset=-2)
    m = ti.Matrix.field(2, 2, ti.i32, shape=(2, 3), offset=(5, -1))
    w = ti.field(ti.math.vec2, shape=(3,), offset=(7,))

    @ti.kernel
    def fill():
        for i in v:
            v[i] = ti.Vector([i, i * 2.0, -i])
        for i, j in m:
            m[i, j] = ti.Matrix([[i, j], [i * j, i - j]])
        for i in w:
            w[i] = ti.Vector([i, 1.0]) + v[i - 8].xy

    fill()
    return {
        "v": v.to_numpy(),
        "m": m.to_numpy(),
        "w": w.to_numpy(),
        "m_elem": m[6, 1].to_numpy(),
        "w_elem": w[9].to_numpy(),
    }


def case_offset_gradient(ti):
    """x.grad shares x's offset: loss = sum_i i * x[i]^2 over i in [-2, 2)."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=4, offset=-2, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += i * x[i] * x[i]

    x.from_numpy(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    with ti.ad.Tape(loss=loss):
        compute()
    return {"loss": loss[None], "grad": x.grad.to_numpy(), "grad_at_1": x.grad[1]}


def case_offset_errors(ti):
    """The errors of an offset of the wrong length and of an offset without a shape."""
    ti.init(arch=ti.cpu)
    out = {}
    attempts = {
        "scalar_length": lambda: ti.field(ti.f32, shape=3, offset=(3, 4)),
        "scalar_no_shape": lambda: ti.field(ti.f32, offset=(3, 4)),
        "vector_length": lambda: ti.Vector.field(3, ti.f32, shape=3, offset=(3, 4)),
        "matrix_no_shape": lambda: ti.Matrix.field(2, 2, ti.i32, offset=(32, 16)),
    }
    for name, attempt in attempts.items():
        try:
            attempt()
            out[name] = "no error"
        except Exception as e:  # noqa: BLE001 - the type and words are the result
            out[name] = (type(e).__name__, str(e), isinstance(e, ti.TaichiCompilationError))
    ti.reset()
    return out
