"""Julia set fractal with scalar complex arithmetic, after Taichi's classic fractal example."""

import math

import numpy as np
import taichi as ti

# fast_math=False: the escape-time iteration is chaotic near the set's edge, and Taichi's default
# fast math fuses a*b + c into one FMA, which moves the last bit and so a few pixels. Without it
# every operation is plain IEEE float32, and any correct compiler produces the same bits.
ti.init(arch=ti.cpu, fast_math=False)

n = 256
pixels = ti.field(dtype=ti.f32, shape=(n * 2, n))
accum = ti.field(dtype=ti.f32, shape=(n * 2, n))


@ti.func
def complex_sqr(re, im):
    return re * re - im * im, 2.0 * re * im


@ti.kernel
def paint(c_re: ti.f32, c_im: ti.f32):
    for i, j in pixels:  # parallel over all pixels
        z_re = (i / n - 1) * 2
        z_im = (j / n - 0.5) * 2
        iterations = 0
        while z_re * z_re + z_im * z_im < 400 and iterations < 50:
            sq_re, sq_im = complex_sqr(z_re, z_im)
            z_re = sq_re + c_re
            z_im = sq_im + c_im
            iterations += 1
        pixels[i, j] = 1 - iterations * 0.02


@ti.kernel
def accumulate():
    for i, j in accum:
        accum[i, j] += pixels[i, j]


def main() -> dict[str, np.ndarray]:
    for frame in range(8):
        t = frame * 0.03
        paint(-0.8, math.cos(t) * 0.2)
        accumulate()
    return {"pixels": pixels.to_numpy(), "accum": accum.to_numpy()}


if __name__ == "__main__":
    print({name: float(array.mean()) for name, array in main().items()})
