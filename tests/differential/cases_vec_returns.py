"""Kernel and func returns of vectors, matrices, structs and tuples; vector, matrix and struct
kernel arguments.

What Taichi 1.7.4 hands back to Python: a kernel returning `ti.math.vec3` gives a
`ti.Vector` (`.to_numpy()` in the return type's dtype: float32 for vec3, int32 for ivec2), a
matrix return a `ti.Matrix`, a struct return a Struct object (members read as attributes, vector
members as vectors), and a tuple return (`-> (ti.i32, ti.f32)` or `-> tuple[...]`) a *list*.
"""

import numpy as np


def case_kernel_returns_vectors(ti):
    """`-> ti.math.vec3`, `-> ti.math.ivec2`, `-> ti.types.vector(4, ti.f64)`; the returned
    vector's components and its `to_numpy()` dtype."""
    ti.init(arch=ti.cpu)
    data = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def vec3_of(a: ti.f32) -> ti.math.vec3:
        return ti.math.vec3(a, a * 2, -a)

    @ti.kernel
    def biggest() -> ti.math.vec3:
        best = ti.math.vec3(-1.0e9)
        ti.loop_config(serialize=True)  # `best` is carried from one iteration to the next
        for i in range(4):
            best = ti.max(best, data[i])
        return best

    @ti.kernel
    def ivec_of(k: ti.i32) -> ti.math.ivec2:
        return ti.math.ivec2(k // 2, k % 3)

    @ti.kernel
    def f64_vec() -> ti.types.vector(4, ti.f64):
        return ti.Vector([1, 2, 3, 4], dt=ti.f64) / 3

    @ti.kernel
    def promote() -> ti.math.vec2:
        return ti.math.ivec2(3, 4) // 2  # an int vector returned as vec2: converted

    data.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3) % 5)
    v = vec3_of(1.5)
    return {
        "vec3": v.to_numpy(),
        "vec3_items": (float(v[0]), float(v.y)),
        "biggest": biggest().to_numpy(),
        "ivec2": ivec_of(7).to_numpy(),
        "ivec_item": int(ivec_of(9)[1]),
        "f64": f64_vec().to_numpy(),
        "promote": promote().to_numpy(),
    }


def case_kernel_returns_matrices(ti):
    """`-> ti.math.mat2`, `-> ti.types.matrix(2, 3, ti.f32)`, `-> ti.math.mat4` built from
    arguments; element access on the returned matrix."""
    ti.init(arch=ti.cpu)

    @ti.kernel
    def rot(c: ti.f32, s: ti.f32) -> ti.math.mat2:
        return ti.math.mat2([[c, -s], [s, c]])

    @ti.kernel
    def rect(k: ti.f32) -> ti.types.matrix(2, 3, ti.f32):
        return ti.Matrix([[k, 0.0, 1.0], [2.0, k * k, 3.0]])

    @ti.kernel
    def ints() -> ti.types.matrix(2, 2, ti.i32):
        return ti.Matrix([[1, 2], [3, 4]]) @ ti.Matrix([[0, 1], [1, 0]])

    @ti.kernel
    def big(k: ti.f32) -> ti.math.mat4:
        return ti.math.eye(4) * k + ti.math.translate(1.0, 2.0, 3.0)

    r = rot(0.6, 0.8)
    return {
        "rot": r.to_numpy(),
        "rot_01": float(r[0, 1]),
        "rect": rect(2.0).to_numpy(),
        "ints": ints().to_numpy(),
        "big": big(0.5).to_numpy(),
    }


def case_kernel_returns_structs(ti):
    """`-> some_struct_type` and `-> SomeDataclass`: members of the returned Struct, nested
    struct members and vector members."""
    ti.init(arch=ti.cpu)
    inner = ti.types.struct(p=ti.math.vec2, w=ti.f32)
    result = ti.types.struct(count=ti.i32, mean=ti.f32, sub=inner)

    @ti.dataclass
    class Hit:
        t: ti.f32
        normal: ti.math.vec3
        hit: ti.i32

    @ti.kernel
    def stats(n: ti.i32) -> result:
        total = 0.0
        ti.loop_config(serialize=True)
        for i in range(n):
            total += i
        return result(count=n, mean=total / n, sub=inner(p=ti.math.vec2(1.0, n), w=0.5))

    @ti.kernel
    def trace(oz: ti.f32) -> Hit:
        h = Hit(t=-1.0, hit=0)
        if oz > 1.0:
            h = Hit(t=oz - 1.0, normal=ti.math.vec3(0.0, 0.0, 1.0), hit=1)
        return h

    s = stats(8)
    h1 = trace(3.5)
    h0 = trace(0.5)
    return {
        "stats": (s.count, s.mean, s.sub.w),
        "stats_p": s.sub.p.to_numpy(),
        "hit": (h1.t, h1.hit, h0.t, h0.hit),
        "normal": h1.normal.to_numpy(),
    }


