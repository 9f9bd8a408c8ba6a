"""A 2-D material point method (MPM) step after Taichi's 88-line MPM example (mpm88.py): two
blocks of fluid-like material collide and fall onto the floor of a box; particle-to-grid
(P2G), grid update and grid-to-particle (G2P) with APIC, written with `ti.Vector` and
`ti.Matrix` fields, `@`, `outer_product`, `trace` and a Python list of vectors indexed with
`ti.static`.

Changes from the original, all for reproducible output: a small grid and particle count, a
fixed lattice instead of `ti.random()` for the initial positions, a serialized P2G loop so
that the floating-point scatter sums are added in one fixed order, and f64 (`default_fp`):
the colliding blocks amplify last-bit differences, and in f32 merely switching Taichi's fast
math off moves the APIC matrices C by 50 times the comparison tolerance after 100 substeps;
in f64 the same switch moves nothing by more than 1e-7 of it.
"""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu, default_fp=ti.f64)

n_grid = 32
side = 24  # particles per side of the initial square block
n_particles = side * side
dx = 1 / n_grid
inv_dx = float(n_grid)
dt = 2e-4
substeps = 100

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400

x = ti.Vector.field(2, dtype=float, shape=n_particles)
v = ti.Vector.field(2, dtype=float, shape=n_particles)
C = ti.Matrix.field(2, 2, dtype=float, shape=n_particles)
J = ti.field(dtype=float, shape=n_particles)
grid_v = ti.Vector.field(2, dtype=float, shape=(n_grid, n_grid))
grid_m = ti.field(dtype=float, shape=(n_grid, n_grid))


@ti.kernel
def substep():  # noqa: C901 - one kernel for the whole step, as in mpm88.py
    for i, j in grid_m:
        grid_v[i, j] = [0, 0]
        grid_m[i, j] = 0
    ti.loop_config(serialize=True)
    for p in x:  # P2G
        Xp = x[p] * inv_dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (J[p] - 1) * inv_dx * inv_dx
        affine = ti.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:  # grid update
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * gravity
        if i < bound and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - bound and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < bound and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - bound and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0
    for p in x:  # G2P
        Xp = x[p] * inv_dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector.zero(float, 2)
        new_C = ti.Matrix.zero(float, 2, 2)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) * inv_dx * inv_dx
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C


@ti.kernel
def init():
    for p in range(n_particles):
        # Two blocks side by side, sliding into each other and down onto the floor.
        k = p % (n_particles // 2)
        a = k // (side // 2)
        b = k % (side // 2)
        jitter = ti.Vector([(p * 37) % 11, (p * 53) % 13]) / 13.0 - 0.4
        left = p < n_particles // 2
        corner = ti.Vector([0.2, 0.12]) if left else ti.Vector([0.52, 0.2])
        x[p] = corner + (ti.Vector([b, a]) + 0.5 + 0.3 * jitter) / side * 0.5
        v[p] = ti.Vector([1.5, -1.0]) if left else ti.Vector([-1.5, -2.0])
        J[p] = 1
        C[p] = ti.Matrix.zero(float, 2, 2)


def main() -> dict[str, np.ndarray]:
    init()
    for _ in range(substeps):
        substep()
    return {
        "x": x.to_numpy(),
        "v": v.to_numpy(),
        "C": C.to_numpy(),
        "J": J.to_numpy(),
        "grid_m": grid_m.to_numpy(),
        "grid_v": grid_v.to_numpy(),
    }


if __name__ == "__main__":
    print({name: float(np.abs(array).mean()) for name, array in main().items()})
