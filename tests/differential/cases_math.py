"""Math: trigonometry, sqrt/rsqrt/exp/log/pow, abs/floor/ceil/round, n-ary min/max, `**` and
ti.math.clamp, in f32 and f64.

Transcendental functions may differ from Taichi's (LLVM intrinsics calling glibc libm) in the
last few ulps when tistudio uses another implementation (e.g. glibc's libmvec, documented to
within 4 ulp). Cases with such functions on f32 declare rtol=1e-5 (about 80 f32 ulps, far below
any real bug, which shows as a wrong digit early); f64 cases keep the default 1e-12.
Inputs avoid the zeros of each function so a relative tolerance is meaningful.
"""

import numpy as np

ANGLES = np.array([-2.5, -1.0, -0.3, 0.2, 0.7, 1.3, 2.9], dtype=np.float64)
UNIT = np.array([-0.95, -0.5, -0.1, 0.15, 0.6, 0.99], dtype=np.float64)
POSITIVE = np.array([0.01, 0.5, 1.5, 2.0, 10.0, 123.456, 1e4], dtype=np.float64)


def _input_and_output(ti, dtype, values):
    """A field of `dtype` holding `values`, a (4, n) output field of `dtype`, and n."""
    n = len(values)
    x = ti.field(dtype, shape=n)
    out = ti.field(dtype, shape=(4, n))
    x.from_numpy(values.astype(x.to_numpy().dtype))
    return x, out, n


def case_trig_f32(ti):
    """sin, cos, tan, tanh and atan2 on f32 angles; asin and acos on f32 values in (-1, 1)."""
    ti.init(arch=ti.cpu)
    x, out, n = _input_and_output(ti, ti.f32, ANGLES)
    u, inv, m = _input_and_output(ti, ti.f32, UNIT)

    @ti.kernel
    def run():
        for i in range(n):
            out[0, i] = ti.sin(x[i])
            out[1, i] = ti.cos(x[i])
            out[2, i] = ti.tan(x[i]) + ti.tanh(x[i]) * 10
            out[3, i] = ti.atan2(x[i], 1.5) + ti.atan2(-1.0, x[i]) * 3
        for i in range(m):
            inv[0, i] = ti.asin(u[i])
            inv[1, i] = ti.acos(u[i])
            inv[2, i] = ti.tanh(u[i] * 4)
            inv[3, i] = ti.atan2(u[i], -0.5)

    run()
    return {"out": out.to_numpy(), "inv": inv.to_numpy()}


case_trig_f32.rtol = 1e-5  # f32 libm vs other implementations: a few ulps (module docstring)


def case_trig_f64(ti):
    """The same trigonometry in f64 (double-precision libm is correctly rounded or 1 ulp)."""
    ti.init(arch=ti.cpu)
    x, out, n = _input_and_output(ti, ti.f64, ANGLES)
    u, inv, m = _input_and_output(ti, ti.f64, UNIT)

    @ti.kernel
    def run():
        for i in range(n):
            out[0, i] = ti.sin(x[i])
            out[1, i] = ti.cos(x[i])
            out[2, i] = ti.tan(x[i]) + ti.tanh(x[i]) * 10
            out[3, i] = ti.atan2(x[i], 1.5) + ti.atan2(-1.0, x[i]) * 3
        for i in range(m):
            inv[0, i] = ti.asin(u[i])
            inv[1, i] = ti.acos(u[i])
            inv[2, i] = ti.tanh(u[i] * 4)
            inv[3, i] = ti.atan2(u[i], -0.5)

    run()
    return {"out": out.to_numpy(), "inv": inv.to_numpy()}


case_trig_f64.rtol = 1e-13  # tighter than needed; f64 libm differs by at most an ulp or two


