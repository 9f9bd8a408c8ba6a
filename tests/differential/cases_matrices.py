"""Matrices in kernels and in Python scope: construction (nested lists, `rows`, `cols`),
`m[i, j]` reads and writes, element-wise arithmetic with scalar broadcast, `@` (matrix-matrix,
matrix-vector, non-square), `transpose`, `trace`, `determinant` and `inverse` (2x2, 3x3, 4x4),
`outer_product`, `sum`/`max`/`min`, `cast`, `norm`, `ti.Matrix.identity` and `ti.Matrix.zero`.

Determinants of integer matrices are exact; inverses of well-conditioned matrices are compared
under a small tolerance because Taichi and another compiler may order the cofactor sums
differently.
"""


def case_matrix_construction_and_indexing(ti):
    """Nested-list literals, `ti.Matrix.rows`/`cols` from vectors, `m[i, j]` with constant and
    loop indices, element writes and compound element updates."""
    ti.init(arch=ti.cpu)
    out = ti.Matrix.field(2, 3, ti.f32, shape=4)
    flat = ti.field(ti.i32, shape=9)

    @ti.kernel
    def run(s: ti.f32):
        m = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, s]])
        out[0] = m
        r0 = ti.Vector([7.0, 8.0, 9.0])
        r1 = ti.Vector([-1.0, -2.0, -3.0])
        out[1] = ti.Matrix.rows([r0, r1])
        c = ti.Matrix.cols([ti.Vector([1.0, 2.0]), ti.Vector([3.0, 4.0]), ti.Vector([5.0, 6.0])])
        out[2] = c
        m[0, 0] = 100.0
        m[1, 2] += m[0, 1] * 10
        out[3] = m
        k = ti.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        for i, j in ti.ndrange(3, 3):  # dynamic indices into a local matrix
            flat[i * 3 + j] = k[i, j] * (i + 1) - k[j, i]

    run(0.5)
    return {"out": out.to_numpy(), "flat": flat.to_numpy()}


def case_matrix_elementwise_and_broadcast(ti):
    """Matrix + matrix, matrix * scalar, scalar - matrix, element-wise `*` (not a product),
    `/`, `**`, unary minus and abs, in float and int."""
    ti.init(arch=ti.cpu)
    f = ti.Matrix.field(2, 2, ti.f32, shape=9)
    g = ti.Matrix.field(3, 2, ti.i32, shape=4)

    @ti.kernel
    def run(s: ti.f32):
        a = ti.Matrix([[1.0, -2.0], [3.0, 4.5]])
        b = ti.Matrix([[0.5, 2.0], [-1.0, 8.0]])
        f[0] = a + b
        f[1] = a - b
        f[2] = a * b
        f[3] = a / b
        f[4] = a * s
        f[5] = s - a
        f[6] = -a
        f[7] = abs(a) ** 2
        f[8] = (a + 1) / 2
        i = ti.Matrix([[1, 2], [3, 4], [5, 6]])
        g[0] = i * 3
        g[1] = i % 4
        g[2] = 10 // i
        g[3] = i * i - i

    run(3.0)
    return {"f": f.to_numpy(), "g": g.to_numpy()}


