"""Jacobi iteration for Laplace's equation on a 128x128 grid: 50 sweeps between two fields."""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)

n = 128
iterations = 50
u = ti.field(dtype=ti.f32, shape=(n, n))
u_new = ti.field(dtype=ti.f32, shape=(n, n))
change = ti.field(dtype=ti.f32, shape=())


@ti.kernel
def set_boundary():
    for i, j in u:
        value = 0.0
        if i == 0:
            value = 1.0  # hot top edge
        elif j == n - 1:
            value = ti.sin(3.14159265 * i / (n - 1))  # warm, curved right edge
        u[i, j] = value
        u_new[i, j] = value


@ti.kernel
def sweep(src: ti.template(), dst: ti.template()):
    for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
        dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])
        ti.atomic_max(change[None], ti.abs(dst[i, j] - src[i, j]))


def main() -> dict[str, np.ndarray]:
    set_boundary()
    changes = []
    for k in range(iterations):
        change[None] = 0.0
        if k % 2 == 0:
            sweep(u, u_new)
        else:
            sweep(u_new, u)
        changes.append(change[None])
    final = u if iterations % 2 == 0 else u_new
    return {"u": final.to_numpy(), "change": np.array(changes, dtype=np.float32)}


if __name__ == "__main__":
    print(main()["change"][-5:])
