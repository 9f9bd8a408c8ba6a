"""Ndarrays with vector and matrix elements: `ti.types.ndarray(dtype=ti.math.vec3, ndim=1)`
parameters fed NumPy arrays of shape `(n, 3)` (written in place), matrix-element ndarrays,
and the containers `ti.ndarray(...)`, `ti.Vector.ndarray`, `ti.Matrix.ndarray` with
`from_numpy` / `to_numpy` / `fill` and Python-scope element access.
"""

import numpy as np


def case_vec3_ndarray_parameter_numpy(ti):
    """A NumPy `(n, 3)` float32 array passed as `ndarray(dtype=vec3, ndim=1)`: elements are
    vectors, `x.shape[0]` is n, writes go back into the NumPy array."""
    ti.init(arch=ti.cpu)
    pos = np.arange(18, dtype=np.float32).reshape(6, 3) - 4
    lengths = np.zeros(6, dtype=np.float32)

    @ti.kernel
    def step(
        x: ti.types.ndarray(dtype=ti.math.vec3, ndim=1),
        out: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in x:
            x[i] = x[i] * 2 + ti.math.vec3(0.0, 0.0, i)
            x[i].y = -x[i].y
            out[i] = x[i].norm_sqr()

    @ti.kernel
    def total(x: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)) -> ti.f32:
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i].sum()
        return s

    step(pos, lengths)
    return {"pos": pos, "lengths": lengths, "total": total(pos)}


def case_matrix_ndarray_parameter_numpy(ti):
    """NumPy `(n, 2, 2)` and `(n, m, 3, 2)` arrays as matrix-element ndarray parameters;
    `@`, element writes `a[i][r, c]`, and a 2-D struct-for over the ndarray."""
    ti.init(arch=ti.cpu)
    a = np.arange(16, dtype=np.float32).reshape(4, 2, 2)
    b = np.zeros((2, 3, 3, 2), dtype=np.float64)
    dets = np.zeros(4, dtype=np.float32)

    @ti.kernel
    def square(
        a: ti.types.ndarray(dtype=ti.math.mat2, ndim=1),
        dets: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in a:
            dets[i] = a[i].determinant()
            a[i] = a[i] @ a[i]
            a[i][0, 1] = -1.0

    @ti.kernel
    def fill(b: ti.types.ndarray(dtype=ti.types.matrix(3, 2, ti.f64), ndim=2)):
        for i, j in b:
            b[i, j] = ti.Matrix([[i, j], [1.0, 0.0], [0.0, i * j]], dt=ti.f64) / 4

    square(a, dets)
    fill(b)
    return {"a": a, "dets": dets, "b": b}


def case_ndarray_containers(ti):
    """`ti.ndarray(dtype=vec3, shape=)`, `ti.ndarray(ti.i32, shape=)`, `ti.Vector.ndarray`,
    `ti.Matrix.ndarray`: `to_numpy` shapes (`shape + (n,)`, `shape + (n, m)`) and dtypes,
    `from_numpy`, `fill`, `.shape`."""
    ti.init(arch=ti.cpu)
    v = ti.ndarray(dtype=ti.math.vec3, shape=4)
    s = ti.ndarray(ti.i32, shape=(3, 2))
    w = ti.Vector.ndarray(2, ti.f64, shape=(2, 3))
    m = ti.Matrix.ndarray(2, 3, ti.f32, shape=3)
    iv = ti.ndarray(dtype=ti.math.ivec2, shape=2)
    v.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    s.fill(7)
    w.fill(0.5)
    m.from_numpy(np.ones((3, 2, 3), dtype=np.float32))
    iv.fill(3)

    @ti.kernel
    def mix_all(
        v: ti.types.ndarray(dtype=ti.math.vec3, ndim=1),
        s: ti.types.ndarray(dtype=ti.i32, ndim=2),
        w: ti.types.ndarray(dtype=ti.types.vector(2, ti.f64), ndim=2),
        m: ti.types.ndarray(dtype=ti.types.matrix(2, 3, ti.f32), ndim=1),
    ):
        for i in v:
            v[i] += ti.math.vec3(1.0, -1.0, i)
        for i, j in s:
            s[i, j] = s[i, j] * i + j
        for i, j in w:
            w[i, j] = w[i, j] * (i + j) + ti.Vector([1.0, 3.0], dt=ti.f64) / 3
        for i in m:
            m[i] = m[i] * i + ti.Matrix([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])

    mix_all(v, s, w, m)
    return {
        "v": v.to_numpy(),
        "s": s.to_numpy(),
        "w": w.to_numpy(),
        "m": m.to_numpy(),
        "iv": iv.to_numpy(),
        "shapes": (v.shape, s.shape, w.shape, m.shape),
    }


def case_ndarray_python_element_access(ti):
    """Python-scope `a[i]` (a vector), `a[i] = [...]`, `a[i][c]`, `m[i][r, c]` on ndarray
    containers, and scalar ndarray elements."""
    ti.init(arch=ti.cpu)
    a = ti.Vector.ndarray(3, ti.f32, shape=3)
    m = ti.Matrix.ndarray(2, 2, ti.i32, shape=2)
    s = ti.ndarray(ti.f64, shape=(2, 2))
    a[0] = [1.0, 2.0, 3.0]
    a[2] = ti.Vector([7.0, 8.0, 9.0])
    m[1] = [[1, 2], [3, 4]]
    s[1, 0] = 2.5

    @ti.kernel
    def bump(
        a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1),
        m: ti.types.ndarray(dtype=ti.types.matrix(2, 2, ti.i32), ndim=1),
        s: ti.types.ndarray(ndim=2),
    ):
        for i in a:
            a[i] = a[i].zyx + 1
        for i in m:
            m[i] = m[i] * 10 + i
        for i, j in s:
            s[i, j] += i * 10 + j

    bump(a, m, s)
    return {
        "a": a.to_numpy(),
        "m": m.to_numpy(),
        "s": s.to_numpy(),
        "a2": a[2].to_numpy(),
        "a0y": float(a[0][1]),
        "m1_10": int(m[1][1, 0]),
        "s10": float(s[1, 0]),
    }


