"""Vectors in kernels and in Python scope: construction, indexing, element-wise arithmetic with
scalar broadcast, `@`, `dot`, `cross` (3-D and 2-D), `norm`, `norm_sqr`, `normalized`, `sum`,
`max`, `min`, `cast`, swizzles, `ti.Vector.zero` / `ti.Vector.unit`.

Python-scope vector arithmetic in Taichi works on NumPy values (int64 / float64, whatever the
literals were); results are returned with `.to_numpy()` or as Python scalars via `float()` /
`int()`, because Taichi hands back NumPy scalars, which the harness does not accept as results.
"""


def case_vector_construction_and_indexing(ti):
    """`ti.Vector([...])` from literals and expressions, `v[i]` with constant and loop indices,
    component writes, `len(v)` and `v.n`, and a vector local updated in a loop."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=16)
    iout = ti.field(ti.i32, shape=8)

    @ti.kernel
    def run(a: ti.f32, b: ti.i32):
        v = ti.Vector([a, a * 2, 3.0])
        w = ti.Vector([b, b + 1, b + 2, b + 3])
        v[2] = v[0] + v[1]
        w[0] = 10
        for i in ti.static(range(3)):
            out[i] = v[i]
        for i in range(4):  # dynamic index into a local vector
            iout[i] = w[i] * 2
        acc = ti.Vector([0.0, 0.0, 0.0])
        ti.loop_config(serialize=True)  # `acc` is shared by the iterations: keep them in order
        for k in range(5):
            acc += ti.Vector([k, k * k, 1.0])
            acc[1] -= 1
        for i in ti.static(range(3)):
            out[3 + i] = acc[i]
        iout[4] = len(w)
        iout[5] = w.n
        u = ti.Vector([1, 2])
        u[1] += u[0] * 7
        iout[6] = u[1]

    run(1.5, 4)
    return {"out": out.to_numpy(), "iout": iout.to_numpy()}


def case_vector_elementwise_arithmetic(ti):
    """+ - * / // % ** and unary minus, vector with vector and with a scalar on either side."""
    ti.init(arch=ti.cpu)
    f = ti.Vector.field(4, ti.f32, shape=12)
    g = ti.Vector.field(4, ti.i32, shape=8)

    @ti.kernel
    def run(s: ti.f32, k: ti.i32):
        a = ti.Vector([1.0, -2.0, 3.5, 8.0])
        b = ti.Vector([2.0, 4.0, -0.5, 3.0])
        f[0] = a + b
        f[1] = a - b
        f[2] = a * b
        f[3] = a / b
        f[4] = a + s
        f[5] = s - a
        f[6] = a * s
        f[7] = s / b
        f[8] = -a
        f[9] = a**2
        f[10] = 2.0**b
        f[11] = (a + b) * 0.5 - s * b
        # Runtime operands (k == 3): Taichi 1.7.4 folds `//` and `%` of compile-time constant
        # ints with C's truncating semantics, but computes them at run time with Python's floor.
        i = ti.Vector([7, -7, 9, 10]) * (k - 2)
        j = ti.Vector([2, 2, -4, 3]) * (k - 2)
        g[0] = i + j
        g[1] = i * k
        g[2] = i // j
        g[3] = i % j
        g[4] = k - i
        g[5] = i // k
        g[6] = -i
        g[7] = i**2

    run(0.25, 3)
    return {"f": f.to_numpy(), "g": g.to_numpy()}


def case_vector_comparisons_and_logic(ti):
    """Element-wise comparisons give integer vectors; any/all; abs, min/max of two vectors."""
    ti.init(arch=ti.cpu)
    out = ti.Vector.field(3, ti.i32, shape=6)
    fout = ti.Vector.field(3, ti.f32, shape=3)
    flags = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 5.0, -3.0])
        b = ti.Vector([2.0, 5.0, -4.0])
        out[0] = a < b
        out[1] = a <= b
        out[2] = a == b
        out[3] = a != b
        out[4] = a > 0
        out[5] = ti.Vector([1, 0, 1]) & ti.Vector([1, 1, 0])
        fout[0] = abs(a)
        fout[1] = ti.max(a, b)
        fout[2] = ti.min(a, b)
        flags[0] = (a < 10).all()
        flags[1] = (a > 10).any()
        flags[2] = (a == b).any()
        flags[3] = (a == b).all()

    run()
    return {"out": out.to_numpy(), "fout": fout.to_numpy(), "flags": flags.to_numpy()}


