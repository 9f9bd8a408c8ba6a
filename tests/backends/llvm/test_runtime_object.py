"""The thread pool's runtime shipped as object code (`runtime_object.py`) and the warm-up that
loads it during `ti.init`."""

from __future__ import annotations

import platform
import textwrap
from pathlib import Path

import pytest

from tests.processes import run_script
from tistudio.backends.llvm import runtime_object
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.native_pool import NativeThreadPool
from tistudio.backends.llvm.runtime_ir import native_pool_supported

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
    assert "tistudio.lang.ops" in sys.modules  # and `ti.max` & co.
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
    done = run_script(tmp_path / "warm.py", WARM)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


IMPORT_DURING_WARM_UP = textwrap.dedent(
    """
    import sys, time
    import tistudio as ti
    ti.init(arch=ti.cpu, offline_cache=False)
    time.sleep(float(sys.argv[1]))  # land somewhere inside the warm-up thread's imports
    from tistudio.backends.llvm.jit import JitEngine
    from tistudio.backends.llvm import CpuBackend
    assert JitEngine and CpuBackend
    print("ok")
    """
)


def test_a_back_end_module_imported_during_the_warm_up_imports_whole(tmp_path: Path) -> None:
    # With a package __init__ that imported backend -> executable -> jit, importing jit on the
    # main thread while the warm-up thread imported the package deadlocked on Python's import
    # locks, which Python broke by handing out a partly initialised module (ImportError in
    # 21 of 40 runs at these delays).
    script = tmp_path / "import_during_warm_up.py"
    for delay in [0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05]:  # one at a time: timing
        done = run_script(script, IMPORT_DURING_WARM_UP, str(delay))
        assert done.returncode == 0 and done.stdout.strip() == "ok", (
            f"{delay}: {done.stderr[-600:]}"
        )
