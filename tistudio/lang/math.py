"""`ti.math`: helpers written in Taichi itself, as `ti.func`s (Taichi's `ti.math` does the same)."""

from __future__ import annotations

import math as _math
from typing import Any

from tistudio.lang import ops
from tistudio.lang.complex_math import (  # noqa: F401 - re-exported as ti.math.*
    cconj,
    cdiv,
    cexp,
    cinv,
    clog,
    cmul,
    cpow,
    csqrt,
)
from tistudio.lang.kernel import func
from tistudio.lang.matrix import Matrix, matrix, vector
from tistudio.lang.ops import (  # noqa: F401 - re-exported as ti.math.*
    acos,
    asin,
    atan2,
    ceil,
    cos,
    exp,
    floor,
    log,
    max,
    min,
    pow,
    round,
    sin,
    sqrt,
    tan,
    tanh,
)
from tistudio.lang.types import f64, i8, i16, i32, i64, u8, u16, u32, u64

vec2, vec3, vec4 = vector(2, float), vector(3, float), vector(4, float)
ivec2, ivec3, ivec4 = vector(2, int), vector(3, int), vector(4, int)
mat2, mat3, mat4 = matrix(2, 2, float), matrix(3, 3, float), matrix(4, 4, float)

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan


_UNSIGNED_VECTORS = {"uvec2": 2, "uvec3": 3, "uvec4": 4}
_UNSIGNED_OF = {i8: u8, i16: u16, i32: u32, i64: u64}


def __getattr__(name: str) -> Any:
    """`uvec2/3/4` hold Taichi's `default_up`, the unsigned type of `default_ip` (u64 after
    `ti.init(default_ip=ti.i64)`), read when the name is looked up as Taichi's config is."""
    if name not in _UNSIGNED_VECTORS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tistudio.lang import impl

    program = impl.current.program  # before the first ti.init: Taichi's default, i32
    default_ip = program.config.default_ip if program is not None else i32
    return vector(_UNSIGNED_VECTORS[name], _UNSIGNED_OF[default_ip])


def __dir__() -> list[str]:
    return sorted([*globals(), *_UNSIGNED_VECTORS])


def _default_fp():  # noqa: ANN202 - called at compile time through ti.static
    from tistudio.lang import impl

    return impl.current_config().default_fp


@func
def clamp(x, xmin, xmax):  # noqa: ANN001, ANN201
    return ops.min(xmax, ops.max(xmin, x))


@func
def mix(x, y, a):  # noqa: ANN001, ANN201
    return x * (1.0 - a) + y * a


@func
def step(edge, x):  # noqa: ANN001, ANN201
    return ops.cast(x >= edge, float)


@func
def smoothstep(edge0, edge1, x):  # noqa: ANN001, ANN201
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@func
def sign(x):  # noqa: ANN001, ANN201
    return ops.cast(x >= 0.0, float) - ops.cast(x <= 0.0, float)


@func
def fract(x):  # noqa: ANN001, ANN201
    return x - ops.floor(x)


@func
def mod(x, y):  # noqa: ANN001, ANN201
    return x - y * ops.floor(x / y)


@func
def degrees(x):  # noqa: ANN001, ANN201
    return x * ops.static(180.0 / pi)


@func
def radians(x):  # noqa: ANN001, ANN201
    return x * ops.static(pi / 180.0)


@func
def log2(x):  # noqa: ANN001, ANN201
    return ops.log(x) / ops.static(_math.log(2.0))


@func
def dot(x, y):  # noqa: ANN001, ANN201
    return x.dot(y)


@func
def cross(x, y):  # noqa: ANN001, ANN201
    return x.cross(y)


@func
def length(x):  # noqa: ANN001, ANN201
    return x.norm()


@func
def distance(x, y):  # noqa: ANN001, ANN201
    return (x - y).norm()


@func
def normalize(v):  # noqa: ANN001, ANN201
    return v / v.norm()


@func
def reflect(x, n):  # noqa: ANN001, ANN201
    return x - 2.0 * x.dot(n) * n


