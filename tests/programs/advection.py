"""Semi-Lagrangian advection of a colour field (`ti.math.vec3` per cell) through a swirling
velocity field (`ti.math.vec2` per cell), after the advection step of Taichi's stable-fluids
example: trace each cell centre back along the velocity (second-order Runge-Kutta), sample
the old field bilinearly there, and swap the two fields (ping-pong via `ti.template()`).
"""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)

n = 64
dt = 0.03
steps = 20

vel = ti.Vector.field(2, dtype=ti.f32, shape=(n, n))
dye = ti.Vector.field(3, dtype=ti.f32, shape=(n, n))
dye_new = ti.Vector.field(3, dtype=ti.f32, shape=(n, n))


@ti.func
def sample(qf: ti.template(), u, v):
    """The value of field qf at cell (u, v), with indices clamped to the grid."""
    i = ti.max(0, ti.min(n - 1, int(u)))
    j = ti.max(0, ti.min(n - 1, int(v)))
    return qf[i, j]


@ti.func
def lerp(vl, vr, frac):
    return vl + frac * (vr - vl)


@ti.func
def bilerp(vf: ti.template(), p):
    """Bilinear interpolation of vf at p, in cell units with cell centres at (i + 0.5, j + 0.5)."""
    u, v = p
    s, t = u - 0.5, v - 0.5
    iu, iv = ti.floor(s), ti.floor(t)
    fu, fv = s - iu, t - iv
    a = sample(vf, iu, iv)
    b = sample(vf, iu + 1, iv)
    c = sample(vf, iu, iv + 1)
    d = sample(vf, iu + 1, iv + 1)
    return lerp(lerp(a, b, fu), lerp(c, d, fu), fv)


@ti.func
def backtrace(vf: ti.template(), p, dt_: ti.template()):
    """Second-order Runge-Kutta: a half step to the midpoint, then the full step from there."""
    v1 = bilerp(vf, p)
    p1 = p - 0.5 * dt_ * v1
    v2 = bilerp(vf, p1)
    return p - dt_ * v2


@ti.kernel
def init():
    for i, j in vel:
        p = (ti.Vector([i, j]) + 0.5) / n - 0.5  # in [-0.5, 0.5]^2
        swirl = ti.Vector([-p.y, p.x]) * (1.0 - 2.0 * p.norm())
        vel[i, j] = swirl * n * 2.0  # cells per unit time
        checker = (i // 8 + j // 8) % 2
        dye[i, j] = ti.Vector([1.0 + checker, 1.0 + i / n, 2.0 - j / n])  # all >= 1


@ti.kernel
def advect(vf: ti.template(), qf: ti.template(), new_qf: ti.template()):
    for i, j in vf:
        p = ti.Vector([i, j]) + 0.5
        p = backtrace(vf, p, dt)
        new_qf[i, j] = bilerp(qf, p)


def main() -> dict[str, np.ndarray]:
    init()
    src, dst = dye, dye_new
    for _ in range(steps):
        advect(vel, src, dst)
        src, dst = dst, src
    return {"dye": src.to_numpy(), "vel": vel.to_numpy()}


if __name__ == "__main__":
    print({name: float(np.abs(array).mean()) for name, array in main().items()})
