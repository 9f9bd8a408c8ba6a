"""`ti.math`: helpers written in Taichi itself, as `ti.func`s (Taichi's `ti.math` does the same)."""

from __future__ import annotations

import math as _math

from tistudio.lang import ops
from tistudio.lang.kernel import func
from tistudio.lang.matrix import matrix, vector
from tistudio.lang.ops import (  # noqa: F401 - re-exported as ti.math.*
    acos,
    asin,
    atan2,
    ceil,
    cos,
    exp,
    floor,
    log,
    round,
    sin,
    sqrt,
    tan,
    tanh,
)
from tistudio.lang.types import u32

vec2, vec3, vec4 = vector(2, float), vector(3, float), vector(4, float)
ivec2, ivec3, ivec4 = vector(2, int), vector(3, int), vector(4, int)
uvec2, uvec3, uvec4 = vector(2, u32), vector(3, u32), vector(4, u32)
mat2, mat3, mat4 = matrix(2, 2, float), matrix(3, 3, float), matrix(4, 4, float)

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan


@func
def clamp(x, xmin, xmax):  # noqa: ANN001, ANN201 - a ti.func, typed by its arguments
    return ops.min(ops.max(x, xmin), xmax)


@func
def sign(x):  # noqa: ANN001, ANN201
    return ops.select(x > 0, 1, 0) - ops.select(x < 0, 1, 0)


@func
def fract(x):  # noqa: ANN001, ANN201
    return x - ops.floor(x)


@func
def mix(x, y, a):  # noqa: ANN001, ANN201
    return x * (1.0 - a) + y * a


@func
def step(edge, x):  # noqa: ANN001, ANN201
    return ops.select(x < edge, 0.0, 1.0)


@func
def smoothstep(edge0, edge1, x):  # noqa: ANN001, ANN201
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


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
def normalize(x):  # noqa: ANN001, ANN201
    return x.normalized()


@func
def reflect(x, n):  # noqa: ANN001, ANN201
    return x - 2.0 * n.dot(x) * n


@func
def refract(x, n, eta):  # noqa: ANN001, ANN201
    dxn = x.dot(n)
    k = 1.0 - eta * eta * (1.0 - dxn * dxn)
    return ops.select(k < 0.0, 0.0, eta * x - (eta * dxn + ops.sqrt(ops.max(k, 0.0))) * n)


@func
def determinant(m):  # noqa: ANN001, ANN201
    return m.determinant()


@func
def inverse(m):  # noqa: ANN001, ANN201
    return m.inverse()


@func
def rotation2d(ang):  # noqa: ANN001, ANN201
    c, s = ops.cos(ang), ops.sin(ang)
    return mat2([[c, -s], [s, c]])
