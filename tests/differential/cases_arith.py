"""Integer and float arithmetic exactly as Taichi: Python `//` and `%`, `/` on ints, fixed-width
wraparound, shifts, raw_div/raw_mod, type promotion, implicit casts, int()/float()/ti.cast and
bit operations.

Operands come from fields or kernel arguments so the runtime path is tested; a few cases use
literals as well, so constant folding has to agree with the runtime.
"""

import numpy as np

PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, -5), (1, 7), (-1, 7)]


def case_int_floordiv_mod_python_rules(ti):
    """`//` floors and `%` takes the divisor's sign, for i32, i64 and i16.

    Not i8/u8: Taichi 1.7.4 gets 8-bit `//` and `%` wrong (91 // 2 == 1 in i8).
    """
    ti.init(arch=ti.cpu)
    n = len(PAIRS)
    a32 = ti.field(ti.i32, shape=n)
    b32 = ti.field(ti.i32, shape=n)
    q32 = ti.field(ti.i32, shape=n)
    r32 = ti.field(ti.i32, shape=n)
    q64 = ti.field(ti.i64, shape=n)
    r64 = ti.field(ti.i64, shape=n)
    q16 = ti.field(ti.i16, shape=n)
    r16 = ti.field(ti.i16, shape=n)
    a32.from_numpy(np.array([p[0] for p in PAIRS], dtype=np.int32))
    b32.from_numpy(np.array([p[1] for p in PAIRS], dtype=np.int32))

    @ti.kernel
    def run():
        for i in range(n):
            q32[i] = a32[i] // b32[i]
            r32[i] = a32[i] % b32[i]
            a = ti.cast(a32[i], ti.i64) * 1000000007
            b = ti.cast(b32[i], ti.i64)
            q64[i] = a // b
            r64[i] = a % b
            c = ti.cast(a32[i] * 1013, ti.i16)
            d = ti.cast(b32[i], ti.i16)
            q16[i] = c // d
            r16[i] = c % d

    run()
    fields = {"q32": q32, "r32": r32, "q64": q64, "r64": r64, "q16": q16, "r16": r16}
    return {key: f.to_numpy() for key, f in fields.items()}


def case_float_floordiv_mod(ti):
    """On floats `//` is floor(a / b) (still a float) and `%` follows Python's sign rule."""
    ti.init(arch=ti.cpu)
    vals = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (1.0, 0.25), (-0.5, 3.0)]
    n = len(vals)
    a = ti.field(ti.f32, shape=n)
    b = ti.field(ti.f32, shape=n)
    out32 = ti.field(ti.f32, shape=(n, 2))
    out64 = ti.field(ti.f64, shape=(n, 2))
    a.from_numpy(np.array([v[0] for v in vals], dtype=np.float32))
    b.from_numpy(np.array([v[1] for v in vals], dtype=np.float32))

    @ti.kernel
    def run():
        for i in range(n):
            out32[i, 0] = a[i] // b[i]
            out32[i, 1] = a[i] % b[i]
            x = ti.cast(a[i], ti.f64)
            y = ti.cast(b[i], ti.f64)
            out64[i, 0] = x // y
            out64[i, 1] = x % y

    run()
    return {"out32": out32.to_numpy(), "out64": out64.to_numpy()}


