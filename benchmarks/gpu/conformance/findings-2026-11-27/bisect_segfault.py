"""Bisect for open_segfault_h100.py: replay the H100 segfault finding with the float -> 64-bit
conversion as it was before 5741f2d (`old`) or as it is (`new`); a segfault ends the process,
so run each mode in its own process: python bisect_segfault.py old|new"""

import sys

import tistudio.backends.webgpu.wgsl as w

if sys.argv[1] == "old":
    w._to_64_bits = lambda dst, src, x: f"{w.WGSL_TYPE[dst.name]}({x})"
from tests.fuzz.replay import main  # noqa: E402

sys.argv = ["replay", "run", __file__.replace("bisect_segfault.py", "open_segfault_h100.py")]
main()
