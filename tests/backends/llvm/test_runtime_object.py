"""The thread pool's runtime shipped as object code (`runtime_object.py`) and the warm-up that
loads it during `ti.init`."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tistudio.backends.llvm import runtime_object
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.native_pool import NativeThreadPool
from tistudio.backends.llvm.runtime_ir import native_pool_supported

ROOT = Path(__file__).resolve().parents[3]
# The package ships object code for x86_64 Linux, the machines this project runs and tests on.
assert platform.system() == "Linux" and platform.machine() == "x86_64"


def test_shipped_object_matches_the_current_runtime_ir() -> None:
    # Fails when runtime_ir.py changed and the object was not written again:
    #   python -m tistudio.backends.llvm.runtime_object --write
    found = runtime_object.shipped_object()
    assert found is not None, "stale or missing runtime object: run --write (see module doc)"
    assert found.startswith(b"\x7fELF")


def test_the_shipped_object_runs_a_parallel_launch() -> None:
    assert native_pool_supported()
    code = runtime_object.shipped_object()
    assert code is not None
    engine = JitEngine()

    class NoCache:  # a cache that has nothing, so the pool must use the shipped object
        stored: list[bytes] = []

        def load(self) -> None:
            return None

        def store(self, obj: bytes) -> None:
            self.stored.append(obj)

    pool = NativeThreadPool(2, engine, grain=1, object_cache=NoCache())
    try:
        assert pool._native.compiled.object_code == code  # loaded, not compiled
        assert NoCache.stored == []
    finally:
        pool.close()


def test_a_stale_object_name_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_object, "runtime_ir_text", lambda machine=None: "changed IR")
    assert runtime_object.shipped_object() is None


WARM = textwrap.dedent(
    """
    import sys, time
    import tistudio as ti
    ti.init(arch=ti.cpu, offline_cache=False)
    from tistudio.runtime import warm_up
    warm_up.wait()
    assert warm_up._done
    assert "llvmlite.binding" in sys.modules  # the back end was started by ti.init
    x = ti.field(ti.f32, shape=64)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i * 0.5

    fill()
    assert x.to_numpy()[63] == 31.5
    ti.init(arch=ti.cpu, offline_cache=False)  # a second init starts no second warm-up
    assert warm_up._thread is not None and not warm_up._thread.is_alive()
    print("ok")
    """
)


def test_ti_init_warms_the_back_end_in_the_background(tmp_path: Path) -> None:
    script = tmp_path / "warm.py"
    script.write_text(WARM)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
