"""Conway's game of life on a 64x64 torus, 20 steps from a seeded pattern plus a glider."""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)

n = 64
steps = 20
alive = ti.field(dtype=ti.i32, shape=(n, n))
next_alive = ti.field(dtype=ti.i32, shape=(n, n))
population = ti.field(dtype=ti.i32, shape=())


@ti.func
def count_neighbours(i, j):
    count = 0
    for di in ti.static(range(-1, 2)):
        for dj in ti.static(range(-1, 2)):
            if ti.static(di != 0 or dj != 0):
                count += alive[(i + di + n) % n, (j + dj + n) % n]
    return count


@ti.kernel
def seed():
    for i, j in alive:
        alive[i, j] = 0
        if (i * 37 + j * 91 + i * j) % 7 < 2 and i >= n // 2:
            alive[i, j] = 1


@ti.kernel
def step():
    for i, j in alive:
        neighbours = count_neighbours(i, j)
        cell = alive[i, j]
        if cell == 1 and (neighbours < 2 or neighbours > 3):
            cell = 0
        elif cell == 0 and neighbours == 3:
            cell = 1
        next_alive[i, j] = cell


@ti.kernel
def commit() -> ti.i32:
    population[None] = 0
    for i, j in alive:
        alive[i, j] = next_alive[i, j]
        population[None] += next_alive[i, j]
    return population[None]


def main() -> dict[str, np.ndarray]:
    seed()
    for i, j in [(1, 2), (2, 3), (3, 1), (3, 2), (3, 3)]:  # a glider, written from Python
        alive[i, j] = 1
    counts = []
    for _ in range(steps):
        step()
        counts.append(commit())
    return {"board": alive.to_numpy(), "population": np.array(counts, dtype=np.int32)}


if __name__ == "__main__":
    print(main()["population"])
