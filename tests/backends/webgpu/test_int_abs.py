"""`ti.abs` of signed integers on the GPU keeps the most negative value negative, as on the CPU
(two's complement: abs(-2**31) is -2**31), also for what is computed from it.

NVIDIA's Vulkan driver (580, H200) took WGSL's integer `abs` as never negative and computed
`abs(x) % 7` of i32 min as an unsigned remainder (2, where the CPU gives 5); the shaders now
negate with a select (`wgsl._integer_unary`). Found by the conformance run's float campaign
(`conformance/findings-2026-11-27/fixed_i32_min_abs_mod.py`); the values run here on lavapipe
and in `benchmarks/gpu/conformance.sh` on NVIDIA, and the shader test holds everywhere.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti

EDGES = {
    "i8": [-128, -127, -7, -1, 0, 1, 7, 127],
    "i16": [-32768, -7, -1, 0, 1, 7, 32767],
    "i32": [-(2**31), -(2**31) + 1, -7, -1, 0, 1, 7, 2**31 - 1],
}


def _abs_and_mod(arch, dtype_name: str) -> tuple[np.ndarray, str]:
    ti.init(arch=arch, offline_cache=False, fallback_to_cpu=False)
    try:
        dtype = getattr(ti, dtype_name)
        values = ti.field(dtype, shape=len(EDGES[dtype_name]))
        values.from_numpy(np.array(EDGES[dtype_name], dtype=dtype_name.replace("i", "int")))
        out = ti.field(ti.i32, shape=(len(EDGES[dtype_name]), 3))

        @ti.kernel
        def absolute():
            for i in values:
                a = ti.abs(values[i])
                out[i, 0] = ti.cast(a, ti.i32)
                out[i, 1] = ti.cast(a % 7, ti.i32)
                out[i, 2] = ti.cast(a < 0, ti.i32)

        absolute()
        shader = absolute.compile_report().wgsl if arch is not ti.cpu else ""
        return out.to_numpy(), shader
    finally:
        ti.reset()


@pytest.mark.parametrize("dtype_name", sorted(EDGES))
def test_abs_of_the_most_negative_value_matches_the_cpu(dtype_name: str) -> None:
    want, _ = _abs_and_mod(ti.cpu, dtype_name)
    got, shader = _abs_and_mod(ti.gpu, dtype_name)
    assert want[0].tolist()[2] == 1  # the CPU: abs(min) is still negative
    np.testing.assert_array_equal(got, want)
    code = [line.split("//")[0] for line in shader.splitlines()]  # not the source comments
    assert not [line for line in code if re.search(r"(?<![.\w])abs\(", line)], shader
