"""Vector and matrix fields: `ti.Vector.field`, `ti.Matrix.field`, `ti.math.vec3.field`;
`to_numpy`/`from_numpy` shape conventions (`shape + (n,)` and `shape + (n, m)`), `fill`,
Python-scope element and component access, component access and atomics in kernels,
struct-fors over vector fields and vector fields as template arguments.
"""

import numpy as np


def case_vector_field_numpy_roundtrip(ti):
    """`to_numpy()` of a vector field is `shape + (n,)` in the field's dtype; `from_numpy`
    takes the same layout; rank 0, 1 and 2 fields, f32, i32 and f64."""
    ti.init(arch=ti.cpu)
    a = ti.Vector.field(3, ti.f32, shape=5)
    b = ti.Vector.field(2, ti.i32, shape=(3, 4))
    c = ti.Vector.field(4, ti.f64, shape=())
    src_a = np.arange(15, dtype=np.float32).reshape(5, 3) * 0.5
    src_b = np.arange(24, dtype=np.int32).reshape(3, 4, 2) - 7
    a.from_numpy(src_a)
    b.from_numpy(src_b)
    c.from_numpy(np.array([1.0, 2.0, 3.0, 4.0]))

    @ti.kernel
    def bump():
        for i in a:
            a[i] = a[i] * 2 + ti.Vector([i, 0.0, -i])
        for i, j in b:
            b[i, j] = b[i, j] * ti.Vector([1, -1]) + i * 10 + j
        c[None] = c[None] / 4

    bump()
    return {
        "a": a.to_numpy(),
        "b": b.to_numpy(),
        "c": c.to_numpy(),
        "shapes": (a.shape, b.shape, c.shape),
        "n": (a.n, b.n, c.n),
    }


def case_matrix_field_numpy_roundtrip(ti):
    """`to_numpy()` of a matrix field is `shape + (n, m)`; `from_numpy` of that layout;
    non-square matrices and a 2-D field."""
    ti.init(arch=ti.cpu)
    m = ti.Matrix.field(2, 3, ti.f32, shape=4)
    k = ti.Matrix.field(2, 2, ti.i32, shape=(2, 3))
    m.from_numpy(np.arange(24, dtype=np.float32).reshape(4, 2, 3))
    k.from_numpy(np.arange(24, dtype=np.int32).reshape(2, 3, 2, 2))

    @ti.kernel
    def run():
        for i in m:
            m[i] = m[i] * 0.5 + ti.Matrix([[i, 0.0, 0.0], [0.0, 0.0, -i]])
        for i, j in k:
            k[i, j] = k[i, j].transpose() @ k[i, j]

    run()
    return {"m": m.to_numpy(), "k": k.to_numpy(), "nm": (m.n, m.m, k.n, k.m), "shape": k.shape}


def case_math_type_fields(ti):
    """`ti.math.vec3.field`, `ivec2.field`, `mat3.field`, `ti.types.vector(...).field` and
    `ti.types.matrix(...).field`: dtypes and layouts follow the type."""
    ti.init(arch=ti.cpu)
    v = ti.math.vec3.field(shape=4)
    iv = ti.math.ivec2.field(shape=(2, 2))
    m = ti.math.mat3.field(shape=2)
    d = ti.types.vector(2, ti.f64).field(shape=3)
    u = ti.types.matrix(2, 3, ti.u8).field(shape=())

    @ti.kernel
    def run():
        for i in v:
            v[i] = ti.math.vec3(i, i * 0.5, -1.0)
        for i, j in iv:
            iv[i, j] = ti.math.ivec2(i - j, i * j)
        for i in m:
            m[i] = ti.math.mat3(i) + ti.Matrix.identity(ti.f32, 3)
        for i in d:
            d[i] = ti.Vector([i / 3, 1.0 / (i + 1)], dt=ti.f64)
        u[None] = ti.Matrix([[1, 2, 3], [250, 251, 252]]) + 5  # wraps in u8

    run()
    return {
        "v": v.to_numpy(),
        "iv": iv.to_numpy(),
        "m": m.to_numpy(),
        "d": d.to_numpy(),
        "u": u.to_numpy(),
    }


def case_vector_field_fill(ti):
    """`fill` with a scalar (every component) on vector and matrix fields of each kind, and
    fill after kernels have run."""
    ti.init(arch=ti.cpu)
    v = ti.Vector.field(3, ti.f32, shape=4)
    iv = ti.Vector.field(2, ti.i32, shape=(2, 3))
    m = ti.Matrix.field(2, 2, ti.f64, shape=3)

    @ti.kernel
    def scramble():
        for i in v:
            v[i] = ti.Vector([i, -i, 2 * i])

    v.fill(1.5)
    iv.fill(-3)
    m.fill(0.25)
    first = {"v0": v.to_numpy(), "iv0": iv.to_numpy(), "m0": m.to_numpy()}
    scramble()
    mid = v.to_numpy()
    v.fill(-2)
    m.fill(4)
    return {**first, "mid": mid, "v1": v.to_numpy(), "m1": m.to_numpy()}


