"""Python's `//` and `%` on every signed and unsigned width, at the edges (INT_MIN, -1, 0,
INT_MAX), on the CPU and the GPU: Python's results wrapped to the type, except where the
contract defines a trap away (docs/compiler-contract.md: `x // 0` is 0, `x % 0` is `x`,
`INT_MIN // -1` is 0). `INT_MIN % -1` is 0, as in Python and NumPy: it was INT_MIN, because `%`
expanded to `a - b * (a // b)` with the contract's quotient 0 (issue #34, item 6). Taichi 1.7.4
dies of SIGFPE there, so this is not a differential case against it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tistudio as ti

WIDTHS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]


def _edges(name: str) -> list[int]:
    info = np.iinfo(_numpy(name))
    small = [-7, -2, -1, 0, 1, 2, 7] if info.min < 0 else [0, 1, 2, 7]
    return sorted({info.min, info.min + 1, info.max - 1, info.max, *small})


def _numpy(name: str) -> type:
    return np.dtype(("int" if name[0] == "i" else "uint") + name[1:]).type


def _wrapped(value: int, name: str) -> int:
    """`value` wrapped to the type, as the kernel's stores wrap it."""
    bits = int(name[1:])
    value &= (1 << bits) - 1
    return value - (1 << bits) if name[0] == "i" and value >> (bits - 1) else value


def _expected(a: int, b: int, name: str) -> tuple[int, int]:
    bits = int(name[1:])
    if b == 0:
        return 0, a
    if name[0] == "i" and a == -(1 << (bits - 1)) and b == -1:
        return 0, 0
    return a // b, a % b


def _run(arch, name: str, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    q = np.zeros_like(a)
    r = np.zeros_like(a)

    @ti.kernel
    def divide(
        a: ti.types.ndarray(ndim=1),
        b: ti.types.ndarray(ndim=1),
        q: ti.types.ndarray(ndim=1),
        r: ti.types.ndarray(ndim=1),
    ):
        for i in range(a.shape[0]):
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    divide(a, b, q, r)
    ti.reset()
    return q, r


@pytest.mark.parametrize("name", WIDTHS)
@pytest.mark.parametrize("arch", ["cpu", "gpu"])
def test_floor_division_and_modulo_at_the_edges(arch: str, name: str) -> None:
    if arch == "gpu":
        from tistudio.backends.webgpu.device import default_device

        caps = default_device().caps
        if name[1:] == "64" and not caps.has("shader-int64"):
            pytest.skip("the adapter has no shader-int64")
    pairs = list(itertools.product(_edges(name), repeat=2))
    t = _numpy(name)
    a = np.array([p[0] for p in pairs], dtype=t)
    b = np.array([p[1] for p in pairs], dtype=t)
    q, r = _run(getattr(ti, arch), name, a, b)
    want = [_expected(x, y, name) for x, y in pairs]
    wrap = [(_wrapped(x, name), _wrapped(y, name)) for x, y in want]
    bad = [
        (pairs[k], (int(q[k]), int(r[k])), wrap[k])
        for k in range(len(pairs))
        if (int(q[k]), int(r[k])) != wrap[k]
    ]
    assert not bad, f"{len(bad)} of {len(pairs)} pairs differ, e.g. (a, b), got, want: {bad[:4]}"
