"""Kernels: annotated scalar parameters, ti.template(), ti.types.ndarray, scalar returns.

Template instantiation: one kernel called with two different fields and with Python ints as
template arguments.
"""

import numpy as np


def case_scalar_parameters_of_every_type(ti):
    """Each scalar annotation receives its Python value; the kernel stores it unchanged."""
    ti.init(arch=ti.cpu)
    ints = ti.field(ti.i64, shape=8)
    uints = ti.field(ti.u64, shape=2)
    floats = ti.field(ti.f64, shape=3)

    @ti.kernel
    def store(
        a: ti.i8,
        b: ti.i16,
        c: ti.i32,
        d: ti.i64,
        e: ti.u8,
        f: ti.u16,
        g: ti.u32,
        h: ti.u64,
        x: ti.f32,
        y: ti.f64,
        n: int,
        z: float,
    ):
        ints[0] = a
        ints[1] = b
        ints[2] = c
        ints[3] = d
        ints[4] = e
        ints[5] = f
        ints[6] = g
        ints[7] = n
        uints[0] = h
        uints[1] = h // 2
        floats[0] = x
        floats[1] = y
        floats[2] = z

    store(-128, -32768, -(2**31), -(2**63), 255, 65535, 2**32 - 1, 2**64 - 1, 0.1, 0.1, 7, 0.1)
    return {"ints": ints.to_numpy(), "uints": uints.to_numpy(), "floats": floats.to_numpy()}


def case_scalar_returns(ti):
    """`-> ti.i32`, `-> ti.f32`, ... return Python int/float; the value is cast on return."""
    ti.init(arch=ti.cpu)

    @ti.kernel
    def ret_i32(a: ti.i32, b: ti.i32) -> ti.i32:
        return a * b + 1

    @ti.kernel
    def ret_f32(a: ti.f32) -> ti.f32:
        return a * 0.5 + 0.1

    @ti.kernel
    def ret_f64(a: ti.f64) -> ti.f64:
        return a / 3

    @ti.kernel
    def ret_i64(a: ti.i64) -> ti.i64:
        return a * 3

    @ti.kernel
    def float_to_int(a: ti.f32) -> ti.i32:
        return a * 2  # truncated toward zero on return

    @ti.kernel
    def int_to_float(a: ti.i32) -> ti.f32:
        return a // 2

    @ti.kernel
    def ret_u8(a: ti.i32) -> ti.u8:
        return a + 1

    return {
        "i32": ret_i32(6, 7),
        "f32": ret_f32(3.0),
        "f64": ret_f64(1.0),
        "i64": ret_i64(2**40),
        "float_to_int_pos": float_to_int(3.7),
        "float_to_int_neg": float_to_int(-3.7),
        "int_to_float": int_to_float(-7),
        "u8_wraps": ret_u8(255),
    }


def case_ndarray_read_and_written_in_place(ti):
    """NumPy arrays passed as ti.types.ndarray are read and written in place; arr.shape[k]."""
    ti.init(arch=ti.cpu)

    @ti.kernel
    def saxpy(
        a: ti.f32,
        x: ti.types.ndarray(dtype=ti.f32, ndim=1),
        y: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def transpose_sum(
        m: ti.types.ndarray(dtype=ti.i32, ndim=2), out: ti.types.ndarray(dtype=ti.i32, ndim=2)
    ) -> ti.i32:
        total = 0
        for i, j in ti.ndrange(m.shape[0], m.shape[1]):
            out[j, i] = m[i, j]
            total += m[i, j]
        return total

    @ti.kernel
    def shape_of(
        v: ti.types.ndarray(dtype=ti.f64, ndim=3), out: ti.types.ndarray(dtype=ti.i64, ndim=1)
    ):
        out[0] = v.shape[0]
        out[1] = v.shape[1]
        out[2] = v.shape[2]
        for i, j, k in v:
            v[i, j, k] = i * 100 + j * 10 + k + 0.25

    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, dtype=np.float32)
    saxpy(2.0, x, y)
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    mt = np.zeros((4, 3), dtype=np.int32)
    total = transpose_sum(m, mt)
    v = np.zeros((2, 3, 4), dtype=np.float64)
    shape = np.zeros(3, dtype=np.int64)
    shape_of(v, shape)
    return {"x": x, "y": y, "mt": mt, "total": total, "v": v, "shape": shape}


def case_ndarray_small_int_dtypes(ti):
    """ndarray parameters of u8 and i16 wrap like fields; a field and an ndarray together."""
    ti.init(arch=ti.cpu)
    acc = ti.field(ti.i32, shape=())

    @ti.kernel
    def brighten(img: ti.types.ndarray(dtype=ti.u8, ndim=2), delta: ti.i32):
        for i, j in ti.ndrange(img.shape[0], img.shape[1]):
            img[i, j] = img[i, j] + delta
            acc[None] += img[i, j]

    @ti.kernel
    def negate(a: ti.types.ndarray(dtype=ti.i16, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = -a[i] * 2

    img = np.array([[0, 100, 200], [250, 255, 5]], dtype=np.uint8)
    brighten(img, 10)
    a = np.array([1, -300, 20000, -32768], dtype=np.int16)
    negate(a)
    return {"img": img, "acc": acc[None], "a": a}


def case_template_two_fields(ti):
    """One kernel instantiated for two fields of different dtype and shape via ti.template()."""
    ti.init(arch=ti.cpu)
    small = ti.field(ti.i32, shape=5)
    big = ti.field(ti.f32, shape=(3, 3))

    @ti.kernel
    def fill_with_index_sum(f: ti.template(), scale: ti.f32):
        for I in ti.grouped(f):
            total = 0
            for k in ti.static(range(len(f.shape))):
                total += I[k]
            f[I] = total * scale

    @ti.kernel
    def add_fields(dst: ti.template(), src: ti.template()):
        for I in ti.grouped(dst):
            dst[I] += src[I]

    fill_with_index_sum(small, 1.5)
    fill_with_index_sum(big, 0.5)
    other = ti.field(ti.i32, shape=5)
    fill_with_index_sum(other, 2.0)
    add_fields(small, other)
    return {"small": small.to_numpy(), "big": big.to_numpy(), "other": other.to_numpy()}


def case_template_python_ints(ti):
    """Python ints as ti.template() arguments are compile-time constants, one instance each."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(3, 8))

    @ti.kernel
    def powers(row: ti.template(), base: ti.template()):
        value = 1
        for _ in ti.static(range(row)):
            value *= base
        for j in range(8):
            out[row, j] = value * j

    powers(0, 3)
    powers(1, 3)
    powers(2, 5)
    powers(1, 2)
    return {"out": out.to_numpy()}
