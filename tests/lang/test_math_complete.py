"""`ti.math` complete as Taichi 1.7.4 has it: every public name of Taichi's `taichi.math` and every
math function of `taichi.lang.ops` exists in tistudio, and the same kernels give the same numbers
under `import taichi` and `import tistudio` (on the CPU and on the GPU back end): complex numbers
as vec2 (`cmul`, `cdiv`, `cpow`, ...), `popcnt`/`clz` over every integer width, the GLSL-like
helpers spelled through `ti.math`, and the Python-scope math (`ti.math.max`, `ti.frexp`,
`ti.rgb_to_hex`, ...)."""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

import tistudio
from tests.differential.harness import OnGpu, compare, run_case
from tistudio.lang import colors


@pytest.fixture(scope="module")
def taichi() -> ModuleType:
    import taichi

    return taichi


def _public(module: ModuleType) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_") and n != "mathimpl")


def test_every_name_of_taichis_math_module_exists(taichi: ModuleType) -> None:
    missing = [n for n in _public(taichi.math) if not hasattr(tistudio.math, n)]
    assert missing == []


def test_math_constants_and_types_match_taichis(taichi: ModuleType) -> None:
    for name in ("e", "pi", "inf"):
        assert getattr(tistudio.math, name) == getattr(taichi.math, name)
    assert math.isnan(tistudio.math.nan)
    for name in ("vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2", "uvec3", "uvec4"):
        assert getattr(tistudio.math, name).n == getattr(taichi.math, name).n
    for name in ("mat2", "mat3", "mat4"):
        ours, theirs = getattr(tistudio.math, name), getattr(taichi.math, name)
        assert (ours.n, ours.m) == (theirs.n, theirs.m)


def test_every_math_function_of_taichis_ops_exists(taichi: ModuleType) -> None:
    names = list(taichi.lang.ops.__all__) + ["popcnt", "clz"]
    missing = [n for n in names if not hasattr(tistudio.lang.ops, n)]
    assert missing == []


def test_python_scope_math_matches_taichi(taichi: ModuleType) -> None:
    for ti in (taichi, tistudio):
        assert ti.math.max(1, 7, 3) == 7 and ti.math.min(4, -2, 9) == -2
        assert ti.math.pow(2, 10) == 1024 and ti.math.sqrt(2.25) == 1.5
    for x in (0, 1, 5, 255, 2**31 - 1, 2**31, 2**40, -3):
        assert tistudio.lang.ops.popcnt(x) == taichi.lang.ops.popcnt(x)
        assert tistudio.lang.ops.clz(x) == taichi.lang.ops.clz(x)
    for x in (12.0, 3, -0.375, 0.0, 1e-30):
        assert tuple(tistudio.lang.ops.frexp(x)) == tuple(taichi.lang.ops.frexp(x))


def test_rounding_and_raw_division_of_python_numbers_match_taichi(taichi: ModuleType) -> None:
    """Taichi rounds Python numbers with NumPy (floats; half to even) and divides them as
    `a // b` and the C remainder: the same values of the same Python types here."""
    calls = [
        ("floor", (2.5,)),
        ("floor", (3,)),
        ("ceil", (-2.5,)),
        ("round", (2.5,)),
        ("round", (-0.5,)),
        ("raw_div", (-7, 2)),
        ("raw_div", (7, 2.0)),
        ("raw_mod", (-7, 3)),
        ("raw_mod", (7.5, -2)),
    ]
    for name, args in calls:
        ours, theirs = getattr(tistudio, name)(*args), getattr(taichi, name)(*args)
        assert (ours, type(ours)) == (theirs, type(theirs)), (name, args)


def test_colours_match_taichis(taichi: ModuleType) -> None:
    for rgb in ((0.0, 0.5, 1.0), (1.2, -0.1, 0.2), (0.999, 0.001, 0.25)):
        assert colors.rgb_to_hex(rgb) == taichi.rgb_to_hex(rgb)
    channels = np.array([[0.1, 0.9], [0.5, 0.0], [1.0, 0.33]])
    assert (colors.rgb_to_hex(channels) == taichi.rgb_to_hex(channels)).all()
    for value in (0x000000, 0xFFFFFF, 0x102A3C, 0xFF0080):
        assert colors.hex_to_rgb(value) == taichi.hex_to_rgb(value)


