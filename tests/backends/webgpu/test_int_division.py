"""Signed integer division on the GPU: `//`, `%`, `ti.raw_div` and `ti.raw_mod` give the CPU's
results for every sign and edge case, and no signed division reaches the driver.

NVIDIA's Vulkan driver (580, H100 and H200) computed WGSL's signed `%` as if its operands were
unsigned (`ti.raw_mod(-1, 3)` gave 0, `-1 // 3` gave 0), where lavapipe is right; the shaders now
divide magnitudes as unsigned numbers (`wgsl._signed_division`). The edge cases run here on
lavapipe and in `benchmarks/gpu/conformance.sh` on NVIDIA; the second test holds everywhere.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti

EDGES = {
    "i8": (-128, -127, -7, -2, -1, 0, 1, 2, 3, 7, 127),
    "i16": (-32768, -7, -3, -1, 0, 1, 3, 7, 32767),
    "i32": (-(2**31), -2147483639, -7, -6, -2, -1, 0, 1, 2, 3, 7, 2**31 - 1),
    "i64": (-(2**63), -(2**40) - 3, -7, -1, 0, 1, 3, 7, 2**40 + 5, 2**63 - 1),
}


def _divide_all(arch, dtype_name: str) -> tuple[np.ndarray, list[str]]:
    """Every pair of EDGES[dtype] through the four operators on `arch`, and the WGSL."""
    ti.init(arch=arch, offline_cache=False, fallback_to_cpu=False)
    dtype = getattr(ti, dtype_name)
    values = np.array(EDGES[dtype_name], dtype=dtype_name.replace("i", "int"))
    n = len(values)
    a = ti.field(dtype, shape=n)
    out = ti.field(dtype, shape=(n, n, 4))
    a.from_numpy(values)

    @ti.kernel
    def divide():
        for i, j in ti.ndrange(n, n):
            x, y = a[i], a[j]
            out[i, j, 0] = x // y
            out[i, j, 1] = x % y
            out[i, j, 2] = ti.raw_div(x, y)
            out[i, j, 3] = ti.raw_mod(x, y)

    report = divide.compile_report()
    divide()
    return out.to_numpy(), getattr(report, "wgsl", "") if arch != ti.cpu else ""


def _needs_int64(dtype_name: str) -> None:
    from tistudio.backends.webgpu.device import default_device

    if dtype_name == "i64" and not default_device().caps.has("shader-int64"):
        pytest.skip("the adapter has no shader-int64")


@pytest.mark.parametrize("dtype_name", sorted(EDGES))
def test_signed_division_matches_the_cpu(dtype_name: str) -> None:
    _needs_int64(dtype_name)
    expected, _ = _divide_all(ti.cpu, dtype_name)
    actual, _ = _divide_all(ti.gpu, dtype_name)
    values = EDGES[dtype_name]
    wrong = [
        f"{op}({values[i]}, {values[j]}) = {actual[i, j, k]}, CPU {expected[i, j, k]}"
        for i, j, k in zip(*np.nonzero(actual != expected), strict=True)
        for op in (("//", "%", "raw_div", "raw_mod")[k],)
    ]
    assert not wrong, "\n".join(wrong[:20])
    i, j = values.index(-1), values.index(3)
    assert list(actual[i, j]) == [-1, 2, 0, -1]  # Python's floor and C's truncation


@pytest.mark.parametrize("dtype_name", ["i8", "i32", "i64"])
def test_no_signed_division_reaches_the_driver(dtype_name: str) -> None:
    """Every `/` and `%` in the shader divides unsigned magnitudes: in the helper functions,
    whose operands are `ua` and a `select` of `ub`; in `main` only a magnitude by an unsigned
    literal (`_by_positive_constant`: the ndrange's `% n` and `// n`)."""
    _needs_int64(dtype_name)
    _, wgsl = _divide_all(ti.gpu, dtype_name)
    code = re.sub(r"//[^\n]*", "", wgsl)  # comments quote the user's `//`
    main = code[code.index("fn main(") :]
    magnitude = r"\(select\((u32|u64)\((\w+)\), 0l?u - \1\(\2\), \2 < 0l?i\) [/%] \d+l?u\)"
    rest = re.sub(magnitude, "", main)
    assert main != rest and not re.search(r"[^/*]\s[/%]\s", rest), main
    divisions = re.findall(r"(\w+) ([/%]) select\((\w+),", code)
    assert divisions and all(d[0] == "ua" and d[2] == "ub" for d in divisions), divisions


DIVISORS = (1, 2, 3, 7, 1024, 8192, 100003)


def _divide_by_literals(arch, dtype_name: str) -> tuple[np.ndarray, str]:
    """Every EDGES[dtype] value through the four operators by each of DIVISORS written as a
    literal (those that fit the type), on `arch`, and the WGSL."""
    ti.init(arch=arch, offline_cache=False, fallback_to_cpu=False)
    dtype = getattr(ti, dtype_name)
    values = np.array(EDGES[dtype_name], dtype=dtype_name.replace("i", "int"))
    limit = np.iinfo(values.dtype).max
    divisors = [d for d in DIVISORS if d <= limit]
    n = len(values)
    a = ti.field(dtype, shape=n)
    out = ti.field(dtype, shape=(n, len(divisors), 4))
    a.from_numpy(values)

    @ti.kernel
    def divide():
        for i in range(n):
            x = a[i]
            for k in ti.static(range(len(divisors))):
                out[i, k, 0] = x // divisors[k]
                out[i, k, 1] = x % divisors[k]
                out[i, k, 2] = ti.raw_div(x, divisors[k])
                out[i, k, 3] = ti.raw_mod(x, divisors[k])

    report = divide.compile_report()
    divide()
    return out.to_numpy(), getattr(report, "wgsl", "") if arch != ti.cpu else ""


@pytest.mark.parametrize("dtype_name", sorted(EDGES))
def test_division_by_a_positive_literal_matches_the_cpu(dtype_name: str) -> None:
    """A positive literal divisor is divided inline (`wgsl._by_positive_constant`), the
    constant visible to the driver (a shift, a mask, a multiplication): the CPU's results for
    every edge value, and no helper call left for them."""
    _needs_int64(dtype_name)
    expected, _ = _divide_by_literals(ti.cpu, dtype_name)
    actual, wgsl = _divide_by_literals(ti.gpu, dtype_name)
    np.testing.assert_array_equal(actual, expected)
    main = re.sub(r"//[^\n]*", "", wgsl)
    main = main[main.index("fn main(") :]
    assert f"ti_div_{dtype_name}(" not in main and f"ti_mod_{dtype_name}(" not in main, main
    assert re.search(r"[/%] 3l?u\)", main), main  # the constant, unsigned, where drivers see it
