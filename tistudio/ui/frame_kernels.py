"""The last step of a GUI frame, as tistudio kernels: an image in Taichi's layout to rows.

`ti.GUI.set_image` keeps the image as the program gave it, [x, y, 3] with y up; the browser
wants rows from the top. In NumPy that is a clamp, a scale, a cast and a transpose of 3-byte
pixels, four passes over the picture (about 10 ms at 1024x1024 on the project's 2-core machine,
the transpose alone 6-8 ms). One parallel kernel does all of it in one pass, with the same
bytes: float32 values are clamped to [0, 1], scaled by float32 255 and truncated, as Taichi's
GUI does. The kernels run only where the current program is on the CPU (on the GPU the image
would travel to the device and back); the caller falls back to NumPy otherwise.
"""

from __future__ import annotations

import numpy as np

import tistudio as ti
from tistudio.lang import impl


@ti.kernel
def _float_rows(src: ti.types.ndarray(dtype=ti.f32, ndim=3), out: ti.types.ndarray(ndim=3)):
    # in the source's order: contiguous reads, scattered writes of bytes (3.3 ms at 1024x1024
    # where the output's order, scattered float reads, took 9 ms)
    for x, y in ti.ndrange(src.shape[0], src.shape[1]):
        for k in ti.static(range(3)):
            v = ti.min(ti.max(src[x, y, k], 0.0), 1.0)
            out[src.shape[1] - 1 - y, x, k] = ti.cast(v * 255.0, ti.u8)


@ti.kernel
def _byte_rows(src: ti.types.ndarray(dtype=ti.u8, ndim=3), out: ti.types.ndarray(ndim=3)):
    for r, c in ti.ndrange(out.shape[0], out.shape[1]):
        for k in ti.static(range(3)):
            out[r, c, k] = src[c, out.shape[0] - 1 - r, k]


def on_cpu() -> bool:
    """True when a program exists and runs on the CPU (the kernels never start one)."""
    program = impl.current.program
    return program is not None and program.config.arch == "cpu"


def rows(source: np.ndarray, out: np.ndarray) -> bool:
    """Write `source` ([x, y, 3] float32 0..1 or uint8, y up) into `out` ((y, x, 3) uint8, row 0
    on top); False (nothing written) where no CPU program runs."""
    if not on_cpu():
        return False
    if source.dtype == np.uint8:
        _byte_rows(source, out)
    else:
        _float_rows(source, out)
    return True
