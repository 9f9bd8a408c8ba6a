"""The README's first command works on a fresh machine: `pip install -e ".[lab]"` in a new
virtual environment, then `python -m tistudio.lab`, serves the tour notebook in JupyterLab with
the tistudio extension enabled (the command is read from the README, so the two cannot drift).
The machines here run as root, where JupyterLab needs `--allow-root`: the launcher adds it."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.notebooks.package_index import skip_without_index

ROOT = Path(__file__).resolve().parents[2]


def _quick_start() -> tuple[list[str], list[str]]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    first = block.strip().splitlines()[0].split("#", 1)[0].strip()
    install, run = (shlex.split(part) for part in first.split("&&"))
    return install, run


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.network
def test_the_first_quick_start_command_serves_the_tour_in_a_fresh_venv(tmp_path: Path) -> None:
    install, run = _quick_start()
    skip_without_index()  # pip installs the dependencies from the package index
    assert install[:3] == ["pip", "install", "-e"] and run == ["python", "-m", "tistudio.lab"]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PIP_NO_COMPILE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env.pop("PYTHONPATH", None)
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "jupyter-config")  # no user settings
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", *install, "-q"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    listed = subprocess.run(
        ["jupyter", "labextension", "list"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert re.search(r"tistudio v[0-9.]+ .*enabled.*OK", listed.stdout + listed.stderr)

    port = _free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "python"), *run[1:], "--no-browser", f"--port={port}"]
        + ["--IdentityProvider.token=", "--ServerApp.password="],
        cwd=tmp_path,  # the launcher finds the notebooks from any directory
        env=env,
        stdout=(tmp_path / "lab.log").open("w"),
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        tour = "notebooks/01_tour.ipynb"
        url = f"http://127.0.0.1:{port}/lab/tree/{tour}"
        page = _get_when_up(url, server, tmp_path / "lab.log")
        assert "JupyterLab" in page or "jupyter-config-data" in page
        contents = _get_when_up(
            f"http://127.0.0.1:{port}/api/contents/{tour}", server, tmp_path / "lab.log"
        )
        assert '"type": "notebook"' in contents or '"type":"notebook"' in contents
    finally:
        server.terminate()
        server.wait(timeout=30)


def _get_when_up(url: str, server: subprocess.Popen, log: Path, timeout_s: float = 90.0) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        assert server.poll() is None, (
            Path(server.args[0]).parents[2].joinpath("lab.log").read_text()
        )
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                assert response.status == 200
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_the_launcher_adds_allow_root_only_for_root_and_needs_the_notebooks(tmp_path: Path) -> None:
    from tistudio import lab

    as_user = lab.command(["--no-browser"], is_root=False)
    assert as_user[1:4] == ["-m", "jupyterlab", str(ROOT / "notebooks/01_tour.ipynb")]
    assert f"--ServerApp.root_dir={ROOT}" in as_user and "--allow-root" not in as_user
    assert as_user[-1] == "--no-browser"
    assert "--allow-root" in lab.command([], is_root=True)
    with pytest.raises(SystemExit, match="notebooks/01_tour.ipynb not found"):
        lab.command([], checkout=tmp_path)
