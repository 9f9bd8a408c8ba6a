"""Fields: every scalar dtype, ranks 0 to 8, fill, to_numpy/from_numpy, Python-scope access.

Also `ti.init` options (`default_fp`, `default_ip`, `debug`, `cpu_max_num_threads`), `ti.sync`
and `ti.reset`.

No `from __future__ import annotations` here or in any case module: Taichi reads kernel
annotations as objects, and string annotations make it reject `ti.template()`.
"""

import numpy as np

DTYPE_NAMES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")


def case_every_dtype_roundtrip(ti):
    """from_numpy, a kernel doing `2 * v + 1` (wrapping in narrow ints), to_numpy per dtype."""
    ti.init(arch=ti.cpu)
    source = np.array([0, 1, 100, 127], dtype=np.int64)

    @ti.kernel
    def twice_plus_one(f: ti.template()):
        for i in f:
            f[i] = f[i] * 2 + 1

    out = {}
    for name in DTYPE_NAMES:
        dtype = getattr(ti, name)
        f = ti.field(dtype, shape=4)
        f.from_numpy(source.astype(_np_name(name)))
        twice_plus_one(f)
        out[name] = f.to_numpy()
        out[name + "_is_dtype"] = f.dtype == dtype
        out[name + "_item"] = f[3]
    return out


def _np_name(name):
    kind = {"i": "int", "u": "uint", "f": "float"}[name[0]]
    return kind + name[1:]


def case_field_ranks_0_to_8(ti):
    """A field of each rank 0..8 filled by one ti.grouped kernel; shapes and 0-D reads."""
    ti.init(arch=ti.cpu)

    @ti.kernel
    def number(f: ti.template()):
        for I in ti.grouped(f):
            code = 1
            for k in ti.static(range(len(f.shape))):
                code = code * 10 + I[k]
            f[I] = code

    @ti.kernel
    def set_scalar(f: ti.template()):
        f[None] = 42

    out = {}
    scalar = ti.field(ti.i32, shape=())
    set_scalar(scalar)
    out["rank0_item"] = scalar[None]
    out["rank0_numpy"] = scalar.to_numpy()
    out["rank0_shape"] = scalar.shape
    shapes = [(3,), (2, 3), (2, 1, 3), (2, 2, 1, 2), (1, 2, 2, 1, 2), (2, 1, 2, 1, 2, 1)]
    shapes += [(1, 2, 1, 2, 1, 2, 1), (2, 1, 2, 1, 2, 1, 2, 2)]
    for shape in shapes:
        f = ti.field(ti.i32, shape=shape)
        number(f)
        out[f"rank{len(shape)}"] = f.to_numpy()
        out[f"rank{len(shape)}_shape"] = f.shape
        out[f"rank{len(shape)}_last"] = f[tuple(n - 1 for n in shape)]
    return out


def case_fill_casts_like_taichi(ti):
    """fill() with a float on int fields truncates, with an int on float fields converts."""
    ti.init(arch=ti.cpu)
    i32 = ti.field(ti.i32, shape=(2, 3))
    f32 = ti.field(ti.f32, shape=5)
    i8 = ti.field(ti.i8, shape=3)
    u8 = ti.field(ti.u8, shape=3)
    f64 = ti.field(ti.f64, shape=())
    i32.fill(3.9)
    f32.fill(7)
    i8.fill(200)
    u8.fill(-1)
    f64.fill(0.1)
    return {
        "i32": i32.to_numpy(),
        "f32": f32.to_numpy(),
        "i8": i8.to_numpy(),
        "u8": u8.to_numpy(),
        # Taichi's fill() passes its value through default_fp (f32 here), so an f64 field
        # filled with 0.1 holds 0.10000000149011612.
        "f64_fill_through_f32": f64.to_numpy(),
        "f64_item": f64[None],
        "f32_item": f32[4],
    }


