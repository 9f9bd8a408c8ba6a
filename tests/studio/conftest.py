"""Browser-test fixtures: one real JupyterLab per session, Debian's chromium through Playwright.

The server runs on a free port with a token in a temporary root; each test writes its own
notebook there and opens it with `?reset` so no workspace state leaks between tests.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "studio"
CHROMIUM_FLAGS = [
    "--no-sandbox",  # needed as root
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 1600}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _quiet_settings(root: Path) -> Path:
    settings = root / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    # save the widgets' state with the notebook, so a reopened notebook shows them without a
    # kernel (tests/studio/test_reopen.py); JupyterLab and Notebook 7 read the same setting
    widgets = root / ".settings" / "@jupyter-widgets" / "jupyterlab-manager"
    widgets.mkdir(parents=True)
    (widgets / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))
    return root / ".settings"


class Lab:
    """A running JupyterLab: `open(notebook)` gives the URL of a fresh notebook in it."""

    def __init__(self, root: Path, port: int, token: str, proc: subprocess.Popen) -> None:
        self.root, self.port, self.token, self.proc = root, port, token, proc
        self.base = f"http://127.0.0.1:{port}"

    def notebook(self, name: str, cells: list[str]) -> str:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        nbformat.write(nb, self.root / name)
        return f"{self.base}/lab/tree/{name}?reset&token={self.token}"

    def notebook7(self, name: str, cells: list[str]) -> str:
        """The same notebook, opened in Notebook 7 (served by the same server)."""
        self.notebook(name, cells)
        return f"{self.base}/notebooks/{name}?token={self.token}"


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    port, token = _free_port(), uuid.uuid4().hex
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(_quiet_settings(root))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    cmd = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={root / '.ws'}", "--LabApp.expose_app_in_browser=True",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ]  # fmt: skip
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(root / "server.log", "w")  # noqa: SIM115 - closed with the server
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (root / "server.log").read_text()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
            break
        except OSError:
            assert time.monotonic() < deadline, "JupyterLab did not start in 60 s"
            time.sleep(0.3)
    yield Lab(root, port, token, proc)
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture
def artifacts() -> Path:
    """Where the browser tests save their screenshots: test-artifacts/studio/, or the folder
    named by TISTUDIO_SCREENSHOTS (`TISTUDIO_SCREENSHOTS=docs/screenshots` refreshes the
    README's pictures)."""
    folder = Path(os.environ.get("TISTUDIO_SCREENSHOTS") or ARTIFACTS).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder
