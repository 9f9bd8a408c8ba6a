"""Turning field values into what the field viewer draws: plain NumPy, no widgets.

A frame is a dict of trait values. Small fields travel as float32 so hover shows exact values;
big ones (a 512x512 field is 1 MiB as float32) are quantised to one byte per element, which is
4x less traffic and still 250 colour levels. NaN and +-Inf get codes of their own in both
encodings (float32 keeps them as they are), so the browser can paint them in a colour no colour
map uses, and the counts travel with the frame.
"""

from __future__ import annotations

import math

import numpy as np

LEVELS = 250  # u8 codes 0..250 are values from vmin to vmax
NAN_CODE, POS_INF_CODE, NEG_INF_CODE = 251, 252, 253
QUANTISE_ABOVE = 65536  # elements; smaller frames travel as exact float32
ARROW_GRID = 24  # arrows per side at most


def stats(values: np.ndarray) -> dict[str, float | int]:
    """min, max, mean over finite values, and how many elements are NaN or infinite."""
    finite = np.isfinite(values)
    nan_count = int(np.isnan(values).sum())
    inf_count = int(values.size - finite.sum()) - nan_count
    if finite.all():
        good = values
    else:
        good = values[finite]
    if good.size == 0:
        return {"vmin": 0.0, "vmax": 0.0, "mean": math.nan, "nan": nan_count, "inf": inf_count}
    return {
        "vmin": float(good.min()),
        "vmax": float(good.max()),
        "mean": float(good.mean(dtype=np.float64)),
        "nan": nan_count,
        "inf": inf_count,
    }


def quantise(values: np.ndarray, vmin: float, vmax: float) -> np.ndarray:
    """uint8 codes: 0..LEVELS for [vmin, vmax], then the NaN and +-Inf codes."""
    span = vmax - vmin if vmax > vmin else 1.0
    scaled = (values - np.float32(vmin)) * np.float32(LEVELS / span)
    with np.errstate(invalid="ignore"):
        codes = np.clip(np.rint(scaled), 0, LEVELS).astype(np.uint8)
    if not np.isfinite(values).all():
        codes[np.isnan(values)] = NAN_CODE
        codes[np.isposinf(values)] = POS_INF_CODE
        codes[np.isneginf(values)] = NEG_INF_CODE
    return codes


def split_components(array: np.ndarray, vector: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(scalar values to paint, vector components or None). A vector field's trailing axis holds
    its components; it is painted as its magnitude."""
    if not vector:
        return array, None
    if array.ndim < 2:
        raise ValueError("a vector field needs a trailing component axis")
    comps = array.astype(np.float32, copy=False)
    return np.sqrt((comps * comps).sum(axis=-1)), comps


def arrows(comps: np.ndarray, grid: int = ARROW_GRID) -> tuple[bytes, list[int]]:
    """A coarse grid of arrows for a 2D vector field: (float32 u, v pairs scaled so the longest
    is 1, [rows, cols, step])."""
    if comps.ndim != 3 or comps.shape[-1] < 2:
        return b"", []
    step = max(1, math.ceil(max(comps.shape[0], comps.shape[1]) / grid))
    sample = comps[step // 2 :: step, step // 2 :: step, :2].astype(np.float32)
    longest = float(np.nanmax(np.hypot(sample[..., 0], sample[..., 1]), initial=0.0))
    if longest > 0 and math.isfinite(longest):
        sample = sample / np.float32(longest)
    sample = np.nan_to_num(sample, nan=0.0, posinf=0.0, neginf=0.0)
    return np.ascontiguousarray(sample).tobytes(), [sample.shape[0], sample.shape[1], step]


def encode(array: np.ndarray, vector: bool = False) -> dict:
    """Everything the browser needs for one frame of `array` (see the module docstring)."""
    values, comps = split_components(np.asarray(array), vector)
    if values.ndim == 0 or values.ndim > 3:
        raise ValueError(f"the field viewer shows 1D, 2D and 3D fields, not {values.ndim}D")
    values = np.ascontiguousarray(values, dtype=np.float32)
    s = stats(values)
    quantised = values.ndim > 1 and values.size > QUANTISE_ABOVE
    data = quantise(values, s["vmin"], s["vmax"]) if quantised else values
    arrow_bytes, arrow_shape = arrows(comps) if comps is not None else (b"", [])
    return {
        "shape": list(values.shape),
        "encoding": "u8" if quantised else "f32",
        "data": data.tobytes(),
        "vmin": s["vmin"],
        "vmax": s["vmax"],
        "mean": s["mean"],
        "nan_count": s["nan"],
        "inf_count": s["inf"],
        "arrows": arrow_bytes,
        "arrow_shape": arrow_shape,
    }


def decode(frame: dict) -> np.ndarray:
    """The values a frame stands for (quantised frames come back at their level centres); used
    by snapshots and by tests."""
    shape = tuple(frame["shape"])
    if frame["encoding"] == "f32":
        return np.frombuffer(frame["data"], dtype=np.float32).reshape(shape)
    codes = np.frombuffer(frame["data"], dtype=np.uint8).reshape(shape)
    span = frame["vmax"] - frame["vmin"] if frame["vmax"] > frame["vmin"] else 1.0
    out = frame["vmin"] + codes.astype(np.float32) * np.float32(span / LEVELS)
    out[codes == NAN_CODE] = np.nan
    out[codes == POS_INF_CODE] = np.inf
    out[codes == NEG_INF_CODE] = -np.inf
    return out