def case_kernel_returns_tuples(ti):
    """`-> (ti.i32, ti.f32)` and `-> tuple[ti.i32, ti.math.vec2]` return Python lists;
    `-> ti.types.struct` style mixes with tuple unpacking at the call site."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=10)

    @ti.kernel
    def min_max() -> (ti.f32, ti.f32):
        lo = 1.0e9
        hi = -1.0e9
        ti.loop_config(serialize=True)
        for i in range(10):
            lo = ti.min(lo, x[i])
            hi = ti.max(hi, x[i])
        return lo, hi

    @ti.kernel
    def pair(k: ti.i32) -> tuple[ti.i32, ti.math.vec2]:
        return k * 2, ti.math.vec2(k, -k)

    @ti.kernel
    def three() -> tuple[ti.i32, ti.f64, ti.i32]:
        return 1, 2.5, 3

    x.from_numpy(np.array([3, -2, 7, 0, 1, 9, -5, 4, 4, 2], dtype=np.float32))
    lo, hi = min_max()
    k, v = pair(5)
    return {
        "min_max": (lo, hi),
        "min_max_type": type(min_max()).__name__,
        "pair": (k, v.to_numpy()),
        "three": three(),
    }


def case_func_returns_vectors_matrices_tuples(ti):
    """`ti.func`s returning a vector, a matrix, a tuple of vectors and a struct; with and
    without return annotations; results unpacked and used in kernels."""
    ti.init(arch=ti.cpu)
    out = ti.Vector.field(3, ti.f32, shape=6)
    mout = ti.Matrix.field(2, 2, ti.f32, shape=2)
    sout = ti.field(ti.f32, shape=2)
    seg = ti.types.struct(a=ti.math.vec3, b=ti.math.vec3)

    @ti.func
    def midpoint(a, b) -> ti.math.vec3:
        return (a + b) * 0.5

    @ti.func
    def frame(v):
        t = ti.math.normalize(v)
        n = ti.math.vec3(-t.y, t.x, 0.0)
        return t, n, t.cross(n)

    @ti.func
    def scale2(k: ti.f32) -> ti.math.mat2:
        return ti.math.mat2([[k, 0.0], [0.0, 2 * k]])

    @ti.func
    def segment(a, b):
        return seg(a=a, b=b)

    @ti.kernel
    def run():
        a = ti.math.vec3(1.0, 2.0, 3.0)
        b = ti.math.vec3(3.0, 2.0, 1.0)
        out[0] = midpoint(a, b)
        t, n, c = frame(ti.math.vec3(3.0, 4.0, 0.0))
        out[1] = t
        out[2] = n
        out[3] = c
        s = segment(a, b * 2)
        out[4] = s.b - s.a
        out[5] = midpoint(s.a, s.b)
        mout[0] = scale2(1.5)
        mout[1] = scale2(2.0) @ scale2(0.5)
        sout[0] = (s.b - s.a).norm_sqr()
        sout[1] = scale2(3.0).determinant()

    run()
    return {"out": out.to_numpy(), "mout": mout.to_numpy(), "sout": sout.to_numpy()}


def case_kernel_vector_and_matrix_arguments(ti):
    """Vector and matrix kernel parameters: `ti.math.vec3`, `ti.types.vector(2, ti.i32)`,
    `ti.math.mat2`, `ti.types.matrix(3, 2, ti.f64)`; passed `ti.Vector`/`ti.Matrix` values,
    vectors returned by another kernel, and mixed with scalars."""
    ti.init(arch=ti.cpu)
    out = ti.Vector.field(3, ti.f32, shape=3)
    iout = ti.Vector.field(2, ti.i32, shape=2)
    mout = ti.Matrix.field(2, 2, ti.f32, shape=())
    dout = ti.Vector.field(3, ti.f64, shape=())

    @ti.kernel
    def take(v: ti.math.vec3, k: ti.f32, iv: ti.types.vector(2, ti.i32), slot: ti.i32):
        out[slot] = v * k
        iout[slot % 2] = iv * slot + 1

    @ti.kernel
    def mats(m: ti.math.mat2, r: ti.types.matrix(3, 2, ti.f64), w: ti.math.vec2):
        mout[None] = m @ m.transpose()
        dout[None] = r @ w.cast(ti.f64)

    @ti.kernel
    def make(k: ti.f32) -> ti.math.vec3:
        return ti.math.vec3(k, k + 1, k + 2)

    take(ti.math.vec3(1.0, 2.0, 3.0), 2.0, ti.math.ivec2(4, 5), 0)
    take(ti.Vector([0.5, -1.0, 4.0]), -1.0, ti.Vector([1, 2]), 1)
    take(make(10.0), 0.5, ti.math.ivec2(7, 8), 2)
    mats(
        ti.math.mat2([[1.0, 2.0], [3.0, 4.0]]),
        ti.Matrix([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ti.math.vec2(0.25, 8.0),
    )
    return {
        "out": out.to_numpy(),
        "iout": iout.to_numpy(),
        "mout": mout.to_numpy(),
        "dout": dout.to_numpy(),
    }


def case_kernel_struct_arguments(ti):
    """A `ti.types.struct` and a `@ti.dataclass` as kernel parameters, including a nested
    struct and a vector member."""
    ti.init(arch=ti.cpu)
    params = ti.types.struct(scale=ti.f32, offset=ti.math.vec2, n=ti.i32)
    out = ti.math.vec2.field(shape=4)

    @ti.dataclass
    class Box:
        lo: ti.math.vec2
        hi: ti.math.vec2

    @ti.kernel
    def apply(p: params):
        for i in range(p.n):
            out[i] = ti.math.vec2(i, -i) * p.scale + p.offset

    @ti.kernel
    def area(b: Box) -> ti.f32:
        d = b.hi - b.lo
        return d.x * d.y

    apply(params(scale=2.0, offset=ti.math.vec2(0.5, 1.0), n=3))
    a = area(Box(lo=ti.math.vec2(1.0, 1.0), hi=ti.math.vec2(4.0, 3.5)))
    return {"out": out.to_numpy(), "area": a}