def case_mixed_floordiv_mod(ti):
    """int // float and float % int promote to float first; literals are folded the same way."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=8)

    @ti.kernel
    def run(i: ti.i32, f: ti.f32):
        out[0] = i // f
        out[1] = i % f
        out[2] = f // i
        out[3] = f % i
        out[4] = -7 // 2
        out[5] = -7 % 2
        out[6] = -7.5 // 2
        out[7] = 7.5 % -2

    run(-7, 2.5)
    return {"out": out.to_numpy()}


def case_true_division_of_ints(ti):
    """`/` on two ints gives default_fp: f32 under the default init."""
    ti.init(arch=ti.cpu)
    f32 = ti.field(ti.f32, shape=4)
    wide = ti.field(ti.f64, shape=4)
    ints = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run(a: ti.i32, b: ti.i32):
        f32[0] = a / b
        f32[1] = -a / b
        f32[2] = 1 / 3
        f32[3] = a / 4
        wide[0] = a / b  # computed in f32, then widened: not 1/3 in f64
        wide[1] = ti.cast(a, ti.f64) / b
        wide[2] = 1 / 3
        wide[3] = b / a
        ints[0] = a / b * 10
        ints[1] = 7 / 2
        ints[2] = -7 / 2
        ints[3] = b / a

    run(1, 3)
    return {"f32": f32.to_numpy(), "wide": wide.to_numpy(), "ints": ints.to_numpy()}


def case_wraparound_fixed_width(ti):
    """Overflow wraps in i32, i64, i8, u8, u16 and u32 (add, sub, mul, negation)."""
    ti.init(arch=ti.cpu)
    i32 = ti.field(ti.i32, shape=4)
    i64 = ti.field(ti.i64, shape=3)
    i8 = ti.field(ti.i8, shape=3)
    u8 = ti.field(ti.u8, shape=4)
    u16 = ti.field(ti.u16, shape=3)
    u32 = ti.field(ti.u32, shape=3)

    @ti.kernel
    def run(big: ti.i32, big64: ti.i64):
        i32[0] = big + 1
        i32[1] = -big - 2
        i32[2] = big * 3
        i32[3] = -(-big - 1)
        i64[0] = big64 + 1
        i64[1] = big64 * big64
        i64[2] = ti.cast(big, ti.i64) + 1
        x8 = ti.cast(100, ti.i8)
        i8[0] = x8 + x8
        i8[1] = -x8 - x8 - x8
        i8[2] = x8 * ti.cast(3, ti.i8)
        b = ti.cast(250, ti.u8)
        u8[0] = b + ti.cast(10, ti.u8)
        u8[1] = ti.cast(3, ti.u8) - ti.cast(5, ti.u8)
        u8[2] = b * ti.cast(2, ti.u8)
        u8[3] = big + 10
        h = ti.cast(65535, ti.u16)
        u16[0] = h + ti.cast(1, ti.u16)
        u16[1] = ti.cast(0, ti.u16) - ti.cast(1, ti.u16)
        u16[2] = h * h
        w = ti.cast(big, ti.u32)
        u32[0] = w * ti.cast(2, ti.u32) + ti.cast(3, ti.u32)
        u32[1] = ti.cast(0, ti.u32) - ti.cast(1, ti.u32)
        u32[2] = w * w

    run(2147483647, 9223372036854775807)
    return {
        "i32": i32.to_numpy(),
        "i64": i64.to_numpy(),
        "i8": i8.to_numpy(),
        "u8": u8.to_numpy(),
        "u16": u16.to_numpy(),
        "u32": u32.to_numpy(),
    }


def case_shifts_arithmetic_and_logical(ti):
    """`>>` is arithmetic on signed ints, ti.bit_shr is logical; `<<` wraps at the width."""
    ti.init(arch=ti.cpu)
    i32 = ti.field(ti.i32, shape=8)
    i64 = ti.field(ti.i64, shape=4)
    u32 = ti.field(ti.u32, shape=3)
    i8 = ti.field(ti.i8, shape=3)

    @ti.kernel
    def run(a: ti.i32, s: ti.i32):
        i32[0] = a >> s
        i32[1] = ti.bit_shr(a, s)
        i32[2] = (-a) >> s
        i32[3] = ti.bit_shr(-a, s)
        i32[4] = a << s
        i32[5] = (s - s + 1) << 31
        i32[6] = a << 28
        i32[7] = ti.bit_shr(-1, 28)
        w = ti.cast(a, ti.i64)
        i64[0] = w >> s
        i64[1] = ti.bit_shr(w, s)
        i64[2] = w << 40
        i64[3] = ti.bit_shr(w << 40, 40)
        u = ti.cast(a, ti.u32)
        u32[0] = u >> s
        u32[1] = ti.bit_shr(u, s)
        u32[2] = u << 29
        b = ti.cast(a, ti.i8)
        i8[0] = b >> s
        i8[1] = b << s
        i8[2] = ti.bit_shr(b, s)

    run(-100, 3)
    return {
        "i32": i32.to_numpy(),
        "i64": i64.to_numpy(),
        "u32": u32.to_numpy(),
        "i8": i8.to_numpy(),
    }


def case_raw_div_and_raw_mod(ti):
    """ti.raw_div/raw_mod truncate toward zero like C; on floats raw_div is a plain `/`."""
    ti.init(arch=ti.cpu)
    n = len(PAIRS)
    a = ti.field(ti.i32, shape=n)
    b = ti.field(ti.i32, shape=n)
    q = ti.field(ti.i32, shape=n)
    r = ti.field(ti.i32, shape=n)
    fq = ti.field(ti.f32, shape=n)
    a.from_numpy(np.array([p[0] for p in PAIRS], dtype=np.int32))
    b.from_numpy(np.array([p[1] for p in PAIRS], dtype=np.int32))

    @ti.kernel
    def run():
        for i in range(n):
            q[i] = ti.raw_div(a[i], b[i])
            r[i] = ti.raw_mod(a[i], b[i])
            fq[i] = ti.raw_div(ti.cast(a[i], ti.f32), ti.cast(b[i], ti.f32))

    run()
    return {"q": q.to_numpy(), "r": r.to_numpy(), "fq": fq.to_numpy()}


def case_promotion_rules(ti):
    """Result types of mixed operands, seen through values that only the right type gives."""
    ti.init(arch=ti.cpu)
    wide_i = ti.field(ti.i64, shape=6)
    wide_f = ti.field(ti.f64, shape=6)

    @ti.kernel
    def run(i: ti.i32, f: ti.f32, d: ti.f64):
        wide_f[0] = i + f  # i32 + f32 -> f32: 16777217 rounds to 16777216
        wide_f[1] = f + d  # f32 + f64 -> f64: f keeps its f32 rounding of 0.1
        wide_f[2] = f + 16777217  # int literal + f32 -> f32
        wide_f[3] = i * 1.0  # float literal makes it default_fp (f32)
        wide_f[4] = ti.cast(i, ti.f64) + f
        wide_f[5] = d * 3
        wide_i[0] = ti.cast(100, ti.i8) + i  # i8 + i32 -> i32, no i8 wrap
        wide_i[1] = ti.cast(200, ti.u8) + i  # u8 + i32 -> i32
        wide_i[2] = ti.cast(0, ti.u32) + (i - i - 1)  # u32 + i32 -> u32: 4294967295
        wide_i[3] = ti.cast(0, ti.u32) - 1  # u32 - literal stays u32
        wide_i[4] = ti.cast(i, ti.i64) * 256  # i64 * literal -> i64
        wide_i[5] = ti.cast(3, ti.u8) - ti.cast(5, ti.i8)  # u8 - i8: same width, unsigned

    run(16777217, 0.1, 0.0)
    return {"wide_i": wide_i.to_numpy(), "wide_f": wide_f.to_numpy()}


def case_implicit_casts_at_store_and_return(ti):
    """Stores and returns cast to the destination type: floats truncate toward zero."""
    ti.init(arch=ti.cpu)
    ints = ti.field(ti.i32, shape=4)
    u8 = ti.field(ti.u8, shape=2)
    floats = ti.field(ti.f32, shape=2)

    @ti.kernel
    def run(x: ti.f32, big: ti.i32) -> ti.i32:
        ints[0] = x
        ints[1] = -x
        ints[2] = x * 100
        local = 0  # an int local keeps its type when a float is assigned to it
        local = x * 2
        ints[3] = local
        u8[0] = big
        u8[1] = x
        floats[0] = big
        floats[1] = big + 1
        return x * 3

    ret = run(2.75, 16777217)
    return {
        "ints": ints.to_numpy(),
        "u8": u8.to_numpy(),
        "floats": floats.to_numpy(),
        "ret": ret,
    }


def case_int_float_and_ti_cast(ti):
    """int() truncates, float() converts to default_fp, ti.cast between all kinds."""
    ti.init(arch=ti.cpu)
    ints = ti.field(ti.i64, shape=8)
    floats = ti.field(ti.f64, shape=4)

    @ti.kernel
    def run(x: ti.f32, n: ti.i32):
        ints[0] = int(x)
        ints[1] = int(-x)
        ints[2] = ti.cast(x, ti.i32)
        ints[3] = ti.cast(n, ti.u8)
        ints[4] = ti.cast(n, ti.i8)
        ints[5] = ti.cast(-n, ti.u16)
        ints[6] = ti.cast(ti.cast(n, ti.u8), ti.i8)
        ints[7] = ti.cast(-1, ti.u32)
        floats[0] = float(n) / 7
        floats[1] = ti.cast(n, ti.f64) / 7
        floats[2] = ti.cast(x, ti.f64)
        floats[3] = float(x) + ti.cast(n, ti.f32)

    run(3.99, 1000)
    return {"ints": ints.to_numpy(), "floats": floats.to_numpy()}


def case_bit_operations(ti):
    """& | ^ ~ << on signed and unsigned ints of several widths."""
    ti.init(arch=ti.cpu)
    i32 = ti.field(ti.i32, shape=6)
    u8 = ti.field(ti.u8, shape=5)
    u64 = ti.field(ti.u64, shape=4)

    @ti.kernel
    def run(a: ti.i32, b: ti.i32):
        i32[0] = a & b
        i32[1] = a | b
        i32[2] = a ^ b
        i32[3] = ~a
        i32[4] = (a << 4) ^ ~b
        i32[5] = -a & 0xFF
        x = ti.cast(a, ti.u8)
        y = ti.cast(b, ti.u8)
        u8[0] = x & y
        u8[1] = x | y
        u8[2] = x ^ y
        u8[3] = ~x
        u8[4] = x << ti.cast(3, ti.u8)
        w = ti.cast(a, ti.u64)
        u64[0] = ~w
        u64[1] = w << 60
        u64[2] = (w << 33) | ti.cast(b, ti.u64)
        u64[3] = ti.cast(-1, ti.u64) ^ w

    run(0x5A3, -0x3C)
    return {"i32": i32.to_numpy(), "u8": u8.to_numpy(), "u64": u64.to_numpy()}


def case_comparisons_give_ints(ti):
    """A comparison is 1 or 0 when used as a number; `not` of an int is 0 or 1.

    In Taichi 1.7 a comparison has type u1 (one bit). Mixed with an i32 it promotes to i32, but
    arithmetic between two u1 values stays in one bit: -(a <= 3) == 1, (a <= 3) + (a <= 3) == 0,
    ~(a <= 3) == 0. The `one_bit` results pin that down.
    """
    ti.init(arch=ti.cpu)
    out = ti.field(ti.i32, shape=7)
    one_bit = ti.field(ti.i32, shape=4)

    @ti.kernel
    def run(a: ti.i32, f: ti.f32):
        out[0] = a < 5
        out[1] = a > 5
        out[2] = (a == 3) * 7
        out[3] = (f >= 2.5) - 2
        out[4] = not a
        out[5] = not (a - 3)
        out[6] = (f != 2.5) + 10
        c = a <= 3
        one_bit[0] = -c
        one_bit[1] = c + c
        one_bit[2] = ~c
        one_bit[3] = (f >= 2.5) + (f <= 2.5)

    run(3, 2.5)
    return {"out": out.to_numpy(), "one_bit": one_bit.to_numpy()}


def case_dtype_called_on_a_number_is_a_typed_constant(ti):
    """`ti.i64(0)` starts an i64 accumulator and `ti.f64(1.0) / 3` divides in f64 (a dtype
    called on a Python number in a kernel is a constant of that type, not the bare number)."""
    ti.init(arch=ti.cpu)
    wide = ti.field(ti.f64, shape=3)
    small = ti.field(ti.u8, shape=2)

    @ti.kernel
    def run(n: ti.i32) -> ti.i64:
        s = ti.i64(0)
        for i in range(n):
            s += ti.i64(1) << (40 + i)
        wide[0] = ti.f64(1.0) / 3
        wide[1] = ti.f32(1.0) / 3
        wide[2] = ti.f64(2.0) ** 0.5
        small[0] = ti.u8(200) + ti.u8(100)  # wraps in u8
        small[1] = ti.u8(3) * 2
        return s

    total = run(3)
    return {"total": total, "wide": wide.to_numpy(), "small": small.to_numpy()}
