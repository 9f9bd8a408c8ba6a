"""Half precision as Taichi 1.7.4 has it: `ti.f16` fields and ndarrays (load, store,
`from_numpy` / `to_numpy` as NumPy float16, `fill`, Python-scope element access), f16 kernel
arguments and returns, arithmetic rounded to f16 after each operation, casts to and from
integers (truncating, saturating at infinity) and wider floats, bit casts, and the promotion of
mixed operands (f16 with f32 or f64 widens; with an integer stays f16).

Values are chosen so that each result is exact or a single rounding of an exact value, so the
comparison is bit for bit (f16 arrays are compared exactly: the harness's default tolerance for
a non-f32 float array is 1e-12).
"""

import numpy as np

HALVES = np.array([-3.5, -1.25, -0.375, 0.0, 0.1, 0.7, 1.5, 2.75, 100.0, 1000.5], np.float16)


def case_f16_field_load_store_arithmetic(ti):
    """f16 op f16 stays f16 and rounds after each operation (`v * v + a` rounds twice);
    from_numpy/to_numpy keep float16, and `x[i]` in Python scope is a Python float."""
    ti.init(arch=ti.cpu)
    n = len(HALVES)
    x = ti.field(ti.f16, shape=n)
    out = ti.field(ti.f16, shape=(n, 6))
    x.from_numpy(HALVES)

    @ti.kernel
    def run(a: ti.f16):
        for i in x:
            v = x[i]
            out[i, 0] = v * v + a
            out[i, 1] = v - a * 3
            out[i, 2] = v / 4
            out[i, 3] = -v
            out[i, 4] = ti.max(v, a) - ti.min(v, 0.5)
            out[i, 5] = v * 100  # 1000.5 * 100 overflows to inf

    run(0.3)
    x[2] = 0.1  # rounded to the nearest f16 on store
    return {"out": out.to_numpy(), "x2": x[2], "x9": x[9], "x": x.to_numpy()}


def case_f16_fill_and_python_scope(ti):
    """`fill` of an f16 field, element writes from Python, and f16 arguments and returns
    rounded to f16 on the way in and out."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f16, shape=(3, 4))
    x.fill(1.0 / 3.0)
    x[1, 2] = 65504.0
    x[2, 3] = -1e-6  # below the smallest normal f16: a subnormal

    @ti.kernel
    def twice(a: ti.f16) -> ti.f16:
        return a * 2

    @ti.kernel
    def corner() -> ti.f16:
        return x[0, 0] + x[2, 3]

    return {"x": x.to_numpy(), "twice": twice(0.1), "corner": corner(), "big": x[1, 2]}


def case_f16_casts(ti):
    """f16 to integers truncates toward zero (narrow ones wrap through i32); integers and
    wider floats to f16 round to nearest, beyond 65504 to inf, f64 through f32 (rounded twice,
    as Taichi: 1 + 2**-11 + 2**-40 gives 1.0); bit casts through i16 keep the bits."""
    ti.init(arch=ti.cpu)
    vals = np.array([-7.9, -0.5, 0.0, 2.5, 300.7, 65504.0, np.inf, -np.inf], np.float16)
    n = len(vals)
    h = ti.field(ti.f16, shape=n)
    to_i32 = ti.field(ti.i32, shape=n)
    to_i64 = ti.field(ti.i64, shape=n)
    to_i8 = ti.field(ti.i8, shape=n)
    to_f32 = ti.field(ti.f32, shape=n)
    to_f64 = ti.field(ti.f64, shape=n)
    bits = ti.field(ti.i16, shape=n)
    back = ti.field(ti.f16, shape=(n, 4))
    h.from_numpy(vals)

    @ti.kernel
    def run():
        for i in h:
            v = h[i]
            # The WGSL of f16 -> i32 spelled its saturation bound 2**31 (inf in f16) `infh`
            if ti.abs(v) <= 65504:  # a cast of inf is out of range: undefined in Taichi
                to_i32[i] = ti.cast(v, ti.i32)
                to_i64[i] = ti.cast(v, ti.i64)
                to_i8[i] = ti.cast(v, ti.i8)
            to_f32[i] = ti.cast(v, ti.f32) / 3
            to_f64[i] = v
            bits[i] = ti.bit_cast(v, ti.i16)
            back[i, 0] = ti.cast(i * 1000 - 3001, ti.f16)
            back[i, 1] = ti.cast(ti.cast(i, ti.f32) / 3 + 70000 * (i // 7), ti.f16)
            # f64 -> f16 crashed the CPU back end (a call to __truncdfhf2, absent in the JIT)
            back[i, 2] = ti.cast(ti.cast(i, ti.f64) * 0.1 + (1 + 2**-11 + 2**-40), ti.f16)
            back[i, 3] = ti.bit_cast(ti.cast(bits[i] + 1, ti.i16), ti.f16)

    run()
    fields = {"i32": to_i32, "i64": to_i64, "i8": to_i8, "f32": to_f32, "f64": to_f64}
    fields.update(bits=bits, back=back)
    return {key: f.to_numpy() for key, f in fields.items()}


def case_f16_mixed_promotion(ti):
    """f16 with f32 gives f32 (computed in f32, no f16 rounding), with f64 gives f64, with an
    integer stays f16; a literal does not widen an f16 operand's result stored in f32."""
    ti.init(arch=ti.cpu)
    n = 6
    h = ti.field(ti.f16, shape=n)
    f = ti.field(ti.f32, shape=n)
    d = ti.field(ti.f64, shape=n)
    k = ti.field(ti.i32, shape=n)
    out32 = ti.field(ti.f32, shape=(n, 3))
    out64 = ti.field(ti.f64, shape=(n, 2))
    out16 = ti.field(ti.f16, shape=(n, 2))
    h.from_numpy(np.array([0.1, -2.3, 7.77, 1000.0, 0.001, 3.0], np.float16))
    f.from_numpy(np.array([1 / 3, 0.7, -5.1, 1e5, 3e-3, 1e-8], np.float32))
    d.from_numpy(np.array([0.1, 1e10, -2.5, 1 / 7, 1e-300, 3.0], np.float64))
    k.from_numpy(np.array([3, -7, 100, 70000, 1, 0], np.int32))

    @ti.kernel
    def run():
        for i in h:
            out32[i, 0] = h[i] * f[i] + h[i]  # f32 arithmetic
            out32[i, 1] = h[i] * h[i] + f[i]  # h*h rounds to f16, then f32
            out32[i, 2] = h[i] * 0.1  # stored in f32
            out64[i, 0] = h[i] / d[i]
            out64[i, 1] = h[i] * h[i] * d[i]
            out16[i, 0] = h[i] * k[i] + 1  # f16 * i32 stays f16
            out16[i, 1] = f[i] * 2  # f32 result stored in an f16 field

    run()
    return {"out32": out32.to_numpy(), "out64": out64.to_numpy(), "out16": out16.to_numpy()}