def case_sqrt_exp_log_pow_f32(ti):
    """sqrt, rsqrt, exp, log, pow and `**` with a float exponent on positive f32 values."""
    ti.init(arch=ti.cpu)
    x, out, n = _input_and_output(ti, ti.f32, POSITIVE)
    more = ti.field(ti.f32, shape=(2, n))

    @ti.kernel
    def run():
        for i in range(n):
            out[0, i] = ti.sqrt(x[i])
            out[1, i] = ti.rsqrt(x[i])
            out[2, i] = ti.exp(-x[i] * 0.01) + ti.exp(ti.min(x[i], 10.0))
            out[3, i] = ti.log(x[i])
            more[0, i] = ti.pow(x[i], 0.75)
            more[1, i] = x[i] ** 1.5 + 2.0 ** -x[i]

    run()
    return {"out": out.to_numpy(), "more": more.to_numpy()}


case_sqrt_exp_log_pow_f32.rtol = 1e-5  # exp/log/pow/rsqrt in f32: a few ulps (docstring)


def case_sqrt_exp_log_pow_f64(ti):
    """The same functions in f64, with an int argument promoted to default_fp."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x, out, n = _input_and_output(ti, ti.f64, POSITIVE)
    ints = ti.field(ti.f64, shape=3)

    @ti.kernel
    def run(k: ti.i32):
        for i in range(n):
            out[0, i] = ti.sqrt(x[i])
            out[1, i] = ti.rsqrt(x[i])
            out[2, i] = ti.exp(-x[i] * 0.01) + ti.exp(ti.min(x[i], 10.0))
            out[3, i] = ti.log(x[i]) + ti.pow(x[i], 0.75)
        ints[0] = ti.sqrt(k)
        ints[1] = ti.exp(k)
        ints[2] = ti.log(k)

    run(5)
    return {"out": out.to_numpy(), "ints": ints.to_numpy()}


case_sqrt_exp_log_pow_f64.rtol = 1e-13  # rsqrt may be 1/sqrt or a refined estimate: 1-2 ulp


def case_abs_floor_ceil_round(ti):
    """abs on ints and floats; floor/ceil/round keep the float type.

    ti.round on a runtime value rounds halves away from zero (-2.5 -> -3, 0.5 -> 1). On a Python
    float literal Taichi calls Python's round() at compile time, which rounds halves to even
    (2.5 -> 2, 0.5 -> 0): the `literal_round` result pins that down.
    """
    ti.init(arch=ti.cpu)
    vals = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.2, 3.49, -0.0], dtype=np.float32)
    n = len(vals)
    x = ti.field(ti.f32, shape=n)
    out = ti.field(ti.f32, shape=(4, n))
    ints = ti.field(ti.i32, shape=(2, n))
    literal_round = ti.field(ti.f32, shape=4)
    x.from_numpy(vals)

    @ti.kernel
    def run():
        for i in range(n):
            out[0, i] = ti.abs(x[i])
            out[1, i] = ti.floor(x[i])
            out[2, i] = ti.ceil(x[i])
            out[3, i] = ti.round(x[i])
            ints[0, i] = ti.abs(i - 5)
            ints[1, i] = ti.floor(x[i] * 3)
        literal_round[0] = ti.round(2.5)
        literal_round[1] = ti.round(-2.5)
        literal_round[2] = ti.round(0.5)
        literal_round[3] = ti.round(1.5)

    run()
    return {
        "out": out.to_numpy(),
        "ints": ints.to_numpy(),
        "literal_round": literal_round.to_numpy(),
    }


def case_min_max_n_ary(ti):
    """ti.min/ti.max with two or more arguments, on ints, floats and a mix (promotes to float)."""
    ti.init(arch=ti.cpu)
    n = 12
    ints = ti.field(ti.i32, shape=(3, n))
    floats = ti.field(ti.f32, shape=(3, n))

    @ti.kernel
    def run():
        for i in range(n):
            a = (i * 7) % 5 - 2
            b = (i * 3) % 4 - 1
            c = 6 - i
            ints[0, i] = ti.min(a, b)
            ints[1, i] = ti.max(a, b, c)
            ints[2, i] = ti.min(a, b, c, 0) + ti.max(-a, 1)
            floats[0, i] = ti.max(a * 0.5, b)
            floats[1, i] = ti.min(a, b * 0.25, c * 0.125)
            floats[2, i] = ti.max(ti.min(a * 1.5, 1.0), -1.0)

    run()
    return {"ints": ints.to_numpy(), "floats": floats.to_numpy()}


def case_power_operator(ti):
    """`**`: int ** int stays int, float ** int (negative too), float ** float, literal bases."""
    ti.init(arch=ti.cpu)
    ints = ti.field(ti.i64, shape=6)
    floats = ti.field(ti.f32, shape=6)

    @ti.kernel
    def run(b: ti.i32, e: ti.i32, x: ti.f32):
        ints[0] = b**e
        ints[1] = (-b) ** e
        ints[2] = b**0
        ints[3] = 3**e
        ints[4] = ti.cast(b, ti.i64) ** 20
        ints[5] = b**e * 10 // 7
        floats[0] = x**e
        floats[1] = x ** (-e)
        floats[2] = x**2.5
        floats[3] = 2.0**e
        floats[4] = (-x) ** 3
        floats[5] = b ** (e * 0.5)

    run(3, 5, 1.5)
    return {"ints": ints.to_numpy(), "floats": floats.to_numpy()}


case_power_operator.rtol = 1e-5  # x ** 2.5 and 3 ** 2.5 go through powf: a few ulps


def case_float_power_by_an_integer_multiplies(ti):
    """float ** integer is square-and-multiply in Taichi (demote_operations), unrolled for a
    constant exponent: `x ** 2` is `x * x`, `x ** -3` is `1 / (x * (x * x))`, not `powf`."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=(64, 9))  # enough values that powf's rounding would show
    wide = ti.field(ti.f64, shape=3)

    @ti.kernel
    def run(e: ti.i32):
        for i in range(64):
            x = 1.1 + 0.77 * i
            out[i, 0] = x**2
            out[i, 1] = x**3
            out[i, 2] = x**4
            out[i, 3] = x**7
            out[i, 4] = x**-2
            out[i, 5] = x**0
            out[i, 6] = x**e
            out[i, 7] = x ** (-e)
            out[i, 8] = (0.5 * (1.5 - x)) ** 2
        wide[0] = ti.f64(1.7) ** 11
        wide[1] = ti.f64(1.7) ** e
        wide[2] = ti.f64(-1.3) ** -5

    run(5)
    return {"out": out.to_numpy(), "wide": wide.to_numpy()}


