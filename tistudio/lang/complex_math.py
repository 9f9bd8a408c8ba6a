"""Complex numbers as `vec2`s (`ti.math.cmul`, `cdiv`, `cpow`, ...), as Taichi's `ti.math` has them.

Taichi has no complex type: a complex number `x + iy` is the 2-vector `(x, y)` of the default
float type, and these helpers are `ti.func`s over such vectors, so they are called from kernels
and other `ti.func`s only. Logarithms and powers take the principal branch (argument in
(-pi, pi], from `atan2`); the square root and the power of zero are zero.
"""

from __future__ import annotations

from tistudio.lang import ops
from tistudio.lang.kernel import func
from tistudio.lang.matrix import vector

_complex = vector(2, float)  # the default float type when a kernel compiles: ti.math.vec2


@func
def cmul(z1, z2):  # noqa: ANN001, ANN201 - a ti.func
    """`z1 * z2`: (a + ib)(c + id) = (ac - bd) + i(ad + bc)."""
    a, b = z1[0], z1[1]
    c, d = z2[0], z2[1]
    return _complex(a * c - b * d, a * d + c * b)


@func
def cconj(z):  # noqa: ANN001, ANN201 - a ti.func
    """The conjugate `x - iy` of `z = x + iy`."""
    return _complex(z[0], -z[1])


@func
def cdiv(z1, z2):  # noqa: ANN001, ANN201 - a ti.func
    """`z1 / z2`: z1 times the conjugate of z2, over |z2|^2."""
    a, b = z1[0], z1[1]
    c, d = z2[0], z2[1]
    return _complex(a * c + b * d, b * c - a * d) / z2.dot(z2)


@func
def cinv(z):  # noqa: ANN001, ANN201 - a ti.func
    """`1 / z`: the conjugate over |z|^2."""
    return cconj(z) / z.dot(z)


@func
def csqrt(z):  # noqa: ANN001, ANN201 - a ti.func
    """The square root with argument in (-pi/2, pi/2]: sqrt|z| at half the argument of z."""
    root = _complex(0.0)
    if any(z):
        half = ops.atan2(z[1], z[0]) / 2.0
        root = ops.sqrt(z.norm()) * _complex(ops.cos(half), ops.sin(half))
    return root


@func
def cpow(z, n):  # noqa: ANN001, ANN201 - a ti.func
    """`z ** n` for a real n: |z|^n at n times the argument of z (zero for z = 0)."""
    power = _complex(0.0)
    if any(z):
        angle = ops.atan2(z[1], z[0]) * n
        power = ops.pow(z.dot(z), n / 2.0) * _complex(ops.cos(angle), ops.sin(angle))
    return power


@func
def cexp(z):  # noqa: ANN001, ANN201 - a ti.func
    """`e ** z` = e^x (cos y + i sin y)."""
    magnitude = ops.exp(z[0])
    return _complex(magnitude * ops.cos(z[1]), magnitude * ops.sin(z[1]))


@func
def clog(z):  # noqa: ANN001, ANN201 - a ti.func
    """The principal logarithm: log|z| + i arg(z), with log|z| taken as log(|z|^2) / 2."""
    return _complex(ops.log(z.dot(z)) / 2.0, ops.atan2(z[1], z[0]))


__all__ = ["cconj", "cdiv", "cexp", "cinv", "clog", "cmul", "cpow", "csqrt"]
