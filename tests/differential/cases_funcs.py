"""@ti.func: inlined; typed and untyped parameters; returns; templates; funcs calling funcs."""


def case_func_untyped_and_typed_parameters(ti):
    """An annotated func parameter casts its argument (ti.i32 truncates 7.9 to 7)."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=6)

    @ti.func
    def half_typed(x: ti.i32):
        return x / 2

    @ti.func
    def half_untyped(x):
        return x / 2

    @ti.func
    def scaled(x: ti.f32, k: ti.i32) -> ti.f32:
        return x * k

    @ti.kernel
    def run(a: ti.f32):
        out[0] = half_typed(a)
        out[1] = half_untyped(a)
        out[2] = half_untyped(7)
        out[3] = scaled(a, 3)
        out[4] = scaled(2, 2.9)
        out[5] = half_typed(-a)

    run(7.9)
    return {"out": out.to_numpy()}


def case_func_parameters_are_values(ti):
    """Assigning to a parameter inside a func does not change the caller's variable."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=4)

    @ti.func
    def bump(x):
        x = x + 10
        x += 1
        return x

    @ti.kernel
    def run():
        v = 5
        w = bump(v)
        out[0] = v
        out[1] = w
        out[2] = bump(bump(v))
        out[3] = v

    run()
    return {"out": out.to_numpy()}


def case_func_return_from_branches(ti):
    """A func computes its result in if/else and a loop, then returns once."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=12)

    @ti.func
    def sign(x):
        r = 0
        if x > 0:
            r = 1
        elif x < 0:
            r = -1
        return r

    @ti.func
    def collatz_steps(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    @ti.kernel
    def run():
        for i in range(6):
            out[i] = sign(i - 3)
            out[6 + i] = collatz_steps(i + 1)

    run()
    return {"out": out.to_numpy()}


def case_func_template_parameter(ti):
    """A func with ti.template() parameters writes into the field it is given."""
    ti.init(arch=ti.cpu)
    a = ti.field(ti.i32, shape=8)
    b = ti.field(ti.f32, shape=8)

    @ti.func
    def put(f: ti.template(), i, v):
        f[i] = v

    @ti.func
    def accumulate(f: ti.template(), i, v):
        f[i] += v
        return f[i]

    @ti.kernel
    def run() -> ti.f32:
        for i in range(8):
            put(a, i, i * i)
            put(b, i, i * 0.5)
        accumulate(a, 0, 100)
        return accumulate(b, 7, 10)

    last = run()
    return {"a": a.to_numpy(), "b": b.to_numpy(), "last": last}


def case_funcs_calling_funcs(ti):
    """Funcs call funcs (three levels); a func used by two kernels."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f64, shape=10)

    @ti.func
    def square(x):
        return x * x

    @ti.func
    def norm2(x, y):
        return square(x) + square(y)

    @ti.func
    def dist_over(x, y, d):
        return ti.sqrt(norm2(x, y)) / d

    @ti.kernel
    def first():
        for i in range(5):
            out[i] = dist_over(3.0 * i, 4.0 * i, 5.0)

    @ti.kernel
    def second():
        for i in range(5, 10):
            out[i] = norm2(i, 1) + square(0.5)

    first()
    second()
    return {"out": out.to_numpy()}


def case_func_return_type_annotation_casts(ti):
    """`-> ti.i32` on a func truncates its float result; `-> ti.f64` widens an int."""
    ti.init(arch=ti.cpu)
    ints = ti.field(ti.i32, shape=3)
    floats = ti.field(ti.f64, shape=2)

    @ti.func
    def trunc(x) -> ti.i32:
        return x * 1.5

    @ti.func
    def widen(x: ti.i32) -> ti.f64:
        return x

    @ti.kernel
    def run():
        ints[0] = trunc(3)
        ints[1] = trunc(-3)
        ints[2] = trunc(1) * 10
        floats[0] = widen(7) / 2
        floats[1] = widen(-9)

    run()
    return {"ints": ints.to_numpy(), "floats": floats.to_numpy()}
