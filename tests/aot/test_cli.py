"""`python -m tistudio.aot build` and `inspect`, run as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import tistudio.aot

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import tistudio as ti

ti.init(arch=ti.cpu, offline_cache=False)
REQUIRED_CAPS = ["example_cap"]
counter = ti.field(ti.i32, shape=())


@ti.aot.export_as("saxpy", template_types={"x": ti.types.ndarray(ti.f32, ndim=1)})
@ti.kernel
def saxpy_impl(x: ti.types.ndarray(), a: ti.f32):
    for i in x:
        x[i] *= a


@ti.aot.export
@ti.kernel
def count(n: ti.i32) -> ti.i32:
    for i in range(n):
        counter[None] += 1
    return counter[None]


@ti.kernel
def not_exported():
    pass


if __name__ == "__main__":
    raise SystemExit("the build must not run the script's main block")
"""


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tistudio.aot", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )


def test_build_then_load_and_inspect(tmp_path):
    (tmp_path / "script.py").write_text(textwrap.dedent(SCRIPT))
    out = _run("build", "script.py", "-o", "out.tcm", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "exported kernel count (count)",
        "exported kernel saxpy (saxpy_impl)",
        "wrote out.tcm (cpu)",
    ]
    again = _run("build", "script.py", "-o", "again.tcm", cwd=tmp_path)  # another process
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.tcm").read_bytes() == (tmp_path / "out.tcm").read_bytes()
    m = tistudio.aot.load(tmp_path / "out.tcm")
    assert m.kernel_names == ["count", "saxpy"]
    assert m.metadata["required_caps"] == ["example_cap"]
    x = np.arange(4, dtype=np.float32)
    m.get_kernel("saxpy")(x, 2.0)
    np.testing.assert_array_equal(x, [0, 2, 4, 6])
    assert m.get_kernel("count")(5) == 5
    assert m.get_kernel("count")(2) == 7
    out = _run("inspect", "out.tcm", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "  kernel saxpy(x: f32[], a: f32) -> (), 2 task(s)" in out.stdout.splitlines()
    assert "  kernel count(n: i32) -> (i32), 3 task(s)" in out.stdout.splitlines()
    folder = _run("build", "script.py", "-o", "folder", cwd=tmp_path)
    assert folder.returncode == 0, folder.stderr
    assert (tmp_path / "folder" / "metadata.json").is_file()


def test_build_errors_are_one_line(tmp_path):
    (tmp_path / "empty.py").write_text("import tistudio as ti\nti.init(arch=ti.cpu)\n")
    out = _run("build", "empty.py", "-o", "out.tcm", cwd=tmp_path)
    assert out.returncode == 1
    assert (
        out.stderr.strip()
        == "error: ValueError: empty.py exports no kernel (mark them with @ti.aot.export)"
    )
    out = _run("build", "missing.py", "-o", "out.tcm", cwd=tmp_path)
    assert (out.returncode, out.stderr.strip()) == (
        1,
        "error: FileNotFoundError: no script at 'missing.py'",
    )
    (tmp_path / "junk.tcm").write_bytes(b"junk")
    out = _run("inspect", "junk.tcm", cwd=tmp_path)
    assert out.returncode == 1 and "not a valid .tcm archive" in out.stderr
    assert "Traceback" not in out.stderr
