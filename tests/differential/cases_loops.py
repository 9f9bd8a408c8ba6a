"""Loops and control flow: range, ndrange, struct-for, grouped, serial inner loops,
loop_config(serialize=True), while/break/continue, if/elif/else, chained comparisons,
and/or/not, conditional expressions.
"""


def case_range_forms(ti):
    """Top-level `range(n)`, `range(a, b)` with runtime bounds, and an empty range."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=32)

    @ti.kernel
    def fill(n: ti.i32, a: ti.i32, b: ti.i32):
        for i in range(n):
            out[i] = i + 1
        for i in range(a, b):
            out[i] = -i
        for _ in range(b, a):
            out[0] = 1000  # never runs

    fill(10, 20, 27)
    return {"out": out.to_numpy()}


def case_ndrange_ints_and_pairs(ti):
    """ti.ndrange over ints and (lo, hi) pairs, mixed, and flattened into one index."""
    ti.init(arch=ti.cpu)
    grid = ti.field(ti.i32, shape=(6, 5))
    cube = ti.field(ti.i32, shape=(3, 4, 5))

    @ti.kernel
    def run():
        for i, j in ti.ndrange(6, 5):
            grid[i, j] = 1
        for i, j in ti.ndrange((1, 5), (2, 4)):
            grid[i, j] = i * 10 + j
        for i, j, k in ti.ndrange(3, (1, 3), (-2, 3)):
            cube[i, j, k + 2] = i * 100 + j * 10 + k

    run()
    return {"grid": grid.to_numpy(), "cube": cube.to_numpy()}


def case_struct_for_and_grouped(ti):
    """`for i, j in field`, `for I in ti.grouped(field)` and `ti.grouped(ti.ndrange(...))`."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=(4, 6))
    b = ti.field(ti.f32, shape=(3, 2, 2))
    c = ti.field(ti.i32, shape=(5, 5))

    @ti.kernel
    def run():
        for i, j in a:
            a[i, j] = i * 6 + j
        for I in ti.grouped(b):
            b[I] = I[0] - I[1] * 0.5 + I[2] * 0.25
        for I in ti.grouped(ti.ndrange((1, 4), (0, 5))):
            c[I] = a[I[0], I[1]] * 2

    run()
    return {"a": a.to_numpy(), "b": b.to_numpy(), "c": c.to_numpy()}


def case_inner_loops_carry_values(ti):
    """Only the outermost loop is parallel; inner loops run in order and carry values."""
    ti.init(arch=ti.cpu)
    tri = ti.field(ti.i64, shape=64)
    fib = ti.field(ti.i64, shape=64)

    @ti.kernel
    def run():
        for i in range(64):
            s = 0
            for j in range(i + 1):
                s += j * j
            tri[i] = s
            a, b = 0, 1
            for _ in range(i):
                a, b = b, a + b
            fib[i] = a

    run()
    return {"tri": tri.to_numpy(), "fib": fib.to_numpy()}


def case_serialized_prefix_sum(ti):
    """ti.loop_config(serialize=True) runs the next loop in order: an inclusive prefix sum."""
    ti.init(arch=ti.cpu)
    n = 1000
    data = ti.field(ti.i32, shape=n)
    scan = ti.field(ti.i32, shape=n)

    @ti.kernel
    def run():
        for i in range(n):
            data[i] = (i * 7919) % 13 - 6
        ti.loop_config(serialize=True)
        for i in range(n):
            if i == 0:
                scan[i] = data[i]
            else:
                scan[i] = scan[i - 1] + data[i]

    run()
    return {"data": data.to_numpy(), "scan": scan.to_numpy()}


def case_serialized_loop_break(ti):
    """A serialized top-level loop may `break`; the first index over a threshold."""
    ti.init(arch=ti.cpu)
    hit = ti.field(ti.i32, shape=())

    @ti.kernel
    def first_over(threshold: ti.i32) -> ti.i32:
        total = 0
        ti.loop_config(serialize=True)
        for i in range(100):
            total += i
            hit[None] = i
            if total > threshold:
                break
        return total

    total = first_over(200)
    return {"total": total, "hit": hit[None]}


def case_while_break_continue(ti):
    """while loops with break and continue inside a parallel loop's body."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(20, 3))

    @ti.kernel
    def run():
        for i in range(20):
            n = i
            digits = 0
            while True:
                digits += 1
                n //= 3
                if n == 0:
                    break
            odd_sum = 0
            for j in range(i):
                if j % 2 == 0:
                    continue
                odd_sum += j
            k = 0
            while k * k < i:
                k += 1
            out[i, 0] = digits
            out[i, 1] = odd_sum
            out[i, 2] = k

    run()
    return {"out": out.to_numpy()}


def case_if_elif_else_and_boolean_ops(ti):
    """if/elif/else, chained comparisons, and/or/not, and `a if c else b`."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(16, 5))

    @ti.kernel
    def run():
        for i in range(16):
            grade = 0
            if i < 4:
                grade = 1
            elif i < 8:
                grade = 2
            elif i == 8:
                grade = 3
            else:
                grade = 4
            out[i, 0] = grade
            out[i, 1] = 1 if 3 <= i < 11 else 0
            out[i, 2] = (i % 2 == 0 and i % 3 == 0) or i == 7
            out[i, 3] = not (i > 5)
            out[i, 4] = i * 10 if i > 12 or i < 2 else -i

    run()
    return {"out": out.to_numpy()}


def case_chained_comparisons_float(ti):
    """Chained comparisons on floats, including equal ends: a < b <= c != d."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=9)

    @ti.kernel
    def run(x: ti.f32):
        for i in range(9):
            v = i * 0.25
            out[i] = 0
            if 0.5 < v <= x != 1.5:
                out[i] = 1
            if v == 0.0 or 1.75 <= v <= 2.0:
                out[i] += 2

    run(1.75)
    return {"out": out.to_numpy()}


def case_sequential_top_level_loops(ti):
    """Top-level loops of one kernel run one after another: later loops see earlier writes."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=100)
    b = ti.field(ti.i32, shape=100)

    @ti.kernel
    def run() -> ti.i32:
        for i in range(100):
            a[i] = i
        for i in range(100):
            b[i] = a[99 - i] * 2
        x = b[0] + b[99]
        for i in range(100):
            a[i] = b[i] + x
        return x

    x = run()
    return {"a": a.to_numpy(), "b": b.to_numpy(), "x": x}
