"""The offline (disk) cache on the GPU: WGSL, bindings and dispatch sizes kept across programs.

A hit rebuilds the kernel's shaders from the stored WGSL without running the passes; the final
IR is made only if an ndarray later needs shaders the cache did not keep (bound as several
windows). Entries whose metadata is unreadable are dropped and the kernel is compiled again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.backends.webgpu.device import GpuDevice
from tistudio.lang import impl
from tistudio.runtime.offline_cache import SUFFIX, OfflineCache

ROOT = Path(__file__).resolve().parents[3]

PROGRAM = """
import sys
import numpy as np
import tistudio as ti

ti.init(arch=ti.vulkan, offline_cache=True, offline_cache_file_path=sys.argv[1])
x = ti.field(ti.f32, shape=1000)
total = ti.field(ti.f32, shape=())


@ti.kernel
def fill(a: ti.f32) -> ti.f32:
    for i in x:
        x[i] = a * i + ti.sin(0.001 * i)
        total[None] += 1.0
    return a * 2


assert fill(2.0) == 4.0
want = 2.0 * np.arange(1000, dtype=np.float32) + np.sin(0.001 * np.arange(1000))
assert np.allclose(x.to_numpy(), want, rtol=1e-5, atol=1e-5)
assert total[None] == 1000.0
result = fill.instances()[0].result
print(result.cache, result.final_ir is None and result.executable._cached is not None)
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TISTUDIO_VERIFY_IR", "0")  # verifying passes bypasses the cache
    return tmp_path / "cache"


def _run(cache_dir: Path) -> str:
    script = cache_dir.parent / "program.py"  # kernels need a source file
    script.write_text(PROGRAM)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {"TISTUDIO_VERIFY_IR": "0", "PYTHONPATH": path, "XDG_RUNTIME_DIR": "/tmp"}
    done = subprocess.run(
        [sys.executable, str(script), str(cache_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_second_process_skips_the_passes_and_gets_the_same_results(cache_dir: Path, device):
    assert _run(cache_dir) == "miss False"
    entries = sorted(cache_dir.glob(f"*/*{SUFFIX}"))
    kernels = [p for p in entries if "tasks" in OfflineCache(cache_dir).load(p.stem)[0]["spec"]]
    assert len(kernels) == 1
    assert _run(cache_dir) == "hit True"  # no final IR: the passes did not run


def _program(cache_dir: Path, device: GpuDevice):
    ti.init(arch=ti.gpu, offline_cache=True, offline_cache_file_path=str(cache_dir))
    impl.get_program().use_gpu(device)
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def gather(arr: ti.types.ndarray(), k: ti.i32):
        for i in x:
            x[i] = arr[i * 10 % arr.shape[0]] * k

    return x, gather


def test_a_hit_compiles_other_window_shaders_from_the_final_ir(cache_dir: Path, device):
    small = GpuDevice(device.adapter, device.device, replace(device.caps, window_bytes=1024))
    x, gather = _program(cache_dir, small)
    gather(np.arange(640, dtype=np.int32), 2)  # 2560 bytes: three windows
    np.testing.assert_array_equal(x.to_numpy(), np.arange(64) * 20)
    assert gather.instances()[0].result.cache == "miss"
    wgsl = gather.instances()[0].result.executable.wgsl

    x, gather = _program(cache_dir, small)
    gather(np.arange(200, dtype=np.int32), 3)  # 800 bytes: one window, as the stored shaders
    np.testing.assert_array_equal(x.to_numpy(), np.arange(64) * 10 % 200 * 3)
    result = gather.instances()[0].result
    assert result.cache == "hit" and result.executable.wgsl == wgsl
    assert result.executable._cached is not None  # nothing compiled yet
    gather(np.arange(640, dtype=np.int32) + 1, 1)  # three windows: the passes run now
    np.testing.assert_array_equal(x.to_numpy(), np.arange(64) * 10 + 1)
    assert result.executable._cached is None
    assert "arg0_i32_w2" in result.executable._variants[(3,)][0][0].wgsl
    ti.reset()


def test_unreadable_metadata_is_dropped_and_compiled_again(cache_dir: Path, device):
    x, gather = _program(cache_dir, device)
    gather(np.ones(640, np.int32), 5)
    cache = OfflineCache(cache_dir)
    (path,) = [
        p for p in cache_dir.glob(f"*/*{SUFFIX}") if "tasks" in cache.load(p.stem)[0]["spec"]
    ]
    meta, _ = cache.load(path.stem)
    del meta["spec"]["tasks"][0]["wgsl"]  # a valid entry (checksum and all) that lacks a shader
    cache.store(path.stem, meta, b"")

    x, gather = _program(cache_dir, device)
    gather(np.ones(640, np.int32), 7)
    assert gather.instances()[0].result.cache == "miss"
    assert (x.to_numpy() == 7).all()
    assert impl.get_program().offline_cache.stats.corrupted == 1
    x, gather = _program(cache_dir, device)
    gather(np.ones(640, np.int32), 9)
    assert gather.instances()[0].result.cache == "hit"  # stored again by the miss
    assert (x.to_numpy() == 9).all()
    ti.reset()