def case_vector_dot_cross_matmul(ti):
    """`dot`, `cross` of 3-D vectors (a vector) and of 2-D vectors (a scalar), `v @ w` as dot."""
    ti.init(arch=ti.cpu)
    cross3 = ti.Vector.field(3, ti.f32, shape=4)
    scalars = ti.field(ti.f32, shape=8)
    icross = ti.Vector.field(3, ti.i32, shape=())

    @ti.kernel
    def run():
        x = ti.Vector([1.0, 0.0, 0.0])
        y = ti.Vector([0.0, 1.0, 0.0])
        a = ti.Vector([1.0, 2.0, 3.0])
        b = ti.Vector([-4.0, 5.0, 0.5])
        cross3[0] = x.cross(y)
        cross3[1] = a.cross(b)
        cross3[2] = b.cross(a)
        cross3[3] = a.cross(a)
        p = ti.Vector([3.0, 1.0])
        q = ti.Vector([-2.0, 4.0])
        scalars[0] = p.cross(q)
        scalars[1] = q.cross(p)
        scalars[2] = a.dot(b)
        scalars[3] = p.dot(q)
        scalars[4] = a @ b
        scalars[5] = ti.math.dot(a, a)
        scalars[6] = ti.math.cross(p, q)
        scalars[7] = a.cross(b).dot(a)  # triple product is zero
        icross[None] = ti.Vector([1, 2, 3]).cross(ti.Vector([4, 5, 6]))

    run()
    return {
        "cross3": cross3.to_numpy(),
        "scalars": scalars.to_numpy(),
        "icross": icross.to_numpy(),
    }


def case_vector_norms(ti):
    """`norm`, `norm_sqr`, `normalized` in f32 and f64 and `norm_inv`."""
    ti.init(arch=ti.cpu)
    n = 6
    v = ti.Vector.field(3, ti.f32, shape=n)
    unit = ti.Vector.field(3, ti.f32, shape=n)
    norms = ti.field(ti.f32, shape=(n, 3))
    d = ti.Vector.field(2, ti.f64, shape=n)
    dnorm = ti.field(ti.f64, shape=(n, 2))

    @ti.kernel
    def run():
        for i in v:
            v[i] = ti.Vector([i + 1.0, 2.0 * i - 3.0, 4.0])
            unit[i] = v[i].normalized()
            norms[i, 0] = v[i].norm()
            norms[i, 1] = v[i].norm_sqr()
            norms[i, 2] = unit[i].norm_sqr()
            d[i] = ti.Vector([3.0 * i, 4.0 * i + 1], dt=ti.f64)
            dnorm[i, 0] = d[i].norm()
            dnorm[i, 1] = d[i].normalized()[1]

    run()
    return {
        "v": v.to_numpy(),
        "unit": unit.to_numpy(),
        "norms": norms.to_numpy(),
        "d": d.to_numpy(),
        "dnorm": dnorm.to_numpy(),
    }


case_vector_norms.rtol = 1e-6  # sqrt is correctly rounded; 1/norm times v may be 1 ulp apart


def case_vector_reductions_and_cast(ti):
    """`sum`, `max`, `min` of float and int vectors; `cast` between i32, f32 and f64."""
    ti.init(arch=ti.cpu)
    red = ti.field(ti.f32, shape=6)
    ired = ti.field(ti.i32, shape=3)
    casts = ti.Vector.field(4, ti.i32, shape=2)
    fcasts = ti.Vector.field(4, ti.f64, shape=2)

    @ti.kernel
    def run(s: ti.f32):
        a = ti.Vector([1.5, -2.25, 7.0, 0.5]) * s
        red[0] = a.sum()
        red[1] = a.max()
        red[2] = a.min()
        red[3] = (a * a).sum()
        red[4] = ti.Vector([-1.0, -8.0]).max()
        red[5] = abs(a).min()
        i = ti.Vector([3, -9, 4])
        ired[0] = i.sum()
        ired[1] = i.max()
        ired[2] = i.min()
        casts[0] = a.cast(ti.i32)  # truncation toward zero
        casts[1] = (a * 10).cast(int)
        fcasts[0] = a.cast(ti.f64) / 3
        fcasts[1] = ti.Vector([1, 2, 3, 4]).cast(ti.f64) / 3

    run(2.0)
    return {
        "red": red.to_numpy(),
        "ired": ired.to_numpy(),
        "casts": casts.to_numpy(),
        "fcasts": fcasts.to_numpy(),
    }


