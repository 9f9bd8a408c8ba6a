"""`Rand` on the GPU: the hash of `ir/random.py` in WGSL `u32` arithmetic.

The launch's key travels with the arguments (`ArgsLayout.random`, set per launch by the host
from `backends/random_keys.py`, as the CPU's argument buffer carries it), so launch n of a
kernel draws the same numbers on both back ends. A task that draws keeps a call counter,
`ti_rand_calls`, declared at the start of each iteration of its loop (`shader.py`), so each
iteration's calls count from 0 as on the CPU.
"""

from __future__ import annotations

from tistudio.ir import random as rng

COUNTER = "ti_rand_calls"


def _mix32() -> str:
    first, second, third = rng.SHIFTS
    return f"""fn ti_mix32(v: u32) -> u32 {{
    // lowbias32 (ir/random.py): u32 products wrap modulo 2^32
    var x = v ^ (v >> {first}u);
    x = x * {rng.MUL_1:#x}u;
    x = x ^ (x >> {second}u);
    x = x * {rng.MUL_2:#x}u;
    return x ^ (x >> {third}u);
}}"""


def _draw() -> str:
    return f"""fn ti_rand(task_key: u32, index: u32, calls: u32) -> u32 {{
    // rng.draw(rng.stream(task_key, index), calls)
    return ti_mix32(ti_mix32(task_key ^ index) + calls * {rng.GOLDEN:#x}u);
}}"""


def task_key(launch_key: str, task: int) -> str:
    """WGSL for `rng.task_key` of task number `task` (its inner hash is a constant)."""
    return f"ti_mix32({launch_key} ^ {rng.mix32(task + rng.TASK_SALT):#x}u)"


# helper functions by name; the emitter adds those an expression calls
RANDOM_HELPERS = {"ti_mix32": _mix32(), "ti_rand": _draw()}