case_float_power_by_an_integer_multiplies.rtol = 0.0  # the same products as Taichi's: exact


def case_clamp(ti):
    """ti.math.clamp on floats (runtime bounds) and ints (literal bounds), values beyond both."""
    ti.init(arch=ti.cpu)
    n = 9
    floats = ti.field(ti.f32, shape=n)
    ints = ti.field(ti.i32, shape=n)

    @ti.kernel
    def run(lo: ti.f32, hi: ti.f32):
        for i in range(n):
            v = (i - 4) * 0.75
            floats[i] = ti.math.clamp(v, lo, hi)
            ints[i] = ti.math.clamp(i * 3 - 10, -4, 7)

    run(-1.5, 2.0)
    return {"floats": floats.to_numpy(), "ints": ints.to_numpy()}


def case_hex_to_rgb_in_kernels(ti):
    """ti.hex_to_rgb inside a kernel: of a run-time colour (unpacked into r, g, b, and built into
    a vector), and of a compile-time one (Python floats, indexed as a tuple)."""
    ti.init(arch=ti.cpu)
    out = ti.Vector.field(3, ti.f32, shape=4)

    @ti.kernel
    def run(base: ti.i32) -> ti.f32:
        for i in out:
            r, g, b = ti.hex_to_rgb(base + i * 0x010203)
            out[i] = [r, g, b]
        constant = ti.hex_to_rgb(0xFF8000)
        return ti.Vector(ti.hex_to_rgb(0x336699)).sum() + constant[0] + constant[1] * 10

    total = run(0xFE7F01)
    return {"out": out.to_numpy(), "total": total}
