"""Histogram of pseudo-random integers with ti.atomic_add, plus a sum and a maximum."""

import numpy as np
import taichi as ti

ti.init(arch=ti.cpu)

n = 100_000
num_bins = 64
max_value = 1000
values = ti.field(dtype=ti.i32, shape=n)
bins = ti.field(dtype=ti.i32, shape=num_bins)
total = ti.field(dtype=ti.i32, shape=())
largest = ti.field(dtype=ti.i32, shape=())


@ti.func
def park_miller(state):
    # The "minimal standard" generator, x -> 16807 x mod (2^31 - 1), by Schrage's method, so
    # that no intermediate value overflows 32 bits.
    hi = state // 127773
    lo = state % 127773
    state = 16807 * lo - 2836 * hi
    if state <= 0:
        state += 2147483647
    return state


@ti.kernel
def generate(seed: ti.i32):
    for i in values:
        state = seed + i
        for _ in range(3):
            state = park_miller(state)
        values[i] = state % max_value


@ti.kernel
def histogram():
    for b in bins:
        bins[b] = 0
    for i in values:
        ti.atomic_add(bins[values[i] * num_bins // max_value], 1)
        ti.atomic_add(total[None], values[i])
        ti.atomic_max(largest[None], values[i])


def main() -> dict[str, np.ndarray]:
    generate(12345)
    histogram()
    stats = np.array([total[None], largest[None]], dtype=np.int32)
    return {"values": values.to_numpy(), "bins": bins.to_numpy(), "stats": stats}


if __name__ == "__main__":
    print(main()["bins"])
