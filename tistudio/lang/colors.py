"""`ti.rgb_to_hex` and `ti.hex_to_rgb`: colours between (r, g, b) floats and 0xRRGGBB integers.

Taichi keeps these next to its GUI (`taichi.ui.gui`), whose drawing calls take 0xRRGGBB colours,
and exports them at the top level. They are Python-scope helpers on numbers or NumPy arrays (an
array per channel converts many colours at once); `hex_to_rgb` also works in a kernel, as in
Taichi (the frontend's `hex_to_rgb` builtin applies the same operators to kernel values).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _byte(channel: Any) -> Any:
    """A channel in [0, 1] as an int in [0, 255]: scaled, truncated to int32, then clipped."""
    return np.clip(np.int32(channel * 255), 0, 255)


def rgb_to_hex(c: Any) -> Any:
    """The 0xRRGGBB integer of the colour `c = (r, g, b)`, channels in [0, 1]."""
    return (_byte(c[0]) << 16) + (_byte(c[1]) << 8) + _byte(c[2])


def hex_to_rgb(color: Any) -> tuple[Any, Any, Any]:
    """The (r, g, b) channels in [0, 1] of the 0xRRGGBB integer `color`."""
    red, green, blue = (color >> 16) & 0xFF, (color >> 8) & 0xFF, color & 0xFF
    return red / 255, green / 255, blue / 255


hex_to_rgb.__ti_builtin__ = "hex_to_rgb"  # type: ignore[attr-defined] - inside a kernel