def case_matrix_products(ti):
    """`@` for 2x2 @ 2x2, 3x3 @ 3-vector, 2x3 @ 3x2, 3x2 @ 2-vector, chained products,
    and integer matrices; `m @ v` gives a vector."""
    ti.init(arch=ti.cpu)
    sq = ti.Matrix.field(2, 2, ti.f32, shape=3)
    mv = ti.Vector.field(3, ti.f32, shape=2)
    rect = ti.Matrix.field(2, 2, ti.f32, shape=())
    rect_v = ti.Vector.field(3, ti.f32, shape=())
    ints = ti.Matrix.field(3, 3, ti.i32, shape=2)

    @ti.kernel
    def run():
        a = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        b = ti.Matrix([[0.0, 1.0], [-1.0, 0.0]])
        sq[0] = a @ b
        sq[1] = b @ a
        sq[2] = a @ a @ b
        m = ti.Matrix([[2.0, 0.0, 1.0], [0.0, 3.0, -1.0], [1.0, 1.0, 1.0]])
        v = ti.Vector([1.0, 2.0, 3.0])
        mv[0] = m @ v
        mv[1] = m @ (m @ v) + v
        p = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        q = ti.Matrix([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
        rect[None] = p @ q
        rect_v[None] = q @ ti.Vector([3.0, 4.0])
        k = ti.Matrix([[1, 2, 0], [0, 1, 2], [2, 0, 1]])
        ints[0] = k @ k
        ints[1] = k @ k.transpose()

    run()
    return {
        "sq": sq.to_numpy(),
        "mv": mv.to_numpy(),
        "rect": rect.to_numpy(),
        "rect_v": rect_v.to_numpy(),
        "ints": ints.to_numpy(),
    }


def case_matrix_transpose_trace_reductions(ti):
    """`transpose()` of square and non-square matrices, `trace`, `sum`, `max`, `min`, Frobenius
    `norm`, `cast`, and `.T`-free idioms users write (`m.transpose() @ m`)."""
    ti.init(arch=ti.cpu)
    t = ti.Matrix.field(3, 2, ti.f32, shape=())
    gram = ti.Matrix.field(2, 2, ti.f32, shape=())
    scal = ti.field(ti.f32, shape=6)
    icast = ti.Matrix.field(2, 3, ti.i32, shape=())
    fcast = ti.Matrix.field(2, 2, ti.f64, shape=())

    @ti.kernel
    def run():
        m = ti.Matrix([[1.5, -2.0, 3.0], [4.0, 0.25, -6.5]])
        t[None] = m.transpose()
        gram[None] = m @ m.transpose()
        sq = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
        scal[0] = sq.trace()
        scal[1] = m.sum()
        scal[2] = m.max()
        scal[3] = m.min()
        scal[4] = ti.Matrix([[3.0, 0.0], [0.0, 4.0]]).norm()
        scal[5] = (sq - sq.transpose()).sum()
        icast[None] = m.cast(ti.i32)
        fcast[None] = ti.Matrix([[1, 2], [3, 4]]).cast(ti.f64) / 3

    run()
    return {
        "t": t.to_numpy(),
        "gram": gram.to_numpy(),
        "scal": scal.to_numpy(),
        "icast": icast.to_numpy(),
        "fcast": fcast.to_numpy(),
    }


def case_matrix_determinants(ti):
    """`determinant()` of 2x2, 3x3 and 4x4 integer-valued float matrices (exact) and of an
    f64 matrix built in a loop."""
    ti.init(arch=ti.cpu)
    dets = ti.field(ti.f32, shape=6)
    ddet = ti.field(ti.f64, shape=4)

    @ti.kernel
    def run():
        a = ti.Matrix([[3.0, 8.0], [4.0, 6.0]])
        b = ti.Matrix([[6.0, 1.0, 1.0], [4.0, -2.0, 5.0], [2.0, 8.0, 7.0]])
        c = ti.Matrix(
            [
                [1.0, 0.0, 2.0, -1.0],
                [3.0, 0.0, 0.0, 5.0],
                [2.0, 1.0, 4.0, -3.0],
                [1.0, 0.0, 5.0, 0.0],
            ]
        )
        dets[0] = a.determinant()
        dets[1] = b.determinant()
        dets[2] = c.determinant()
        dets[3] = ti.Matrix.identity(ti.f32, 4).determinant()
        dets[4] = (a @ a).determinant()
        dets[5] = ti.math.determinant(b.transpose())
        for k in range(4):
            m = ti.Matrix.zero(ti.f64, 3, 3)
            for i, j in ti.static(ti.ndrange(3, 3)):
                m[i, j] = (i + 1) * (j + 2) + (k if i == j else 0)
            ddet[k] = m.determinant()

    run()
    return {"dets": dets.to_numpy(), "ddet": ddet.to_numpy()}


def case_matrix_inverses(ti):
    """`inverse()` of 2x2, 3x3 and 4x4 in f32 and f64, and `m @ m.inverse()` close to I."""
    ti.init(arch=ti.cpu)
    inv2 = ti.Matrix.field(2, 2, ti.f32, shape=())
    inv3 = ti.Matrix.field(3, 3, ti.f32, shape=())
    inv4 = ti.Matrix.field(4, 4, ti.f32, shape=())
    ident = ti.Matrix.field(4, 4, ti.f32, shape=())
    dinv3 = ti.Matrix.field(3, 3, ti.f64, shape=())
    dinv4 = ti.Matrix.field(4, 4, ti.f64, shape=())

    @ti.kernel
    def run():
        a = ti.Matrix([[4.0, 7.0], [2.0, 6.0]])
        b = ti.Matrix([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
        c = ti.Matrix(
            [
                [4.0, 1.0, 0.0, 0.0],
                [1.0, 4.0, 1.0, 0.0],
                [0.0, 1.0, 4.0, 1.0],
                [0.0, 0.0, 1.0, 4.0],
            ]
        )
        inv2[None] = a.inverse()
        inv3[None] = b.inverse()
        inv4[None] = c.inverse()
        ident[None] = c @ c.inverse()
        dinv3[None] = b.cast(ti.f64).inverse()
        dinv4[None] = ti.math.inverse(c.cast(ti.f64))

    run()
    return {
        "inv2": inv2.to_numpy(),
        "inv3": inv3.to_numpy(),
        "inv4": inv4.to_numpy(),
        "ident": ident.to_numpy(),
        "dinv3": dinv3.to_numpy(),
        "dinv4": dinv4.to_numpy(),
    }


# Cofactor sums in another order move the last bits; atol covers `c @ inv(c)` entries near 0.
case_matrix_inverses.rtol = 1e-5
case_matrix_inverses.atol = 1e-6


def case_matrix_identity_zero_outer_product(ti):
    """`ti.Matrix.identity`, `ti.Matrix.zero`, `outer_product` of 3- and 2-vectors (3x2),
    and a rank-one update `m += outer_product`."""
    ti.init(arch=ti.cpu)
    i3 = ti.Matrix.field(3, 3, ti.f32, shape=())
    ii = ti.Matrix.field(2, 2, ti.i32, shape=())
    outer = ti.Matrix.field(3, 3, ti.f32, shape=())
    rect = ti.Matrix.field(3, 2, ti.f32, shape=())
    acc = ti.Matrix.field(2, 2, ti.f32, shape=())

    @ti.kernel
    def run():
        i3[None] = ti.Matrix.identity(ti.f32, 3) * 2 + ti.Matrix.zero(ti.f32, 3, 3) + 1
        ii[None] = ti.Matrix.identity(ti.i32, 2)
        a = ti.Vector([1.0, 2.0, 3.0])
        b = ti.Vector([-1.0, 0.5, 4.0])
        outer[None] = a.outer_product(b)
        rect[None] = a.outer_product(ti.Vector([2.0, -3.0]))
        m = ti.Matrix.zero(ti.f32, 2, 2)
        ti.loop_config(serialize=True)  # `m` is shared by the iterations: keep them in order
        for k in range(4):
            v = ti.Vector([k * 1.0, 1.0 - k])
            m += v.outer_product(v)
        acc[None] = m

    run()
    return {
        "i3": i3.to_numpy(),
        "ii": ii.to_numpy(),
        "outer": outer.to_numpy(),
        "rect": rect.to_numpy(),
        "acc": acc.to_numpy(),
    }


def case_matrix_python_scope(ti):
    """Matrices in Python scope: literals, `m[i, j]`, `@` with a matrix and a vector,
    `transpose`, `trace`, `inverse`, `sum`/`max`, `outer_product`, arithmetic; then as a
    `ti.types.matrix` kernel argument."""
    ti.init(arch=ti.cpu)
    m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
    v = ti.Vector([1.0, -1.0])
    got = ti.Matrix.field(2, 2, ti.f32, shape=())

    @ti.kernel
    def take(a: ti.types.matrix(2, 2, ti.f32)):
        got[None] = a @ a

    take(m.transpose())
    return {
        "matmul": (m @ m).to_numpy(),
        "matvec": (m @ v).to_numpy(),
        "transpose": m.transpose().to_numpy(),
        "inverse": m.inverse().to_numpy(),
        "trace_sum_max": (float(m.trace()), float(m.sum()), float(m.max())),
        "element": (float(m[0, 1]), float(m[1, 0])),
        "outer": v.outer_product(v).to_numpy(),
        "arith": (2 * m - 1).to_numpy(),
        "kernel": got.to_numpy(),
        "shape": (m.n, m.m),
    }


def case_matrix_power_iteration(ti):
    """A small algorithm mixing it all: per-element 2x2 matrix powers by repeated squaring
    (integer-valued floats stay exact) and a 3x3 rotation composed from its transpose."""
    ti.init(arch=ti.cpu)
    n = 8
    powers = ti.Matrix.field(2, 2, ti.f64, shape=n)
    ortho = ti.field(ti.f32, shape=n)

    @ti.kernel
    def run():
        for e in range(n):
            base = ti.Matrix([[1.0, 1.0], [1.0, 0.0]], dt=ti.f64)  # Fibonacci matrix
            result = ti.Matrix.identity(ti.f64, 2)
            k = e + 5
            while k > 0:
                if k % 2 == 1:
                    result = result @ base
                base = base @ base
                k //= 2
            powers[e] = result
            c = ti.cos(e * 0.3)
            s = ti.sin(e * 0.3)
            r = ti.Matrix([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            ortho[e] = (r @ r.transpose() - ti.Matrix.identity(ti.f32, 3)).norm()

    run()
    return {"powers": powers.to_numpy(), "ortho_err": ortho.to_numpy()}


case_matrix_power_iteration.atol = 1e-6  # r @ r^T - I is rounding noise around zero
