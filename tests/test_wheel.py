"""The built wheel is enough without a clone: tutorials, launcher and JupyterLab extension.

The wheel is built from this checkout (hatchling, without build isolation, so nothing is
downloaded) and installed into a fresh virtual environment. The environment sees the system's
site-packages, for the dependencies, and the editable checkout is installed there too: so each
check first makes sure that the `tistudio` imported is the wheel's, inside the environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tistudio

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()


class Venv:
    """A virtual environment with the wheel installed, run from a folder outside the clone."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.python = path / "bin" / "python"
        self.env = {**os.environ, "PYTHONNOUSERSITE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        self.env.pop("PYTHONPATH", None)
        self.env["JUPYTER_CONFIG_DIR"] = str(path / "jupyter-config")  # no user settings

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [str(self.python), *args], cwd=cwd, env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    base = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation"]
        + ["--quiet", "--wheel-dir", str(base / "dist")],
        check=True,
        cwd=base,
    )
    (wheel,) = (base / "dist").glob("tistudio-*.whl")
    assert wheel.name.startswith(f"tistudio-{tistudio.__version__}-")
    # no pip of its own (the system's, visible through --system-site-packages, installs)
    venv = Venv(base / "venv")
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv.path)],
        check=True,
    )
    install = ["-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--ignore-installed"]
    venv.run(*install, str(wheel), cwd=base)
    return venv


def test_the_wheel_is_imported_and_carries_the_tutorials(venv: Venv, tmp_path: Path) -> None:
    probe = "import json, tistudio, tistudio.lab.workdir as w; "
    probe += "print(json.dumps([tistudio.__file__, tistudio.__version__, str(w.PACKAGED)]))"
    where, version, packaged = json.loads(venv.run("-c", probe, cwd=tmp_path).stdout)
    assert Path(where).is_relative_to(venv.path), where  # not the editable checkout
    assert version == tistudio.__version__
    packaged = Path(packaged)
    assert sorted(p.name for p in packaged.iterdir()) == [p.name for p in NOTEBOOKS]
    for notebook in NOTEBOOKS:
        assert (packaged / notebook.name).read_bytes() == notebook.read_bytes(), notebook.name


def test_the_launcher_copies_the_tutorials_and_keeps_edits(venv: Venv, tmp_path: Path) -> None:
    """`--copy-only` copies into ./tistudio-tutorials (not a terminal: no question) and prints
    the JupyterLab command; a second run keeps a notebook the user edited, and says so."""
    done = venv.run("-m", "tistudio.lab", "--copy-only", "--no-browser", cwd=tmp_path)
    folder = tmp_path / "tistudio-tutorials"
    assert sorted(p.name for p in folder.iterdir()) == [p.name for p in NOTEBOOKS]
    argv = done.stdout.split()
    assert argv[1:4] == ["-m", "jupyterlab", str(folder / "01_tour.ipynb")]
    assert f"--ServerApp.root_dir={folder}" in argv and argv[-1] == "--no-browser"
    assert "copied 01_tour.ipynb" in done.stderr

    edited = folder / "02_compiler_stages.ipynb"
    edited.write_text(edited.read_text().replace("compile", "kompile"))
    mine = edited.read_bytes()
    (folder / "01_tour.ipynb").unlink()
    again = venv.run(
        "-m", "tistudio.lab", "--copy-only", "--dir", "tistudio-tutorials", cwd=tmp_path
    )
    assert edited.read_bytes() == mine
    assert re.search(r"kept your 02_compiler_stages\.ipynb", again.stderr), again.stderr
    assert (
        "copied 01_tour.ipynb" in again.stderr
        and "04_autodiff.ipynb is already there" in again.stderr
    )


def test_the_jupyterlab_extension_is_installed_into_the_venv(venv: Venv, tmp_path: Path) -> None:
    extension = venv.path / "share" / "jupyter" / "labextensions" / "tistudio"
    package = json.loads((extension / "package.json").read_text())
    assert (extension / package["jupyterlab"]["_build"]["load"]).is_file()
    assert json.loads((extension / "install.json").read_text())["packageName"] == "tistudio"
    listed = venv.run("-m", "jupyterlab.labextensions", "list", cwd=tmp_path)
    text = listed.stdout + listed.stderr
    # the venv's own folder, holding this checkout's build (the editable install's is elsewhere)
    ours = text.split(str(venv.path / "share" / "jupyter" / "labextensions"), 1)
    assert len(ours) == 2, text
    shipped = json.loads((ROOT / "tistudio" / "labextension" / "package.json").read_text())
    # the extension's own (npm) version, rebuilt with the package's (extension/README.md)
    assert shipped["version"] == tistudio.__version__
    version = re.escape(shipped["version"])
    assert re.search(rf"^\s+tistudio v{version} .*enabled.*OK", ours[1], re.MULTILINE), text


def test_the_changelog_describes_this_version() -> None:
    """The newest release in CHANGELOG.md is the package's version (the one the wheel gets)."""
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", CHANGELOG, re.MULTILINE)
    assert releases and releases[0] == tistudio.__version__, releases
    assert f"[{tistudio.__version__}]: " in CHANGELOG  # its link at the bottom


def test_the_launcher_asks_for_the_folder_on_a_terminal(venv: Venv, tmp_path: Path) -> None:
    """With a terminal on stdin (a pseudo-terminal here) it asks, and takes the answer."""
    import pty

    terminal, child_side = pty.openpty()
    launcher = subprocess.Popen(
        [str(venv.python), "-m", "tistudio.lab", "--copy-only"],
        cwd=tmp_path,
        env=venv.env,
        stdin=child_side,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(child_side)
    try:
        os.write(terminal, b"my-tutorials\n")  # waits in the terminal until input() reads it
        out, err = launcher.communicate(timeout=120)
    finally:
        os.close(terminal)
    assert launcher.returncode == 0, err
    assert "Copy the tutorials into which folder? [./tistudio-tutorials]" in out
    folder = tmp_path / "my-tutorials"
    assert sorted(p.name for p in folder.iterdir()) == [p.name for p in NOTEBOOKS]
    assert f"--ServerApp.root_dir={folder}" in out.splitlines()[-1].split()
    assert not (tmp_path / "tistudio-tutorials").exists()


def test_a_clone_opens_its_notebooks_in_place_or_copies_them_with_dir(tmp_path: Path) -> None:
    from tistudio import lab
    from tistudio.lab import workdir

    in_place, _ = lab.parse(["--copy-only", "--no-browser"])
    argv = lab.prepare(in_place, ["--no-browser"], checkout=ROOT)
    assert argv[3] == str(ROOT / "notebooks" / "01_tour.ipynb") and not any(tmp_path.iterdir())
    copied, extra = lab.parse(["--dir", str(tmp_path / "work"), "--port=8890"])
    argv = lab.prepare(copied, extra, checkout=ROOT)
    assert argv[3] == str(tmp_path / "work" / "01_tour.ipynb") and argv[-1] == "--port=8890"
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == [p.name for p in NOTEBOOKS]
    # neither a clone's notebooks/ nor packaged tutorials (this checkout has none): refused
    with pytest.raises(SystemExit, match="no tutorials"):
        workdir.source(tmp_path)