def test_frexp_of_a_run_time_value_is_refused() -> None:
    tistudio.init(arch=tistudio.cpu)

    @tistudio.kernel
    def run(x: tistudio.f32) -> tistudio.f32:
        return tistudio.lang.ops.frexp(x)[0]

    with pytest.raises(tistudio.TaichiSyntaxError, match="frexp"):
        run(3.0)


# --- kernels run on both: cases in the differential harness's form ---------------------------

COMPLEX = np.array(
    [[1.0, 1.0], [0.0, 1.0], [-1.0, 0.0], [3.0, -4.0], [-0.5, -2.0], [0.25, 0.0], [0.0, 0.0]]
)


def case_complex(ti, fp="f32"):  # noqa: ANN001, ANN201
    """Every complex helper on a set of numbers (zero last: csqrt and cpow give zero), through a
    ti.func too; divisions and logarithms skip zero."""
    ti.init(arch=ti.cpu, default_fp=getattr(ti, fp))
    n = len(COMPLEX)
    z = ti.math.vec2.field(shape=n)
    out = ti.math.vec2.field(shape=(12, n))
    z.from_numpy(COMPLEX.astype(np.float32 if fp == "f32" else np.float64))

    @ti.func
    def rotate_then_square(a, b):  # noqa: ANN001, ANN202
        return ti.math.cpow(ti.math.cmul(a, b), 2)

    @ti.kernel
    def run():
        for i in range(n):
            w = z[(i + 1) % n]
            out[0, i] = ti.math.cmul(z[i], w)
            out[1, i] = ti.math.cconj(z[i])
            out[2, i] = ti.math.csqrt(z[i])
            out[3, i] = ti.math.cpow(z[i], 2.5)
            out[4, i] = ti.math.cpow(z[i], -1.0)
            out[5, i] = ti.math.cexp(z[i])
            out[6, i] = rotate_then_square(z[i], ti.math.vec2(0.0, 1.0))
            if i < n - 1:
                out[7, i] = ti.math.cdiv(w, z[i])
                out[8, i] = ti.math.cinv(z[i])
                out[9, i] = ti.math.clog(z[i])
                out[10, i] = ti.math.cexp(ti.math.clog(z[i]))
                out[11, i] = ti.math.cmul(ti.math.csqrt(z[i]), ti.math.csqrt(z[i]))

    run()
    return {"out": out.to_numpy()}


case_complex.rtol = 1e-5  # sin/cos/atan2/pow/log in f32: a few ulps between libms
case_complex.atol = 1e-6  # results that are zero up to rounding (cexp(clog(i)).x, ...)


def case_complex_f64(ti):  # noqa: ANN001, ANN201
    return case_complex(ti, "f64")


case_complex_f64.rtol = 1e-12
case_complex_f64.atol = 1e-14


def case_bit_counts(ti):  # noqa: ANN001, ANN201
    """popcnt and clz of run-time values of each integer width (narrow types count within their
    width), of Python constants (Taichi's Python rules) and of an integer vector."""
    ti.init(arch=ti.cpu)
    values = [0, 1, 5, 255, 256, 2**31 - 1, -1, -(2**31), 123456789]
    n = len(values)
    x = ti.field(ti.i32, shape=n)
    out = ti.field(ti.i64, shape=(8, n))
    consts = ti.field(ti.i32, shape=4)
    x.from_numpy(np.array(values, dtype=np.int32))

    @ti.kernel
    def run():
        for i in range(n):
            out[0, i] = ti.math.popcnt(x[i])
            out[1, i] = ti.math.clz(x[i])
            out[2, i] = ti.math.popcnt(ti.cast(x[i], ti.u8)) * 100 + ti.math.clz(ti.u8(x[i]))
            out[3, i] = ti.math.popcnt(ti.cast(x[i], ti.u16)) * 100 + ti.math.clz(ti.u16(x[i]))
            wide = ti.cast(x[i], ti.i64) * 4099
            out[4, i] = ti.math.popcnt(wide) * 100 + ti.math.clz(wide)
            uwide = ti.cast(wide, ti.u64) << 7
            out[5, i] = ti.math.popcnt(uwide) * 100 + ti.math.clz(uwide)
            v = ti.math.popcnt(ti.math.ivec2(x[i], x[i] + 1)) + ti.math.clz(ti.math.ivec2(x[i], 7))
            out[6, i] = v[0] * 100 + v[1]
            out[7, i] = ti.lang.ops.popcnt(x[i] ^ 0x0F0F) * 100 + ti.lang.ops.clz(x[i] >> 3)
        consts[0] = ti.math.popcnt(1023)
        consts[1] = ti.math.clz(1)
        consts[2] = ti.math.clz(0)
        consts[3] = ti.math.popcnt(-6)

    run()
    return {"out": out.to_numpy(), "consts": consts.to_numpy()}


