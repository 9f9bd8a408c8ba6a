"""ti.static: compile-time if and unrolled for (range, lists, enumerate of fields); Python
globals and closure variables are compile-time constants, frozen at the first compilation.
"""

# Read by kernels in this module; changed by case_global_is_frozen_at_first_compile.
GLOBAL_SCALE = 3
GLOBAL_USE_SQUARES = True


def case_static_if(ti):
    """A static if picks a branch at compile time; the untaken branch may be invalid code."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=8)

    @ti.kernel
    def fill(mode: ti.template()):
        for i in range(8):
            if ti.static(mode == "square"):
                out[i] = i * i
            elif ti.static(mode == "negate"):
                out[i] = -i
            else:
                out[i] = undefined_name  # noqa: F821 - never compiled

    fill("square")
    squares = out.to_numpy()
    fill("negate")
    return {"squares": squares, "negated": out.to_numpy()}


def case_static_for_range_unrolled(ti):
    """`for k in ti.static(range(n))` unrolls; k is a Python int inside the body."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(5, 4))
    coeffs = ti.field(ti.f32, shape=4)

    @ti.kernel
    def run(x: ti.f32) -> ti.f32:
        for i in range(5):
            for k in ti.static(range(4)):
                out[i, k] = i * 10**k
        poly = 0.0
        for k in ti.static(range(1, 4)):
            coeffs[k] = k * 0.5
            poly += coeffs[k] * x**k
        return poly

    poly = run(2.0)
    return {"out": out.to_numpy(), "coeffs": coeffs.to_numpy(), "poly": poly}


def case_static_for_over_list_and_enumerate_fields(ti):
    """ti.static over a Python list of numbers and over enumerate() of a list of fields."""
    ti.init(arch=ti.cpu)
    fields = [ti.field(ti.i32, shape=4), ti.field(ti.f32, shape=4), ti.field(ti.i64, shape=4)]
    weights = [2, -3, 5]
    total = ti.field(ti.f64, shape=())

    @ti.kernel
    def run():
        for i in range(4):
            for k, f in ti.static(enumerate(fields)):
                f[i] = (k + 1) * 100 + i
        for w in ti.static(weights):
            total[None] += w * 1.5

    run()
    out = {f"field{k}": f.to_numpy() for k, f in enumerate(fields)}
    out["total"] = total[None]
    return out


def case_global_is_frozen_at_first_compile(ti):
    """A kernel reads Python globals when it is compiled; later changes are not seen."""
    global GLOBAL_SCALE, GLOBAL_USE_SQUARES
    GLOBAL_SCALE, GLOBAL_USE_SQUARES = 3, True
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=6)

    @ti.kernel
    def run():
        for i in range(6):
            if ti.static(GLOBAL_USE_SQUARES):
                out[i] = i * i * GLOBAL_SCALE
            else:
                out[i] = i * GLOBAL_SCALE

    try:
        run()
        first = out.to_numpy()
        GLOBAL_SCALE, GLOBAL_USE_SQUARES = 100, False
        out.fill(0)
        run()
        return {"first": first, "after_change": out.to_numpy()}
    finally:
        GLOBAL_SCALE, GLOBAL_USE_SQUARES = 3, True


def case_closure_variable_is_frozen_at_first_compile(ti):
    """A local variable captured by a kernel is a constant fixed by the first compilation."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=4)
    offset = 0.5
    count = 3

    @ti.kernel
    def run():
        for i in range(count):
            out[i] = i + offset

    run()
    first = out.to_numpy()
    offset = 10.0
    count = 4
    out.fill(-1)
    run()
    return {"first": first, "after_change": out.to_numpy()}


def case_static_closure_select_func(ti):
    """ti.static picks among Python-level alternatives: funcs in a list, chosen per template."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(3, 5))

    @ti.func
    def double(x):
        return 2 * x

    @ti.func
    def square(x):
        return x * x

    @ti.func
    def minus(x):
        return -x

    ops = [double, square, minus]

    @ti.kernel
    def apply(which: ti.template()):
        for j in range(5):
            out[which, j] = ti.static(ops[which])(j + 1)

    for which in range(3):
        apply(which)
    return {"out": out.to_numpy()}


def case_static_shape_of_template_field(ti):
    """Field shapes are compile-time: ti.static(f.shape[0]) bounds unrolled loops per field."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=3)
    b = ti.field(ti.i32, shape=5)

    @ti.kernel
    def reverse_cumsum(f: ti.template()) -> ti.i32:
        running = 0
        for k in ti.static(range(f.shape[0])):
            running += k + 1
            f[f.shape[0] - 1 - k] = running
        return running

    ra = reverse_cumsum(a)
    rb = reverse_cumsum(b)
    return {"a": a.to_numpy(), "b": b.to_numpy(), "ra": ra, "rb": rb}


def case_static_break_continue_and_grouped(ti):
    """break/continue under a ti.static if cut an unrolled loop; ti.static(ti.grouped(...))
    gives constant index vectors, usable as a field index and a matrix index."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=(3, 4))
    m = ti.Matrix.field(2, 3, ti.i32, shape=4)

    @ti.kernel
    def run():
        for i in range(3):
            for j in ti.static(range(4)):
                if ti.static(j == 1):
                    continue
                out[i, j] = i * 10 + j
                if ti.static(j == 2):
                    break
        for p in range(4):
            for e in ti.static(ti.grouped(ti.ndrange(2, (1, 3)))):
                m[p][e] = e[0] * 10 + e[1] + p * 100

    run()
    return {"out": out.to_numpy(), "m": m.to_numpy()}


def case_comprehensions_and_walrus(ti):
    """List and dict comprehensions run at compile time and may hold run-time values; ':='
    assigns like '='."""
    ti.init(arch=ti.cpu)
    src = ti.field(ti.f32, shape=4)
    out = ti.field(ti.f32, shape=6)

    @ti.kernel
    def run(a: ti.f32):
        v = ti.Vector([src[i] * a for i in range(4) if i != 2])
        rows = ti.Matrix([[src[r] + c for c in range(2)] for r in range(3)])
        table = {k: src[k] * 2 for k in range(2)}
        out[0] = v.sum()
        out[1] = rows[2, 1]
        out[2] = table[1]
        for i in range(4):
            if (t := src[i] * a) > 4:
                out[3] += t
        out[4] = (w := v * 2).sum() + w[0]
        out[5] = ti.Vector([0 for _ in range(5)]).n

    src.from_numpy(ti.Vector([1.0, 2.0, 3.0, 4.0]).to_numpy())
    run(2.0)
    return {"out": out.to_numpy()}
