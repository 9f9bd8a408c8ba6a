"""N-body gravity with vector fields: every body sums the pull of all others (a serial inner
loop, so the sums are deterministic), then a symplectic Euler step; after Taichi's n-body
example, in 3-D with `ti.math.vec3`.
"""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)

n = 128
G = 1.0
softening = 0.05
dt = 1e-3
steps = 10

pos = ti.Vector.field(3, dtype=ti.f32, shape=n)
vel = ti.Vector.field(3, dtype=ti.f32, shape=n)
force = ti.Vector.field(3, dtype=ti.f32, shape=n)
mass = ti.field(dtype=ti.f32, shape=n)
potential = ti.field(dtype=ti.f32, shape=n)


@ti.func
def hash01(k):
    """A deterministic stand-in for ti.random(): a float in [0, 1) from an integer."""
    h = (k * 7919 + 104729) % 8192  # small enough never to overflow i32
    return h / 8192.0


@ti.kernel
def initialize():
    for i in range(n):
        # Fibonacci sphere of radius 0.5 to 1.0, with a tangential velocity (a rotating cloud).
        z = 1.0 - 2.0 * (i + 0.5) / n
        r = ti.sqrt(1.0 - z * z)
        phi = i * 2.399963
        radius = 0.5 + 0.5 * hash01(i)
        p = ti.math.vec3(r * ti.cos(phi), r * ti.sin(phi), z) * radius
        pos[i] = p
        vel[i] = ti.math.vec3(-p.y, p.x, 0.0) * 0.8
        mass[i] = (1.0 + hash01(i + n)) / n


@ti.kernel
def compute_force():
    for i in range(n):
        f = ti.math.vec3(0.0)
        u = 0.0
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r2 = d.norm_sqr() + softening * softening
                inv_r = 1.0 / ti.sqrt(r2)
                f += G * mass[i] * mass[j] * inv_r * inv_r * inv_r * d
                u -= G * mass[i] * mass[j] * inv_r
        force[i] = f
        potential[i] = u


@ti.kernel
def update():
    for i in range(n):
        vel[i] += dt * force[i] / mass[i]
        pos[i] += dt * vel[i]


def main() -> dict[str, np.ndarray]:
    initialize()
    for _ in range(steps):
        compute_force()
        update()
    compute_force()
    return {
        "pos": pos.to_numpy(),
        "vel": vel.to_numpy(),
        "force": force.to_numpy(),
        "potential": potential.to_numpy(),
    }


if __name__ == "__main__":
    print({name: float(np.abs(array).mean()) for name, array in main().items()})
