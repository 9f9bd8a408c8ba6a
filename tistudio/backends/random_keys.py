"""The launch keys of `ti.random`, which the host hands to each launch of a kernel.

Shared by both back ends, so that launch number n of a kernel has the same key on the CPU and
on the GPU (`ir/random.py` says how a key becomes numbers). The count starts at 0 for each
compiled kernel, and a kernel is compiled again after `ti.init`, so a program that starts with
`ti.init(random_seed=s)` gives the same numbers on every run.
"""

from __future__ import annotations

import threading

from tistudio.ir import random as rng


class LaunchKeys:
    """Counts one kernel's launches and gives each its key."""

    def __init__(self, seed: int, kernel_name: str) -> None:
        self._seed = seed & rng.MASK
        self._salt = rng.kernel_salt(kernel_name)
        self._launches = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        """The key of the next launch (a `u32`)."""
        with self._lock:
            launch, self._launches = self._launches, self._launches + 1
        return rng.launch_key(self._seed, self._salt, launch)
