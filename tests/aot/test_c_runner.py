"""A CPU module's object code linked into a C program by the system C compiler, and run.

The header comes from `python -m tistudio.aot cheader`; the C program allocates the field
memory, calls the kernels (one returns a value, one takes an ndarray, one calls libm through
the vector library) and prints the results, which must match NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tests.aot import kernels
from tests.aot.c_program import run_c_program


@ti.kernel
def wave(arr: ti.types.ndarray(ti.f32, ndim=1), k: ti.f32):
    for i in range(arr.shape[0]):
        arr[i] = ti.sin(k * i) + ti.exp(-0.01 * i)


MAIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include "module.h"

int main(void) {
    uint8_t *tree0 = aligned_alloc(64, 192);
    memset(tree0, 0, 192);
    uint8_t *trees[TISTUDIO_NUM_TREES] = {tree0};
    tistudio_init(trees, 2.0f);
    tistudio_bump_f_x_(trees, 3);
    printf("total %.1f\n", tistudio_total(trees));
    float *x = (float *)(tree0 + TISTUDIO_FIELD_X_OFFSET);
    printf("x[1][2] %.1f\n", x[(1 * TISTUDIO_FIELD_X_STRIDE0 + 2 * TISTUDIO_FIELD_X_STRIDE1) / 4]);
    float arr[1000];
    tistudio_fill(trees, arr, 5, 1.5f);
    printf("fill %.1f %.1f\n", arr[0], arr[4]);
    tistudio_wave(trees, arr, 1000, 0.25f);
    for (int i = 0; i < 1000; i += 111) printf("wave %d %.6f\n", i, arr[i]);
    free(tree0);
    return 0;
}
"""


@pytest.mark.parametrize("approx_math", [False, True])
def test_c_program_links_and_runs_the_object_code(tmp_path, approx_math):
    """By default the code calls libm's `sinf`; with `approx_math` libmvec's variants, through
    scalar functions of its own (the header defines no functions of libm's)."""
    module, *_ = kernels.build(ti.cpu, approx_math=approx_math)
    module.add_kernel(wave)
    module.save(tmp_path)
    stdout = run_c_program(tmp_path, MAIN_C)
    assert "sinf" not in (tmp_path / "module.h").read_text()
    lines = stdout.splitlines()
    x = kernels.expected_x(2.0) + 3
    assert lines[:3] == [f"total {x.sum():.1f}", f"x[1][2] {x[1, 2]:.1f}", "fill 1.5 5.5"]
    i = np.arange(0, 1000, 111)
    want = np.sin(np.float32(0.25) * i) + np.exp(-0.01 * i)
    got = np.array([float(line.split()[2]) for line in lines[3:]])
    assert [int(line.split()[1]) for line in lines[3:]] == i.tolist()
    np.testing.assert_allclose(got, want, atol=2e-6)
