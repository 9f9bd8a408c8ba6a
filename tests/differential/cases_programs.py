"""Classic small programs: reduction, stencil, prefix scan, histogram, Mandelbrot, game of life,
Jacobi iteration. Each one is a few kernels working together, as users write them.
"""

import numpy as np


def case_reduction_into_scalar_field(ti):
    """Sum, sum of squares and max of a field into 0-D fields (exact: integer-valued)."""
    ti.init(arch=ti.cpu)
    n = 65536
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())
    squares = ti.field(ti.f64, shape=())
    biggest = ti.field(ti.i32, shape=())

    @ti.kernel
    def init():
        for i in range(n):
            x[i] = (i * 37) % 101 - 50

    @ti.kernel
    def reduce():
        for i in range(n):
            total[None] += x[i]
            squares[None] += x[i] * x[i]
            ti.atomic_max(biggest[None], ti.cast(x[i], ti.i32))

    @ti.kernel
    def mean() -> ti.f64:
        return squares[None] / n

    init()
    reduce()
    return {"total": total[None], "squares": squares[None], "max": biggest[None], "mean": mean()}


def case_stencil_2d(ti):
    """A 5-point Laplacian of a 2-D field into another field, boundaries left at zero."""
    ti.init(arch=ti.cpu)
    n, m = 64, 48
    u = ti.field(ti.f32, shape=(n, m))
    lap = ti.field(ti.f32, shape=(n, m))

    @ti.kernel
    def init():
        for i, j in u:
            u[i, j] = ((i * 3 + j * 5) % 17) * 0.25

    @ti.kernel
    def laplacian():
        for i, j in ti.ndrange((1, n - 1), (1, m - 1)):
            lap[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]

    init()
    laplacian()
    return {"u": u.to_numpy(), "lap": lap.to_numpy()}


def case_blocked_prefix_scan(ti):
    """Exclusive scan in three kernels: parallel block sums, serial scan of blocks, fix-up."""
    ti.init(arch=ti.cpu)
    n, block = 10_000, 100
    blocks = n // block
    x = ti.field(ti.i32, shape=n)
    out = ti.field(ti.i32, shape=n)
    sums = ti.field(ti.i32, shape=blocks)

    @ti.kernel
    def local_scan():
        for b in range(blocks):
            running = 0
            for k in range(block):
                out[b * block + k] = running
                running += x[b * block + k]
            sums[b] = running

    @ti.kernel
    def scan_blocks():
        ti.loop_config(serialize=True)
        for b in range(1, blocks):
            sums[b] += sums[b - 1]

    @ti.kernel
    def add_offsets():
        for i in range(block, n):
            out[i] += sums[i // block - 1]

    x.from_numpy((np.arange(n) % 7 - 2).astype(np.int32))
    local_scan()
    scan_blocks()
    add_offsets()
    return {"out": out.to_numpy(), "sums": sums.to_numpy()}


def case_histogram_of_image(ti):
    """Histogram of an 8-bit image held in a u8 field, plus the per-row maximum."""
    ti.init(arch=ti.cpu)
    h, w = 120, 160
    img = ti.field(ti.u8, shape=(h, w))
    hist = ti.field(ti.i32, shape=256)
    row_max = ti.field(ti.i32, shape=h)

    @ti.kernel
    def paint():
        for i, j in img:
            img[i, j] = (i * i + 3 * j + i * j) % 256

    @ti.kernel
    def count():
        for i, j in img:
            v = ti.cast(img[i, j], ti.i32)
            hist[v] += 1
            ti.atomic_max(row_max[i], v)

    paint()
    count()
    return {"img": img.to_numpy(), "hist": hist.to_numpy(), "row_max": row_max.to_numpy()}


def case_mandelbrot_escape_count(ti):
    """Escape-time counts of the Mandelbrot set on a small grid (f64, at most 100 iterations)."""
    ti.init(arch=ti.cpu)
    w, h = 96, 64
    counts = ti.field(ti.i32, shape=(w, h))

    @ti.func
    def escape(cx, cy, max_iter):
        zx, zy = 0.0, 0.0
        k = 0
        while k < max_iter and zx * zx + zy * zy <= 4.0:
            zx, zy = zx * zx - zy * zy + cx, 2.0 * zx * zy + cy
            k += 1
        return k

    @ti.kernel
    def render(x0: ti.f64, y0: ti.f64, step: ti.f64):
        for i, j in counts:
            counts[i, j] = escape(x0 + i * step, y0 + j * step, 100)

    render(-2.2, -1.0, 1.0 / 32)
    return {"counts": counts.to_numpy()}


def case_game_of_life_steps(ti):
    """Ten steps of Conway's game of life on a torus, double-buffered with two fields."""
    ti.init(arch=ti.cpu)
    n = 32
    cells = [ti.field(ti.i8, shape=(n, n)), ti.field(ti.i8, shape=(n, n))]

    @ti.kernel
    def step(src: ti.template(), dst: ti.template()):
        for i, j in src:
            alive = 0
            for di, dj in ti.static(ti.ndrange((-1, 2), (-1, 2))):
                if ti.static(di != 0 or dj != 0):
                    alive += src[(i + di) % n, (j + dj) % n]
            if src[i, j] == 1:
                dst[i, j] = 1 if 2 <= alive <= 3 else 0
            else:
                dst[i, j] = 1 if alive == 3 else 0

    rng = np.random.default_rng(7)
    cells[0].from_numpy((rng.random((n, n)) < 0.35).astype(np.int8))
    start = cells[0].to_numpy()
    for k in range(10):
        step(cells[k % 2], cells[(k + 1) % 2])
    return {"start": start, "after_10": cells[0].to_numpy(), "after_9": cells[1].to_numpy()}


def case_jacobi_iteration(ti):
    """Jacobi iterations for the 2-D Poisson equation; the residual comes back as a return."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    n = 32
    u = ti.field(float, shape=(n, n))
    v = ti.field(float, shape=(n, n))
    f = ti.field(float, shape=(n, n))

    @ti.kernel
    def setup():
        for i, j in f:
            f[i, j] = 1.0 if (i - n // 2) ** 2 + (j - n // 2) ** 2 < 25 else 0.0

    @ti.kernel
    def sweep(src: ti.template(), dst: ti.template()):
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            around = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1]
            dst[i, j] = 0.25 * (around + f[i, j])

    @ti.kernel
    def residual(a: ti.template()) -> float:
        worst = 0.0
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
            around = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
            ti.atomic_max(worst, ti.abs(around - 4.0 * a[i, j] + f[i, j]))
        return worst

    setup()
    for _ in range(50):
        sweep(u, v)
        sweep(v, u)
    return {"u": u.to_numpy(), "residual": residual(u)}