def case_math_names(ti):  # noqa: ANN001, ANN201
    """The scalar functions and GLSL-like helpers, each spelled `ti.math.<name>`, in a kernel."""
    ti.init(arch=ti.cpu)
    xs = np.array([-2.25, -0.6, 0.3, 0.75, 1.5, 3.2], dtype=np.float32)
    n = len(xs)
    x = ti.field(ti.f32, shape=n)
    out = ti.field(ti.f32, shape=(18, n))
    mats = ti.math.mat4.field(shape=(5, n))
    x.from_numpy(xs)
    m = ti.math

    @ti.kernel
    def run():
        for i in range(n):
            a = x[i]
            out[0, i] = m.sin(a) + m.cos(a) * 2 + m.tan(a * 0.5) * 4 + m.tanh(a) * 8
            out[1, i] = m.asin(a / 4) + m.acos(a / 4) * 2 + m.atan2(a, 0.7) * 4
            out[2, i] = m.exp(a) + m.log(ti.abs(a)) * 2
            out[3, i] = m.log2(ti.abs(a)) + m.sqrt(ti.abs(a)) * 2
            out[4, i] = m.floor(a) + m.ceil(a) * 10 + m.round(a) * 100
            out[5, i] = m.max(a, 0.5, -a) + m.min(a, 0.1, -a) * 10 + m.pow(ti.abs(a), 1.5) * 100
            out[6, i] = m.degrees(a) + m.radians(a) * 100
            out[7, i] = m.mod(a, 0.7) + m.fract(a) * 10 + m.sign(a) * 100
            out[8, i] = m.step(0.5, a) + m.mix(1.0, 3.0, a) * 10 + m.clamp(a, -1.0, 1.0) * 100
            out[9, i] = m.smoothstep(-1.0, 2.0, a)
            out[10, i] = ti.cast(m.isinf(a / (a - a)), ti.f32) + ti.cast(m.isnan(m.sqrt(a)), ti.f32)
            v = m.vec3(a, 1.0 - a, 0.5)
            w = m.vec3(0.2, a * a, -1.0)
            out[11, i] = m.length(v) + m.distance(v, w) * 10 + m.dot(v, w) * 100
            out[12, i] = m.normalize(v).x + m.cross(v, w).y * 10
            up = m.vec3(0.0, 1.0, 0.0)
            out[13, i] = m.reflect(v, m.normalize(w)).z + m.refract(m.normalize(v), up, 0.7).x
            out[14, i] = m.vdir(a).x + m.vdir(a).y * 10 + m.rotation2d(a)[0, 1] * 100
            out[15, i] = m.determinant(m.mat2([[a, 1.0], [2.0, 3.0]]))
            out[16, i] = m.inverse(m.mat3([[a, 1.0, 0.0], [0.0, 2.0, 1.0], [1.0, 0.0, 3.0]]))[0, 1]
            out[17, i] = m.eye(3)[1, 1] + m.ivec2(a, 2).x + m.uvec3(5).y * 10
            mats[0, i] = m.rot_by_axis(m.vec3(1.0, a, 0.5), a)
            mats[1, i] = m.rot_yaw_pitch_roll(a, 0.3, -a)
            mats[2, i] = m.rotation3d(a, 0.1, 0.2)
            mats[3, i] = m.translate(a, 1.0, 2.0) @ m.scale(2.0, a, 1.0)
            mats[4, i] = m.mat4(a)

    run()
    return {"out": out.to_numpy(), "mats": mats.to_numpy()}


