"""Python-scope access to quant fields, through small kernels (Taichi does the same).

Reading `x[i]` of a quant field means shifting bits out of a word and converting them; writing
means encoding and merging. The compiler already spells both out (`passes/lower_quant.py`), on
every back end, so Python scope launches a kernel rather than keeping a second encoder in
NumPy that could drift from the first: one kernel per field shape and use, cached like any
other. Values travel as i64 (quant ints) or f64 (fixed and float) and are cast on store, as
in a kernel (`x[None] = 10.3` stores 10 in a quant int).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tistudio.ir.quant import QuantInt
from tistudio.lang.kernel import kernel
from tistudio.lang.ops import cast, grouped, static
from tistudio.lang.types import ndarray, template


@kernel
def _read(f: template(), index: ndarray(), out: ndarray()):  # noqa: ANN201 - a kernel
    if static(len(f.shape) == 0):
        out[0] = f[None]
    if static(len(f.shape) == 1):
        out[0] = f[index[0]]
    if static(len(f.shape) == 2):
        out[0] = f[index[0], index[1]]
    if static(len(f.shape) == 3):
        out[0] = f[index[0], index[1], index[2]]
    if static(len(f.shape) == 4):
        out[0] = f[index[0], index[1], index[2], index[3]]


@kernel
def _write(f: template(), index: ndarray(), value: ndarray()):  # noqa: ANN201 - a kernel
    if static(len(f.shape) == 0):
        f[None] = cast(value[0], static(f.dtype))
    if static(len(f.shape) == 1):
        f[index[0]] = cast(value[0], static(f.dtype))
    if static(len(f.shape) == 2):
        f[index[0], index[1]] = cast(value[0], static(f.dtype))
    if static(len(f.shape) == 3):
        f[index[0], index[1], index[2]] = cast(value[0], static(f.dtype))
    if static(len(f.shape) == 4):
        f[index[0], index[1], index[2], index[3]] = cast(value[0], static(f.dtype))


@kernel
def _to_array(f: template(), out: ndarray()):  # noqa: ANN201 - a kernel
    for I in grouped(f):  # noqa: E741 - Taichi's spelling of a grouped index
        out[I] = f[I]


@kernel
def _from_array(f: template(), arr: ndarray()):  # noqa: ANN201 - a kernel
    for I in grouped(f):  # noqa: E741
        f[I] = cast(arr[I], static(f.dtype))


@kernel
def _fill(f: template(), value: ndarray()):  # noqa: ANN201 - a kernel
    for I in grouped(f):  # noqa: E741
        f[I] = cast(value[0], static(f.dtype))


def _carrier(field: Any) -> type:
    """The NumPy type values travel in: i64 for quant ints, f64 for the others."""
    return np.int64 if isinstance(field.quant, QuantInt) else np.float64


def _index(key: tuple) -> np.ndarray:
    return np.array(key or (0,), dtype=np.int32)


def read(field: Any, key: tuple) -> Any:
    out = np.zeros(1, dtype=_carrier(field))
    _read(field, _index(key), out)
    return out[0].item()


def write(field: Any, key: tuple, value: Any) -> None:
    _write(field, _index(key), np.array([value], dtype=_carrier(field)))


def to_numpy(field: Any) -> np.ndarray:
    out = np.zeros(field.shape, dtype=_carrier(field))
    _to_array(field, out)
    return out.astype(np.dtype(field.dtype.numpy_name))


def from_numpy(field: Any, arr: Any) -> None:
    arr = np.asarray(arr)
    if tuple(arr.shape) != tuple(field.shape):
        raise ValueError(f"from_numpy: array shape {arr.shape} != field shape {field.shape}")
    _from_array(field, np.ascontiguousarray(arr, dtype=_carrier(field)))


def fill(field: Any, value: Any) -> None:
    _fill(field, np.array([value], dtype=_carrier(field)))