@func
def refract(x, n, eta):  # noqa: ANN001, ANN201
    dxn = x.dot(n)
    result = x * 0.0
    k = 1.0 - eta * eta * (1.0 - dxn * dxn)
    if k >= 0.0:
        result = eta * x - (eta * dxn + ops.sqrt(k)) * n
    return result


@func
def determinant(m):  # noqa: ANN001, ANN201
    return m.determinant()


@func
def inverse(m):  # noqa: ANN001, ANN201
    return m.inverse()


@func
def eye(n: ops.template()):  # noqa: ANN201
    return Matrix.identity(float, n)


@func
def vdir(ang):  # noqa: ANN001, ANN201
    return vec2(ops.cos(ang), ops.sin(ang))


@func
def rotation2d(ang):  # noqa: ANN001, ANN201
    c, s = ops.cos(ang), ops.sin(ang)
    return mat2([[c, -s], [s, c]])


@func
def translate(dx, dy, dz):  # noqa: ANN001, ANN201
    return mat4(
        [[1.0, 0.0, 0.0, dx], [0.0, 1.0, 0.0, dy], [0.0, 0.0, 1.0, dz], [0.0, 0.0, 0.0, 1.0]]
    )


@func
def scale(sx, sy, sz):  # noqa: ANN001, ANN201
    return mat4(
        [[sx, 0.0, 0.0, 0.0], [0.0, sy, 0.0, 0.0], [0.0, 0.0, sz, 0.0], [0.0, 0.0, 0.0, 1.0]]
    )


@func
def rot_by_axis(axis, ang):  # noqa: ANN001, ANN201
    c, s = ops.cos(ang), ops.sin(ang)
    a = normalize(axis)
    t = (1 - c) * a
    return mat4(
        [
            [c + t[0] * a[0], t[0] * a[1] + s * a[2], t[0] * a[2] - s * a[1], 0.0],
            [t[1] * a[0] - s * a[2], c + t[1] * a[1], t[1] * a[2] + s * a[0], 0.0],
            [t[2] * a[0] + s * a[1], t[2] * a[1] - s * a[0], c + t[2] * a[2], 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@func
def rot_yaw_pitch_roll(yaw, pitch, roll):  # noqa: ANN001, ANN201
    ch, sh = ops.cos(yaw), ops.sin(yaw)
    cp, sp = ops.cos(pitch), ops.sin(pitch)
    cb, sb = ops.cos(roll), ops.sin(roll)
    return mat4(
        [
            [ch * cb + sh * sp * sb, sb * cp, -sh * cb + ch * sp * sb, 0.0],
            [-ch * sb + sh * sp * cb, cb * cp, sb * sh + ch * sp * cb, 0.0],
            [sh * cp, -sp, ch * cp, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@func
def rotation3d(ang_x, ang_y, ang_z):  # noqa: ANN001, ANN201
    return rot_yaw_pitch_roll(ang_z, ang_x, ang_y)


@func
def isinf(x):  # noqa: ANN001, ANN201
    fx = ops.cast(x, ops.static(_default_fp()))
    if ops.static(_default_fp() == f64):
        y = ops.bit_cast(fx, u64)
        return ops.cast(y >> 32, u32) & 2147483647 == 2146435072 and ops.cast(y, u32) == 0
    y = ops.bit_cast(fx, u32)
    return y & 2147483647 == 2139095040


@func
def isnan(x):  # noqa: ANN001, ANN201
    fx = ops.cast(x, ops.static(_default_fp()))
    if ops.static(_default_fp() == f64):
        y = ops.bit_cast(fx, u64)
        return (ops.cast(y >> 32, u32) & 2147483647) + (ops.cast(y, u32) != 0) > 2146435072
    y = ops.bit_cast(fx, u32)
    return y & 2147483647 > 2139095040


@func
def popcnt(x):  # noqa: ANN001, ANN201
    return ops.popcnt(x)


@func
def clz(x):  # noqa: ANN001, ANN201
    return ops.clz(x)