def case_vector_swizzles(ti):
    """Reads `.x .y .z .w`, `.xy`, `.zyx`, `.rgb`, `.xxyy`; writes `.x = `, `.yz = `, `.b += `."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=8)
    v2 = ti.Vector.field(2, ti.f32, shape=2)
    v3 = ti.Vector.field(3, ti.f32, shape=4)
    v4 = ti.Vector.field(4, ti.f32, shape=2)

    @ti.kernel
    def run():
        a = ti.Vector([1.0, 2.0, 3.0, 4.0])
        out[0] = a.x
        out[1] = a.y
        out[2] = a.z
        out[3] = a.w
        out[4] = a.r + a.g * 10
        out[5] = a.b + a.a * 10
        v2[0] = a.xy
        v2[1] = a.wx
        v3[0] = a.zyx
        v3[1] = a.rgb
        v4[0] = a.xxyy
        b = ti.Vector([5.0, 6.0, 7.0])
        b.x = 50.0
        b.yz = ti.Vector([60.0, 70.0])
        b.b += 0.5
        v3[2] = b
        v3[3] = b.zyx + a.xyz
        v4[1] = ti.Vector([b.x, a.y, b.z, a.w])
        out[6] = v3[2].y
        v3[2].x = 1.0  # swizzle write on a field element

    run()
    return {"out": out.to_numpy(), "v2": v2.to_numpy(), "v3": v3.to_numpy(), "v4": v4.to_numpy()}


def case_vector_zero_unit_and_dtypes(ti):
    """`ti.Vector.zero`, `ti.Vector.unit`, `ti.Vector(..., dt=)`, and types following Taichi's
    promotion: an int vector times a float scalar is a float vector."""
    ti.init(arch=ti.cpu)
    z = ti.Vector.field(3, ti.f32, shape=2)
    iz = ti.Vector.field(4, ti.i32, shape=2)
    promoted = ti.Vector.field(3, ti.f32, shape=3)
    wide = ti.Vector.field(2, ti.f64, shape=())

    @ti.kernel
    def run():
        z[0] = ti.Vector.zero(ti.f32, 3)
        z[1] = ti.Vector.zero(ti.f32, 3) + 2.5
        iz[0] = ti.Vector.unit(4, 2, ti.i32)
        iz[1] = ti.Vector.unit(4, 0, ti.i32) * 9
        i = ti.Vector([1, 2, 3])
        promoted[0] = i * 0.5  # f32
        promoted[1] = i / 2  # true division is float
        promoted[2] = i // 2 + ti.Vector([0.25, 0.25, 0.25])
        wide[None] = ti.Vector([1, 3], dt=ti.f64) / 3

    run()
    return {
        "z": z.to_numpy(),
        "iz": iz.to_numpy(),
        "promoted": promoted.to_numpy(),
        "wide": wide.to_numpy(),
    }


def case_vector_python_scope(ti):
    """Vectors built in Python scope: arithmetic, dot, cross, norm, normalized, sum/max/min,
    swizzles and indexing, then passed into a kernel as a `ti.types.vector` argument."""
    ti.init(arch=ti.cpu)
    a = ti.Vector([1.0, 2.0, 2.0])
    b = ti.Vector([3, -1, 4])
    out = ti.Vector.field(3, ti.f32, shape=())

    @ti.kernel
    def take(v: ti.types.vector(3, ti.f32)):
        out[None] = v * 2

    take(a + b)
    return {
        "sum": (a + b).to_numpy(),
        "scaled": (a * 3 - 1).to_numpy(),
        "int_ops": (b * 2 + 1).to_numpy(),
        "dot": float(a.dot(b)),
        "cross": a.cross(b).to_numpy(),
        "norm": float(a.norm()),
        "norm_sqr": float(a.norm_sqr()),
        "normalized": a.normalized().to_numpy(),
        "reductions": (float(a.sum()), int(b.max()), int(b.min())),
        "swizzles": (b.zyx.to_numpy(), b.xy.to_numpy(), float(a.x), int(b.z)),
        "index": (float(a[1]), int(b[2]), b.n),
        "kernel": out.to_numpy(),
    }


def case_vector_in_loops_and_branches(ti):
    """Vector locals through if/else and while, compound assignment of whole vectors, and a
    per-element integer state machine: many kernels' bread and butter."""
    ti.init(arch=ti.cpu)
    n = 16
    pos = ti.Vector.field(2, ti.f32, shape=n)
    steps = ti.field(ti.i32, shape=n)

    @ti.kernel
    def walk():
        for i in range(n):
            p = ti.Vector([i * 1.0, 0.0])
            vel = ti.Vector([1.0, 2.0])
            k = 0
            while p.y < 10.0 and k < 20:
                if p.x > 8.0:
                    vel.x = -1.0
                elif p.x < 2.0:
                    vel.x = 1.0
                p += vel
                vel *= 1.0
                k += 1
            pos[i] = p
            steps[i] = k

    walk()
    return {"pos": pos.to_numpy(), "steps": steps.to_numpy()}


def case_vector_lists_and_python_casts(ti):
    """Python lists where Taichi takes vectors: `f[i] = [a, b]` into a vector field element,
    `ti.Vector(list)`; Python's `int(v)` / `float(v)` cast every component (mpm88 writes
    `base = int(Xp - 0.5)`), as do `ti.cast(v, ...)` and `ti.floor(v, int)`."""
    ti.init(arch=ti.cpu)
    f = ti.Vector.field(2, ti.f32, shape=3)
    base = ti.Vector.field(2, ti.i32, shape=3)
    back = ti.Vector.field(2, ti.f32, shape=2)

    @ti.kernel
    def run(s: ti.f32):
        f[0] = [0, 0]
        f[1] = [s, 2 * s]
        f[2] = ti.Vector([1, 2]) * s
        x = ti.Vector([2.75, -1.25]) * s
        base[0] = int(x - 0.5)
        base[1] = ti.cast(x, ti.i32)
        base[2] = ti.floor(x, int)
        back[0] = float(base[0]) / 4
        back[1] = ti.cast(base[1], ti.f32) / 4

    run(1.5)
    return {"f": f.to_numpy(), "base": base.to_numpy(), "back": back.to_numpy()}