def case_ndarray_templated_over_element_types(ti):
    """Untyped `ti.types.ndarray()` parameters: one kernel instantiated for vec2 and mat2
    element ndarrays, another for a scalar NumPy array; `ti.grouped` over a 2-D vector ndarray."""
    ti.init(arch=ti.cpu)
    sums = ti.field(ti.f32, shape=3)
    scalar = np.arange(6, dtype=np.float32)
    vec = ti.Vector.ndarray(2, ti.f32, shape=4)  # a NumPy (4, 2) array would be 2-D scalars
    vec.from_numpy(np.arange(8, dtype=np.float32).reshape(4, 2))
    mat = ti.Matrix.ndarray(2, 2, ti.f32, shape=2)
    mat.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    grid = ti.Vector.ndarray(2, ti.i32, shape=(3, 4))

    @ti.kernel
    def total(x: ti.types.ndarray(), slot: ti.i32):
        for i in x:
            sums[slot] += x[i].sum()

    @ti.kernel
    def scalar_total(x: ti.types.ndarray(), slot: ti.i32):
        for i in x:
            sums[slot] += x[i]

    @ti.kernel
    def coords(g: ti.types.ndarray(dtype=ti.math.ivec2, ndim=2)):
        for I in ti.grouped(g):
            g[I] = I * 2 + ti.math.ivec2(1, 0)

    scalar_total(scalar, 0)
    total(vec, 1)
    total(mat, 2)
    coords(grid)
    return {"sums": sums.to_numpy(), "grid": grid.to_numpy()}


def case_ndarray_vector_particles(ti):
    """A particle update on ndarrays (positions, velocities as vec2 ndarrays, masses as a
    scalar ndarray) called twice with different containers: the ndarray-style program."""
    ti.init(arch=ti.cpu)
    n = 16
    x = ti.Vector.ndarray(2, ti.f32, shape=n)
    v = ti.ndarray(dtype=ti.math.vec2, shape=n)
    mass = ti.ndarray(ti.f32, shape=n)

    @ti.kernel
    def init(
        x: ti.types.ndarray(dtype=ti.math.vec2, ndim=1),
        v: ti.types.ndarray(dtype=ti.math.vec2, ndim=1),
        mass: ti.types.ndarray(dtype=ti.f32, ndim=1),
    ):
        for i in x:
            x[i] = ti.math.vec2(i % 4, i // 4) * 0.25
            v[i] = ti.math.vec2(1.0, -0.5 * (i % 3))
            mass[i] = 1.0 + i % 2

    @ti.kernel
    def step(
        x: ti.types.ndarray(dtype=ti.math.vec2, ndim=1),
        v: ti.types.ndarray(dtype=ti.math.vec2, ndim=1),
        mass: ti.types.ndarray(dtype=ti.f32, ndim=1),
        dt: ti.f32,
    ):
        for i in x:
            f = ti.math.vec2(0.0, -1.0) * mass[i] - v[i] * 0.5
            v[i] += f / mass[i] * dt
            x[i] += v[i] * dt

    init(x, v, mass)
    for _ in range(4):
        step(x, v, mass, 0.125)
    return {"x": x.to_numpy(), "v": v.to_numpy(), "mass": mass.to_numpy()}
