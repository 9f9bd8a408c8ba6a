"""The random-number generator of `ti.random` that every back end computes the same way.

`ti.random()` must give the same numbers on every run, on both CPU tiers and on the GPU, and
the GPU has 32-bit integers only. So the generator is counter-based, with no state in memory:
each `Rand` statement returns a 32-bit hash of four numbers, where the only state is a counter
of the calls made so far in the current loop iteration.

- the launch key: made by the host for each launch from `ti.init(random_seed=...)`, a salt
  (the kernel's name) and the number of launches of the kernel so far (`launch_key`);
- the task's number in the kernel and the iteration's index in the task's loop (0 in a serial
  task), which `stream` hashes into one number per iteration;
- the call counter, which starts at 0 in every iteration (`draw`).

The hash is `mix32`, Chris Wellons' "lowbias32" integer finaliser: xor-shifts and two odd
multiplications modulo 2**32, so the WGSL emitter writes it with `u32` arithmetic alone. The
interpreter calls these functions; the back ends emit the same operations.
"""

from __future__ import annotations

import zlib

MASK = 0xFFFFFFFF
GOLDEN = 0x9E3779B9  # 2**32 / golden ratio: consecutive counters land far apart
TASK_SALT = 0x632BE5AB
MUL_1 = 0x7FEB352D
MUL_2 = 0x846CA68B
SHIFTS = (16, 15, 16)  # x ^= x >> 16; x *= MUL_1; x ^= x >> 15; x *= MUL_2; x ^= x >> 16


def mix32(x: int) -> int:
    """lowbias32: a bijection of 32-bit integers where each input bit flips about half of the
    output bits."""
    x &= MASK
    x ^= x >> 16
    x = (x * MUL_1) & MASK
    x ^= x >> 15
    x = (x * MUL_2) & MASK
    return x ^ (x >> 16)


def launch_key(seed: int, salt: int, launch: int) -> int:
    """The key of launch number `launch` of a kernel whose salt is `salt`."""
    return mix32(mix32(seed ^ salt) + launch * GOLDEN)


def kernel_salt(name: str) -> int:
    """A kernel's salt: two kernels launched as often give different numbers."""
    return zlib.crc32(name.encode())


def task_key(key: int, task: int) -> int:
    """The key of task number `task` of a launch with key `key`."""
    return mix32(key ^ mix32(task + TASK_SALT))


def stream(task_key_: int, index: int) -> int:
    """One number per iteration `index` (a loop index, or 0 in a serial task) of a task."""
    return mix32(task_key_ ^ (index & MASK))


def draw(stream_: int, counter: int) -> int:
    """The value of call number `counter` (from 0) of an iteration: a uniform 32-bit integer."""
    return mix32(stream_ + counter * GOLDEN)
