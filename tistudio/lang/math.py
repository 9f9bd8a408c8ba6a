"""`ti.math`: helpers written in Taichi itself, as `ti.func`s (Taichi's `ti.math` does the same)."""

from __future__ import annotations

import math as _math

from tistudio.lang import ops
from tistudio.lang.kernel import func
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
