"""`ti.simt`: Taichi's single-instruction-multiple-thread intrinsics; only `block` so far.

Taichi 1.7.4 also has `ti.simt.warp` and `ti.simt.subgroup` (shuffles, votes); WebGPU has no
subgroup operations without an extension, so they are not here.
"""

from __future__ import annotations

from tistudio.lang.simt import block

__all__ = ["block"]
