"""Disk-cache entries whose checksum is right but whose contents are not (#34, item 5).

The checksum catches a truncated or damaged file, not an entry written wrong: metadata that
does not describe the code, an empty task, object code that is not object code. Whatever goes
wrong while an entry is loaded, the entry is removed and the kernel compiled again, so the
kernel gives its results and the next program finds a good entry.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tistudio as ti
from tests.backends.llvm.objects import Elf
from tistudio.lang import impl
from tistudio.runtime.offline_cache import SUFFIX, OfflineCache

Entry = tuple[dict[str, Any], bytes]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TISTUDIO_VERIFY_IR", "0")  # verifying passes bypasses the cache
    return tmp_path / "cache"


def _program(cache_dir: Path, arch: Any) -> str:
    """Compile (or load) and run one kernel; return how its code was found."""
    ti.init(arch=arch, offline_cache=True, offline_cache_file_path=str(cache_dir))
    if arch is ti.vulkan and impl.get_program().gpu is None:
        pytest.skip("no GPU adapter")
    y = ti.field(ti.i32, shape=16)

    @ti.kernel
    def count(k: ti.i32) -> ti.i32:
        total = 0
        for i in y:
            y[i] = i * k
            total += i
        return total

    assert count(3) == 120
    np.testing.assert_array_equal(y.to_numpy(), 3 * np.arange(16))
    impl.get_program().wait_for_optimised()  # which is what the cache stores
    return count.instances()[0].result.cache


def _kernel_entry(cache_dir: Path) -> tuple[str, Entry]:
    """The key and contents of the one kernel entry (not the thread pool's runtime)."""
    cache = OfflineCache(cache_dir)
    found = []
    for path in cache_dir.glob(f"*/*{SUFFIX}"):
        entry = cache.load(path.stem)
        if entry is not None and "spec" in entry[0]:
            found.append((path.stem, entry))
    assert len(found) == 1
    return found[0]


def _spec(edit: Callable[[dict], None]) -> Callable[[Entry], Entry]:
    def damage(entry: Entry) -> Entry:
        meta, obj = entry
        edit(meta["spec"])
        return meta, obj

    return damage


def _set(key: str, value: Any) -> Callable[[dict], None]:
    return lambda spec: spec.__setitem__(key, value)


CPU_DAMAGE = {
    "an empty task": _spec(_set("tasks", [[]])),  # IndexError
    "functions the code lacks": _spec(_set("functions", ["no_such_function"])),
    "a negative argument buffer": _spec(lambda s: s["layout"].__setitem__("num_slots", -1)),
    "random bytes for code": lambda e: (e[0], os.urandom(len(e[1]))),
    "code whose names lie outside the file": lambda e: (
        e[0],
        Elf(e[1]).set_field(".strtab", "size", 1 << 30).bytes(),
    ),
}

GPU_DAMAGE = {
    "shader text that is not WGSL": _spec(lambda s: s["tasks"][0].__setitem__("wgsl", "fn (")),
    "an empty task list entry": _spec(_set("tasks", [{}])),
    "bindings of another shape": _spec(lambda s: s["tasks"][0].__setitem__("bindings", [[1]])),
}


@pytest.mark.parametrize(
    ("arch", "damage"),
    [("cpu", name) for name in CPU_DAMAGE] + [("vulkan", name) for name in GPU_DAMAGE],
)
def test_a_malformed_entry_is_dropped_and_the_kernel_compiled_again(
    cache_dir: Path, arch: str, damage: str
) -> None:
    arch_ = getattr(ti, arch)
    assert _program(cache_dir, arch_) == "miss"
    key, original = _kernel_entry(cache_dir)
    edit = (CPU_DAMAGE if arch == "cpu" else GPU_DAMAGE)[damage]
    meta, obj = edit((copy.deepcopy(original[0]), original[1]))
    assert OfflineCache(cache_dir).store(key, meta, obj)  # a valid checksum over bad contents

    assert _program(cache_dir, arch_) == "miss"  # the entry went; compiled again, right results
    assert impl.get_program().offline_cache.stats.corrupted >= 1
    assert _kernel_entry(cache_dir) == (key, original)  # and stored again, whole
    assert _program(cache_dir, arch_) == "hit"