def case_f16_ndarrays(ti):
    """`ti.ndarray(ti.f16)` with from_numpy/to_numpy/fill and element access, and NumPy
    float16 arrays passed as `ndarray(dtype=ti.f16)` parameters and written in place."""
    ti.init(arch=ti.cpu)
    n = len(HALVES)
    arr = ti.ndarray(ti.f16, shape=n)
    arr.from_numpy(HALVES)
    twos = ti.ndarray(ti.f16, shape=(2, 3))
    twos.fill(2.5)
    host = (np.arange(12, dtype=np.float16) * np.float16(0.3)).reshape(3, 4)
    sums = np.zeros(3, np.float32)

    @ti.kernel
    def square(a: ti.types.ndarray(dtype=ti.f16, ndim=1)):
        for i in a:
            a[i] = a[i] * a[i] - 1

    @ti.kernel
    def rows(m: ti.types.ndarray(dtype=ti.f16, ndim=2), s: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(m.shape[0]):
            acc = 0.0
            for j in range(m.shape[1]):
                acc += m[i, j]
                m[i, j] = m[i, j] / 3  # was 1 ulp off on the CPU: the reciprocal in f16
            s[i] = acc

    square(arr)
    rows(host, sums)
    twos[1, 2] = 0.2
    return {
        "arr": arr.to_numpy(),
        "twos": twos.to_numpy(),
        "element": twos[1, 2],
        "host": host,
        "sums": sums,
    }


def case_f16_vector_field_and_math(ti):
    """An f16 vector field: component arithmetic, `norm_sqr`, a reduction into an f32 field;
    sqrt/floor/abs of f16 values round back to f16."""
    ti.init(arch=ti.cpu)
    n = 5
    v = ti.Vector.field(3, ti.f16, shape=n)
    lengths = ti.field(ti.f16, shape=(n, 3))
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def run():
        for i in v:
            v[i] = ti.Vector([i * 0.5, -i * 1.5, 2.0], dt=ti.f16)
        for i in v:
            w = v[i] * 2 - 1
            lengths[i, 0] = w.norm_sqr()
            lengths[i, 1] = ti.sqrt(ti.abs(w.x) + 2)
            lengths[i, 2] = ti.floor(w.y / 3)
            total[None] += ti.cast(w.z, ti.f32)  # integers: exact in any order

    run()
    return {"v": v.to_numpy(), "lengths": lengths.to_numpy(), "total": total[None]}
