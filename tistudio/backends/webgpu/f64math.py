"""Double-precision math functions written in WGSL.

Naga lowers WGSL's `sin`, `exp`, `log`, `atan2`, `pow`, ... to GLSL.std.450 instructions, which
exist for 16- and 32-bit floats only; for `f64` the shader gets these functions instead. Each
reduces its argument to a small range with exact or split constants (Cody and Waite; `sin` and
`cos` from 2^20 on by Payne and Hanek, with 2/pi to 1184 bits) and sums a Taylor series in
Horner form, which keeps the error within a few ulps: enough for results that agree with the
CPU's libm to 1e-13. NaN is tested on the bits (`nan_f64`, ieee.py): drivers may fold `x != x`.
Only `sqrt`, `floor`, `ceil`, `abs`, `sign` and `ldexp` come from the hardware, because they are
exact for `f64` there too.
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
    // (sin x, cos x): x = k pi/2 + r, |r| <= pi/4, with pi/2 in three 33-bit parts (exact
    // products k * part below 2^20), and by Payne and Hanek above
    var k = round(x * 0.63661977236758134lf);
    var r = ((x - k * 1.57079632673412561417e+00lf) - k * 6.07710050630396597660e-11lf)
        - k * 2.02226624871116645580e-21lf;
    if (abs(x) >= 1048576.0lf && !inf_f64(x) && !nan_f64(x)) {
        let kr = ti_rem_pio2_f64(abs(x));
        k = select(kr.x, -kr.x, x < 0.0lf);
        r = select(kr.y, -kr.y, x < 0.0lf);
    }
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
    "ti_rem_pio2_f64": """fn ti_rem_pio2_f64(a: f64) -> vec2<f64> {
    // a = k pi/2 + r for a finite a >= 2^20 (Payne and Hanek): (k mod 4 or 4, r), |r| <= pi/4.
    // a = m 2^e with a 53-bit integer m, so a 2/pi = sum_j m w[j] 2^(e - 32 (j + 1)), w the
    // 32-bit words of 2/pi; the words before j0 add multiples of 4 and drop out, and seven
    // words from j0 on leave over 130 exact bits below the binary point
    var w = array<u32, 37>(TWO_OVER_PI);
    let bits = bitcast<u64>(a);
    let m = (bits & 0x000ffffffffffffflu) | 0x0010000000000000lu;
    let e = i32((bits >> 52u) & 0x7fflu) - 1075;
    let j0 = max(0, (e - 2) / 32);
    var p = array<u32, 11>();  // m * (w[j0] .. w[j0 + 6]), least significant limb first
    for (var h = 0; h < 2; h = h + 1) {
        let half = select(m & 0xfffffffflu, m >> 32u, h == 1);
        var carry = 0lu;
        for (var t = 0; t < 7; t = t + 1) {
            let s = u64(w[j0 + 6 - t]) * half + u64(p[t + h]) + carry;
            p[t + h] = u32(s & 0xfffffffflu);
            carry = s >> 32u;
        }
        p[7 + h] = u32(carry);
    }
    let point = 32 * (j0 + 7) - e;  // the binary point of p: k's two bits above, r below
    var hi = ti_bits_at(p, point - 64);
    var lo = ti_bits_at(p, point - 128);
    var k = f64(ti_bits_at(p, point) & 3lu);
    var sign = 1.0lf;
    if ((hi >> 63u) == 1lu) {  // a fraction f >= 1/2: r = (f - 1) pi/2, and k + 1
        hi = ~hi;
        lo = ~lo + 1lu;
        if (lo == 0lu) { hi = hi + 1lu; }
        k = k + 1.0lf;
        sign = -1.0lf;
    }
    let f = f64(hi) * 5.421010862427522e-20lf + f64(lo) * 2.938735877055719e-39lf;
    return vec2<f64>(k, sign * (f * 1.5707963267948966lf + f * 6.123233995736766e-17lf));
}""",
    "ti_bits_at": """fn ti_bits_at(limbs: array<u32, 11>, lo: i32) -> u64 {
    // bits lo .. lo + 63 of the number whose 32-bit limbs are `limbs`, least significant first
    var q = limbs;
    let i = lo / 32;
    let s = u32(lo % 32);
    var v = u64(q[i]) | (u64(q[i + 1]) << 32u);
    if (s != 0u) { v = (v >> s) | (u64(q[i + 2]) << (64u - s)); }
    return v;
}""",
    "ti_trunc_f64": """fn ti_trunc_f64(x: f64) -> f64 {
    // lavapipe's f64 trunc returns x itself from 2^31 on (so round(-2147483648.5) was that)
    return select(floor(x), ceil(x), x < 0.0lf);
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
    if (x < 0.0lf && y != ti_trunc_f64(y)) { return bitcast<f64>(0x7ff8000000000000lu); }
    if (x == 0.0lf) { return select(0.0lf, bitcast<f64>(0x7ff0000000000000lu), y < 0.0lf); }
    let r = ti_exp_f64(y * ti_log_f64(abs(x)));
    return select(r, -r, x < 0.0lf && abs(y % 2.0lf) == 1.0lf);
}""",
}


# the first 37 32-bit words of the fraction of 2/pi (1184 bits: enough for every finite f64)
_TWO_OVER_PI = (
    "0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, "
    "0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, "
    "0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, "
    "0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, "
    "0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, "
    "0x1f8d5d08u, 0x56033046u"
)
F64_MATH["ti_rem_pio2_f64"] = F64_MATH["ti_rem_pio2_f64"].replace("TWO_OVER_PI", _TWO_OVER_PI)


def _as_f32(text: str) -> str:
    """The same function in f32 (f32 literals round the long decimal constants)."""
    return text.replace("f64", "f32").replace("lf", "f")


# The f32 inverse trigonometry of GPU drivers can be tens of ulps off (lavapipe's atan2 gave
# 3e-6 absolute error near 1); the same reductions in f32 stay within a few ulps.
F32_MATH = {
    name.replace("f64", "f32"): _as_f32(F64_MATH[name])
    for name in ("ti_atan_f64", "ti_atan2_f64", "ti_asin_f64", "ti_acos_f64")
}