case_math_names.rtol = 1e-5  # f32 transcendental functions: a few ulps between libms
case_math_names.atol = 1e-6  # results zero up to rounding (a rotation's near-zero entries)


def case_unsigned_vectors_follow_default_ip(ti):  # noqa: ANN001, ANN201
    """`uvec2/3/4` hold `default_up`, the unsigned type of `default_ip`: u64 under i64, in fields
    and in kernels alike (a u32 would wrap 2**40 and -1)."""
    ti.init(arch=ti.cpu, default_ip=ti.i64)
    u = ti.math.uvec3.field(shape=3)

    @ti.kernel
    def run():  # no annotations: this module's are strings, which Taichi cannot read
        u[0] = ti.math.uvec3(2**40, -1, 7)
        u[1] = ti.math.uvec3(ti.u64(2**63 - 1))
        u[2] = ti.math.uvec3(ti.math.uvec2(2**33 + 5), 1)

    run()
    return {"u": u.to_numpy()}


def _power_table(ti, base_type, exp_type):  # noqa: ANN001, ANN202
    """(-5..4) ** (0..11) three ways, in the given integer types."""
    a = ti.field(base_type, shape=10)
    e = ti.field(exp_type, shape=12)
    out = ti.field(base_type, shape=(3, 10, 12))
    a.from_numpy(np.arange(-5, 5, dtype=a.to_numpy().dtype))
    e.from_numpy(np.arange(0, 12, dtype=e.to_numpy().dtype))

    @ti.kernel
    def run():
        for i, j in ti.ndrange(10, 12):
            out[0, i, j] = a[i] ** e[j]
            out[1, i, j] = ti.pow(a[i], e[j])
            out[2, i, j] = ti.math.pow(a[i] + 1, e[j])

    run()
    return out.to_numpy()


def case_integer_pow_of_mixed_widths(ti):  # noqa: ANN001, ANN201
    """`a ** b`, `ti.pow` and `ti.math.pow` of integers whose widths differ (i32 ** i64 is an
    i64: the base widens, the exponent keeps its type), non-negative exponents."""
    ti.init(arch=ti.cpu)
    pairs = [("i32", "i64"), ("i64", "i32"), ("i64", "i64"), ("i8", "i32")]
    return {f"{b}_{e}": _power_table(ti, getattr(ti, b), getattr(ti, e)) for b, e in pairs}


def case_rounded_constants_are_floats(ti):  # noqa: ANN001, ANN201
    """`ti.floor(2.5)` of a Python number in a kernel is a float (NumPy's), so a variable it
    starts keeps later fractions; `ti.raw_mod(7, -3)` of two ints is an int."""
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=6)
    x = ti.field(ti.f32, shape=())
    x[None] = 7.5

    @ti.kernel
    def run():
        a = ti.floor(2.5)
        a = 1.75
        b = ti.round(2.5)
        b = 1.25
        c = ti.ceil(2.5)
        c = 0.5
        d = ti.raw_mod(7, -3)
        d = 0.125
        e = ti.raw_div(-7, 2)
        f = ti.round(x[None], ti.i32)  # an i32 variable: the fraction below is dropped
        f += 0.75
        out[0], out[1], out[2], out[3], out[4], out[5] = a, b, c, d, e, f

    run()
    return {"out": out.to_numpy()}


CASES = [
    case_rounded_constants_are_floats,
    case_integer_pow_of_mixed_widths,
    case_complex,
    case_complex_f64,
    case_bit_counts,
    case_math_names,
    case_unsigned_vectors_follow_default_ip,
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_kernels_match_taichi_on_the_cpu(case, taichi: ModuleType) -> None:  # noqa: ANN001
    compare(run_case(case, taichi), run_case(case, tistudio), case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_kernels_match_taichi_on_the_gpu(case, taichi: ModuleType) -> None:  # noqa: ANN001
    compare(run_case(case, taichi), run_case(case, OnGpu(tistudio)), case)