def case_vector_field_python_access(ti):
    """Python-scope access: `v[i]` reads a vector, `v[i][c]` a component; `v[i] = [...]`,
    `v[i][c] = x`, `m[i] = [[...]]`, `m[i][r, c] = x`; reading back after a kernel."""
    ti.init(arch=ti.cpu)
    v = ti.Vector.field(3, ti.f32, shape=4)
    m = ti.Matrix.field(2, 2, ti.i32, shape=(2, 2))
    v[0] = [1.0, 2.0, 3.0]
    v[1] = ti.Vector([4.0, 5.0, 6.0])
    v[2][1] = 7.5
    m[0, 1] = [[1, 2], [3, 4]]
    m[1, 1][1, 0] = 9

    @ti.kernel
    def double():
        for I in ti.grouped(v):
            v[I] *= 2
        for I in ti.grouped(m):
            m[I] = m[I] * 2 + 1

    double()
    return {
        "v": v.to_numpy(),
        "m": m.to_numpy(),
        "v0_component": float(v[0][2]),
        "v2_component": float(v[2][1]),
        "m01_element": int(m[0, 1][1, 0]),
        "m11_element": int(m[1, 1][1, 0]),
        "v1_as_list": [float(x) for x in v[1]],
        "v1_vector": v[1].to_numpy(),
        "m01_matrix": m[0, 1].to_numpy(),
    }


def case_vector_field_components_in_kernels(ti):
    """`v[i][c]`, `v[i].x`, `m[i][r, c]` reads and writes, `+=` on a component and on a whole
    element, `ti.atomic_add` on vector elements (integer-valued, so order-free)."""
    ti.init(arch=ti.cpu)
    n = 64
    v = ti.Vector.field(3, ti.f32, shape=n)
    m = ti.Matrix.field(2, 2, ti.f32, shape=n)
    total = ti.Vector.field(3, ti.f32, shape=())
    hist = ti.Vector.field(2, ti.i32, shape=4)

    @ti.kernel
    def run():
        for i in v:
            v[i][0] = i
            v[i].y = 2 * i
            v[i][2] = v[i][0] + v[i].y
            v[i].z += 1.0
            m[i][0, 0] = i
            m[i][1, 1] = -i
            m[i][0, 1] += v[i].z
            m[i] += ti.Matrix([[0.0, 0.0], [1.0, 0.0]])
        for i in v:
            total[None] += v[i]
            ti.atomic_add(hist[i % 4], ti.Vector([1, i]))

    run()
    return {
        "v": v.to_numpy(),
        "m": m.to_numpy(),
        "total": total.to_numpy(),
        "hist": hist.to_numpy(),
    }


def case_vector_fields_as_templates(ti):
    """A kernel taking vector fields as `ti.template()` and reading `.n` with ti.static;
    struct-for and `ti.grouped` over 2-D vector fields; `ti.static(range(f.n))`."""
    ti.init(arch=ti.cpu)
    a = ti.Vector.field(2, ti.f32, shape=(3, 4))
    b = ti.Vector.field(4, ti.f32, shape=(2, 2))
    sums = ti.field(ti.f32, shape=2)

    @ti.kernel
    def init(f: ti.template()):
        for I in ti.grouped(f):
            for c in ti.static(range(f.n)):
                f[I][c] = I[0] * 10 + I[1] + c * 0.5

    @ti.kernel
    def total(f: ti.template(), slot: ti.i32):
        for i, j in f:
            sums[slot] += f[i, j].sum()

    init(a)
    init(b)
    total(a, 0)
    total(b, 1)
    return {"a": a.to_numpy(), "b": b.to_numpy(), "sums": sums.to_numpy()}


def case_run_time_component_writes_and_atomics(ti):
    """`f[i][k] += v`, `f[i][k] = v`, `ti.atomic_max(f[i][k], v)` and `ti.atomic_add(v[k], x)`
    on a local vector, with `k` known at run time (the writes were lost and the atomics refused
    before #10)."""
    ti.init(arch=ti.cpu)
    f = ti.Vector.field(3, ti.i32, shape=4)
    g = ti.Vector.field(3, ti.i32, shape=4)
    out = ti.field(ti.i32, shape=3)

    @ti.kernel
    def run(n: ti.i32):
        for t in range(n):
            f[t % 4][t % 3] += 1
            ti.atomic_max(g[t % 4][t % 3], t)
        for k in range(3):
            v = ti.Vector([1, 2, 3])
            old = ti.atomic_add(v[k], 5)
            v[2 - k] = 7
            out[k] = old * 100 + v[k] * 10 + v[2 - k]
        f[1][n % 3] = 99

    run(24)
    return {"f": f.to_numpy(), "g": g.to_numpy(), "out": out.to_numpy()}
