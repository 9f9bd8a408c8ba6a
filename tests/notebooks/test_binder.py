"""binder/ works: the steps repo2docker takes, followed in a fresh virtual environment.

repo2docker installs binder/requirements.txt, then runs binder/postBuild from the repository
root (as a plain user, so no Node and no editable install). Here the same two steps run in a new
`python -m venv`; postBuild itself checks that JupyterLab lists the prebuilt extension. Then the
venv's Python imports the studio and runs a kernel on the GPU arch, which is what apt.txt's
lavapipe packages are there for.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.notebooks.package_index import skip_without_index

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
SMOKE = """
import numpy as np
import tistudio as ti
import tistudio.studio
ti.init(arch=ti.gpu)
x = ti.field(ti.f32, shape=64)

@ti.kernel
def fill():
    for i in x:
        x[i] = i * 0.5

fill()
assert np.allclose(x.to_numpy(), np.arange(64) * 0.5)
print("ok", "@compute" in fill.compile_report().wgsl)  # it really ran as WGSL
"""


def test_binder_files_follow_repo2docker_conventions() -> None:
    assert sorted(p.name for p in BINDER.iterdir()) == [
        "apt.txt",
        "postBuild",
        "requirements.txt",
        "runtime.txt",
    ]
    assert BINDER.joinpath("apt.txt").read_text().split() == ["mesa-vulkan-drivers", "libvulkan1"]
    post_build = BINDER.joinpath("postBuild")
    assert os.access(post_build, os.X_OK), "postBuild must be executable"
    assert "set -e" in post_build.read_text()
    assert BINDER.joinpath("runtime.txt").read_text().startswith("python-3.")


@pytest.mark.binder
@pytest.mark.network
def test_binder_environment_builds_in_a_fresh_venv(tmp_path: Path) -> None:
    skip_without_index()  # pip installs requirements.txt from the package index
    venv = tmp_path / "venv"
    env = {**os.environ, "PIP_NO_COMPILE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")  # Mesa warns when it is unset
    env.pop("PYTHONPATH", None)  # the venv must find tistudio through its own install
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    steps = [
        [python, "-m", "pip", "install", "-q", "-r", str(BINDER / "requirements.txt")],
        ["bash", str(BINDER / "postBuild")],
    ]
    for step in steps:
        done = subprocess.run(step, cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{step}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    # a fresh directory, so `import tistudio` cannot pick up the checkout instead of the install
    (tmp_path / "smoke.py").write_text(SMOKE)  # kernels need a file to read their source from
    run = subprocess.run(
        [python, "smoke.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split() == ["ok", "True"], run.stdout
    origin = subprocess.run(
        [python, "-c", "import tistudio; print(tistudio.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert origin.stdout.startswith(str(venv)), origin.stdout
    print(f"binder environment in a fresh venv: {time.monotonic() - start:.0f} s")