def case_from_numpy_casts_like_taichi(ti):
    """from_numpy converts element-wise like a kernel store: truncation, wrap, overflow to inf."""
    ti.init(arch=ti.cpu)
    i32 = ti.field(ti.i32, shape=4)
    u8 = ti.field(ti.u8, shape=4)
    f32 = ti.field(ti.f32, shape=3)
    f64 = ti.field(ti.f64, shape=2)
    i64 = ti.field(ti.i64, shape=(2, 2))
    i32.from_numpy(np.array([1.7, -1.7, 2.5, -300.9]))
    u8.from_numpy(np.array([1, 255, 256, -1], dtype=np.int64))
    f32.from_numpy(np.array([0.1, 1e40, -2.5]))
    f64.from_numpy(np.array([3, -4], dtype=np.int32))
    i64.from_numpy(np.array([[1, -2], [3, 2**31]], dtype=np.int64))
    return {
        "i32": i32.to_numpy(),
        "u8": u8.to_numpy(),
        "f32": f32.to_numpy(),
        "f64": f64.to_numpy(),
        "i64": i64.to_numpy(),
    }


def case_python_scope_reads_and_writes(ti):
    """x[i, j] = v and x[i, j] from Python, seen by kernels and back; 0-D x[None]."""
    ti.init(arch=ti.cpu)
    grid = ti.field(ti.i32, shape=(3, 4))
    weight = ti.field(ti.f32, shape=())
    total = ti.field(ti.f32, shape=())
    for i in range(3):
        for j in range(4):
            grid[i, j] = i * 10 + j
    weight[None] = 0.5

    @ti.kernel
    def scale_into_total():
        for i, j in grid:
            total[None] += grid[i, j] * weight[None]
            grid[i, j] = -grid[i, j]

    scale_into_total()
    grid[2, 3] = 99
    return {
        "grid": grid.to_numpy(),
        "g12": grid[1, 2],
        "g23": grid[2, 3],
        "total": total[None],
        "weight": weight[None],
    }


def case_default_fp_f64(ti):
    """default_fp=ti.f64: `float` fields, float literals and `/` on ints are f64."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(float, shape=4)
    y = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(a: float, n: int):
        for i in range(4):
            x[i] = a + 0.1 * i
            y[i] = a + 0.1 * i
        x[3] = n / 3

    fill(1.0, 1)
    z = ti.field(ti.f64, shape=2)
    z.fill(0.1)  # exact here: fill() goes through default_fp, now f64
    return {
        "x": x.to_numpy(),
        "y": y.to_numpy(),
        "z": z.to_numpy(),
        "x_is_f64": x.dtype == ti.f64,
    }


def case_default_ip_i64(ti):
    """default_ip=ti.i64: `int` fields, int arguments and int literals do not wrap at 2**31."""
    ti.init(arch=ti.cpu, default_ip=ti.i64)
    x = ti.field(int, shape=3)

    @ti.kernel
    def big(a: int) -> int:
        for i in range(3):
            x[i] = a * (i + 1) + 2147483647
        return a * 4

    ret = big(2**31)
    return {"x": x.to_numpy(), "ret": ret, "x_is_i64": x.dtype == ti.i64}


def case_init_options_sync_reset(ti):
    """debug=True and cpu_max_num_threads=1 run valid programs unchanged; ti.sync; ti.reset."""
    ti.init(arch=ti.cpu, debug=True, cpu_max_num_threads=1)
    a = ti.field(ti.i32, shape=16)

    @ti.kernel
    def iota(f: ti.template(), k: ti.i32):
        for i in f:
            f[i] = i * k

    iota(a, 3)
    ti.sync()
    first = a.to_numpy()
    ti.reset()
    ti.init(arch=ti.cpu, default_ip=ti.i32, default_fp=ti.f32, cpu_max_num_threads=2)
    b = ti.field(ti.f32, shape=8)
    iota(b, 2)
    ti.sync()
    return {"first": first, "second": b.to_numpy(), "b3": b[3]}
