"""Double-precision math functions written in WGSL.

Naga lowers WGSL's `sin`, `exp`, `log`, `atan2`, `pow`, ... to GLSL.std.450 instructions, which
exist for 16- and 32-bit floats only; for `f64` the shader gets these functions instead. Each
reduces its argument to a small range with exact or split constants (Cody and Waite) and sums a
Taylor series in Horner form, which keeps the error within a few ulps: enough for results that
agree with the CPU's libm to 1e-13. Only `sqrt`, `floor`, `ceil`, `abs`, `sign` and `ldexp` come
from the hardware, because they are exact for `f64` there too.
"""

from __future__ import annotations

F64_MATH = {
    "ti_exp_f64": """fn ti_exp_f64(x: f64) -> f64 {
    if (nan_f64(x)) { return x; }
    if (x > 709.78lf) { return bitcast<f64>(0x7ff0000000000000lu); }
    if (x < -745.2lf) { return 0.0lf; }
    let k = round(x * 1.4426950408889634lf);
    // x - k ln2, with ln2 in two parts so that k * hi is exact
    let r = (x - k * 6.93147180369123816490e-01lf) - k * 1.90821492927058770002e-10lf;
    var p = 1.0lf;
    for (var n = 17; n >= 1; n = n - 1) { p = 1.0lf + p * r / f64(n); }
    return ldexp(p, i32(k));
}""",
    "ti_expm1_small_f64": """fn ti_expm1_small_f64(y: f64) -> f64 {
    // e^y - 1 for |y| <= 1, without the cancellation of ti_exp_f64(y) - 1
    var p = 1.0lf;
    for (var n = 21; n >= 2; n = n - 1) { p = 1.0lf + p * y / f64(n); }
    return y * p;
}""",
    "ti_log_f64": """fn ti_log_f64(x: f64) -> f64 {
    if (nan_f64(x) || x < 0.0lf) { return bitcast<f64>(0x7ff8000000000000lu); }
    if (x == 0.0lf) { return bitcast<f64>(0xfff0000000000000lu); }
    if (x == bitcast<f64>(0x7ff0000000000000lu)) { return x; }
    // x = m 2^e with m in [0.5, 1), from the bits (frexp on f64 crashes lavapipe's LLVM)
    var bits = bitcast<u64>(x);
    var e = -1022;
    if ((bits >> 52u) == 0lu) {  // subnormal: scale by 2^54 first
        bits = bitcast<u64>(x * 18014398509481984.0lf);
        e = e - 54;
    }
    e = e + i32((bits >> 52u) & 0x7fflu);
    var m = bitcast<f64>((bits & 0x000ffffffffffffflu) | 0x3fe0000000000000lu);
    if (m < 0.70710678118654752lf) { m = m * 2.0lf; e = e - 1; }
    // log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172
    let f = m - 1.0lf;
    let s = f / (2.0lf + f);
    let s2 = s * s;
    var p = 0.0lf;
    for (var n = 13; n >= 0; n = n - 1) { p = 1.0lf / f64(2 * n + 1) + s2 * p; }
    let k = f64(e);
    return k * 6.93147180369123816490e-01lf + (2.0lf * s * p + k * 1.90821492927058770002e-10lf);
}""",
    "ti_sincos_f64": """fn ti_sincos_f64(x: f64) -> vec2<f64> {
    // (sin x, cos x): x = k pi/2 + r with pi/2 in three 33-bit parts, |r| <= pi/4
    let k = round(x * 0.63661977236758134lf);
    let r = ((x - k * 1.57079632673412561417e+00lf) - k * 6.07710050630396597660e-11lf)
        - k * 2.02226624871116645580e-21lf;
    let r2 = r * r;
    var sp = 1.0lf;
    var cp = 1.0lf;
    for (var n = 11; n >= 1; n = n - 1) {
        sp = 1.0lf - r2 * sp / f64((2 * n) * (2 * n + 1));
        cp = 1.0lf - r2 * cp / f64((2 * n - 1) * (2 * n));
    }
    let sn = r * sp;
    let quadrant = i32(k) & 3;
    if (quadrant == 0) { return vec2<f64>(sn, cp); }
    if (quadrant == 1) { return vec2<f64>(cp, -sn); }
    if (quadrant == 2) { return vec2<f64>(-sn, -cp); }
    return vec2<f64>(-cp, sn);
}""",
    "ti_sin_f64": """fn ti_sin_f64(x: f64) -> f64 { return ti_sincos_f64(x).x; }""",
    "ti_cos_f64": """fn ti_cos_f64(x: f64) -> f64 { return ti_sincos_f64(x).y; }""",
    "ti_tan_f64": """fn ti_tan_f64(x: f64) -> f64 {
    let sc = ti_sincos_f64(x);
    return sc.x / sc.y;
}""",
    "ti_atan_f64": """fn ti_atan_f64(x: f64) -> f64 {
    var a = abs(x);
    let flip = a > 1.0lf;
    if (flip) { a = 1.0lf / a; }
    // atan(a) = 2 atan(a / (1 + sqrt(1 + a^2))), twice: |t| <= 0.199
    let a1 = a / (1.0lf + sqrt(1.0lf + a * a));
    let t = a1 / (1.0lf + sqrt(1.0lf + a1 * a1));
    let t2 = t * t;
    var p = 0.0lf;
    for (var n = 14; n >= 0; n = n - 1) {
        p = select(1.0lf, -1.0lf, (n & 1) == 1) / f64(2 * n + 1) + t2 * p;
    }
    var r = 4.0lf * t * p;
    if (flip) { r = (1.57079632679489655800e+00lf - r) + 6.12323399573676603587e-17lf; }
    return select(r, -r, x < 0.0lf);
}""",
    "ti_atan2_f64": """fn ti_atan2_f64(y: f64, x: f64) -> f64 {
    // C's atan2 in the upper half plane, then the sign of y (of a zero, too); the sign of x
    // (of a zero, too) and infinities pick the angle where y / x cannot
    let pi = 3.14159265358979311600e+00lf;
    if (nan_f64(x) || nan_f64(y)) { return x + y; }
    var r = pi / 2.0lf;  // x is 0, or y is infinite and x finite
    if (y == 0.0lf) {
        r = select(0.0lf, pi, signbit_f64(x));
    } else if (inf_f64(x)) {
        let corner = select(0.0lf, pi / 4.0lf, inf_f64(y));
        r = select(corner, pi - corner, x < 0.0lf);
    } else if (x != 0.0lf && !inf_f64(y)) {
        r = ti_atan_f64(abs(y) / x);
        if (x < 0.0lf) { r = r + pi; }
    }
    return select(r, -r, signbit_f64(y));
}""",
    "ti_asin_f64": """fn ti_asin_f64(x: f64) -> f64 {
    if (abs(x) > 1.0lf) { return (x - x) / (x - x); }
    if (abs(x) == 1.0lf) { return x * 1.57079632679489655800e+00lf; }
    return ti_atan_f64(x / sqrt((1.0lf - x) * (1.0lf + x)));
}""",
    "ti_acos_f64": """fn ti_acos_f64(x: f64) -> f64 {
    if (abs(x) > 1.0lf) { return (x - x) / (x - x); }
    return 2.0lf * ti_atan_f64(sqrt((1.0lf - x) / (1.0lf + x)));
}""",
    "ti_tanh_f64": """fn ti_tanh_f64(x: f64) -> f64 {
    if (nan_f64(x)) { return x; }
    let a = abs(x);
    var r = 1.0lf;
    if (a < 0.5lf) {
        let e = ti_expm1_small_f64(2.0lf * a);
        r = e / (e + 2.0lf);
    } else if (a < 22.0lf) {
        r = 1.0lf - 2.0lf / (ti_exp_f64(2.0lf * a) + 1.0lf);
    }
    return select(r, -r, x < 0.0lf);
}""",
    "ti_pow_f64": """fn ti_pow_f64(x: f64, y: f64) -> f64 {
    if (y == 0.0lf) { return 1.0lf; }
    if (x < 0.0lf && y != trunc(y)) { return bitcast<f64>(0x7ff8000000000000lu); }
    if (x == 0.0lf) { return select(0.0lf, bitcast<f64>(0x7ff0000000000000lu), y < 0.0lf); }
    let r = ti_exp_f64(y * ti_log_f64(abs(x)));
    return select(r, -r, x < 0.0lf && abs(y % 2.0lf) == 1.0lf);
}""",
}


def _as_f32(text: str) -> str:
    """The same function in f32 (f32 literals round the long decimal constants)."""
    return text.replace("f64", "f32").replace("lf", "f")


# The f32 inverse trigonometry of GPU drivers can be tens of ulps off (lavapipe's atan2 gave
# 3e-6 absolute error near 1); the same reductions in f32 stay within a few ulps.
F32_MATH = {
    name.replace("f64", "f32"): _as_f32(F64_MATH[name])
    for name in ("ti_atan_f64", "ti_atan2_f64", "ti_asin_f64", "ti_acos_f64")
}
