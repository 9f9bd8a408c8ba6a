"""The offline (disk) cache: hits and misses, damaged entries, concurrent writers, cleaning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.runtime.offline_cache import SUFFIX, OfflineCache

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import sys
import numpy as np
import tistudio as ti

ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=sys.argv[1])
x = ti.field(ti.f32, shape=1000)


@ti.kernel
def fill(a: ti.f32):
    for i in x:
        x[i] = a * i + ti.sin(0.001 * i)


fill(2.0)
want = 2.0 * np.arange(1000, dtype=np.float32) + np.sin(0.001 * np.arange(1000))
assert np.allclose(x.to_numpy(), want, rtol=1e-5, atol=1e-5)
print(fill.instances()[0].result.cache)
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TISTUDIO_VERIFY_IR", "0")  # verifying passes bypasses the cache
    return tmp_path / "cache"


def _script(cache_dir: Path) -> str:
    script = cache_dir.parent / "program.py"  # kernels need a source file
    script.write_text(PROGRAM)
    return str(script)


def _run(cache_dir: Path) -> str:
    env = {"TISTUDIO_VERIFY_IR": "0", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, _script(cache_dir), str(cache_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob(f"*/*{SUFFIX}"))


def _kernel_entries(cache_dir: Path) -> list[Path]:
    cache = OfflineCache(cache_dir)
    found = []
    for path in _entries(cache_dir):
        entry = cache.load(path.stem)
        if entry is not None and "spec" in entry[0]:
            found.append(path)
    return found


def test_second_process_hits_and_gets_the_same_results(cache_dir: Path) -> None:
    assert _run(cache_dir) == "miss"
    assert len(_kernel_entries(cache_dir)) == 1
    assert _run(cache_dir) == "hit"


def test_in_process_hit_after_a_new_program(cache_dir: Path) -> None:
    def compile_once() -> str:
        ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(cache_dir))
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
        return count.instances()[0].result.cache

    assert compile_once() == "miss"
    assert compile_once() == "hit"


def test_cache_off_by_argument_writes_nothing(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`offline_cache=False` wins over an environment that turns the cache on: kernels compile
    (quick and optimised code both), run and give their results, and no file appears, neither
    in the path given nor in the ones the environment names."""
    monkeypatch.setenv("TISTUDIO_OFFLINE_CACHE", "1")
    monkeypatch.setenv("TISTUDIO_OFFLINE_CACHE_FILE_PATH", str(tmp_path / "from_env"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    ti.init(arch=ti.cpu, offline_cache=False, offline_cache_file_path=str(cache_dir))
    assert ti.lang.impl.get_program().offline_cache is None
    y = ti.field(ti.f32, shape=64)

    @ti.kernel
    def fill(a: ti.f32):
        for i in y:
            y[i] = a * i + ti.sin(0.01 * i)

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in y:
            s += y[i]
        return s

    fill(2.0)
    want = 2.0 * np.arange(64, dtype=np.float32) + np.sin(0.01 * np.arange(64, dtype=np.float32))
    np.testing.assert_allclose(y.to_numpy(), want, rtol=1e-5)
    assert abs(total() - float(want.sum())) < 1e-2
    ti.lang.impl.get_program().wait_for_optimised()  # optimised code is stored when it arrives
    assert fill.instances()[0].result.cache == "off"
    written = [p.relative_to(tmp_path) for p in tmp_path.rglob("*")]
    assert written == [], written
    ti.reset()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_damaged_entries_are_detected_and_recompiled(cache_dir: Path, damage: str) -> None:
    assert _run(cache_dir) == "miss"
    for path in _entries(cache_dir):
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            path.write_bytes(b"\x7fELF not an entry" * 10)
        else:
            path.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    assert _run(cache_dir) == "miss"  # recompiled (and the pool's runtime too)
    assert _run(cache_dir) == "hit"  # and stored again, whole


def test_two_processes_compiling_at_once_leave_a_valid_cache(cache_dir: Path) -> None:
    env = {**os.environ, "TISTUDIO_VERIFY_IR": "0", "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.Popen(
            [sys.executable, _script(cache_dir), str(cache_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    cache = OfflineCache(cache_dir)
    assert all(cache.load(p.stem) is not None for p in _entries(cache_dir))
    assert not list(cache_dir.glob("*/*.tmp"))
    assert _run(cache_dir) == "hit"


def test_cleaning_keeps_the_folder_under_its_bound(tmp_path: Path) -> None:
    cache = OfflineCache(tmp_path, max_bytes=20_000, cleaning_factor=0.25)
    keys = [f"{i:02x}" + "0" * 62 for i in range(40)]
    for key in keys:
        assert cache.store(key, {"k": key}, b"x" * 1000)
    assert cache.size() <= 20_000
    assert cache.stats.cleaned > 0
    assert cache.load(keys[-1]) is not None  # the newest survive, the oldest went first
    assert cache.load(keys[0]) is None


def test_a_hit_refreshes_the_entry_for_lru(tmp_path: Path) -> None:
    import time

    cache = OfflineCache(tmp_path, max_bytes=3_500, cleaning_factor=0.0)
    old, new = "a" * 64, "b" * 64
    cache.store(old, {}, b"x" * 1000)
    cache.store(new, {}, b"x" * 1000)
    past = time.time() - 100
    os.utime(cache.entry_path(old), (past, past))
    os.utime(cache.entry_path(new), (past + 1, past + 1))
    assert cache.load(old) is not None  # used: now the most recent
    cache.store("c" * 64, {}, b"x" * 1000)
    cache.store("d" * 64, {}, b"x" * 1000)
    assert cache.load(old) is not None and cache.load(new) is None


def test_unwritable_folder_is_bypassed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = OfflineCache(blocker / "cache")
    assert cache.store("e" * 64, {}, b"code") is False
    assert cache.load("e" * 64) is None
