"""`python -m tistudio.lab`: open JupyterLab on the tutorial notebooks (the README's main command).

In a clone it runs `jupyter lab notebooks/01_tour.ipynb` with the checkout as the server's root,
from any working directory. From an installed wheel (no clone) it first copies the tutorials
into a working folder (`--dir`, else it asks, else `./tistudio-tutorials`; see `workdir` for
why an edited copy is never overwritten) and opens JupyterLab there. `--copy-only` copies and
prints the JupyterLab command without starting it. Other arguments go to JupyterLab
(`--no-browser`, `--port=8890`, ...). As root (containers, the project's own machines)
JupyterLab refuses to start without `--allow-root`; the launcher adds it there and says so.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from tistudio.lab import workdir

CHECKOUT = Path(__file__).resolve().parents[2]
TOUR = "notebooks/01_tour.ipynb"


def lab_command(
    root: Path, notebook: str, extra: list[str], is_root: bool | None = None
) -> list[str]:
    """The JupyterLab command line serving `root` and opening `notebook` (relative to it)."""
    opened = str(root / notebook)  # absolute: JupyterLab resolves it against its working dir
    argv = [sys.executable, "-m", "jupyterlab", opened, f"--ServerApp.root_dir={root}"]
    if is_root if is_root is not None else hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    return argv + extra


def command(extra: list[str], checkout: Path = CHECKOUT, is_root: bool | None = None) -> list[str]:
    """The JupyterLab command line that opens a clone's tour (raises if it is not a clone)."""
    if not (checkout / TOUR).is_file():
        raise SystemExit(f"tistudio.lab: {TOUR} not found under {checkout}: not a clone")
    return lab_command(checkout, TOUR, extra, is_root)


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The launcher's own options, and the rest (for JupyterLab)."""
    parser = argparse.ArgumentParser(
        prog="python -m tistudio.lab",
        allow_abbrev=False,
        description="Open JupyterLab on tistudio's tutorials; other arguments go to JupyterLab.",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        help="copy the tutorials into this folder and open it (default for an installed "
        f"wheel: ask, or ./{workdir.DEFAULT_FOLDER} when not interactive); notebooks already "
        "there are never overwritten",
    )
    parser.add_argument(
        "--yes", action="store_true", help=f"do not ask: use ./{workdir.DEFAULT_FOLDER}"
    )
    parser.add_argument(
        "--copy-only",
        action="store_true",
        help="copy the tutorials and print the JupyterLab command, without starting it",
    )
    return parser.parse_known_args(argv)


def ask_folder(yes: bool) -> Path:
    """The working folder: asked for on a terminal, else the default."""
    default = Path(workdir.DEFAULT_FOLDER)
    if yes or not sys.stdin.isatty():
        return default
    answer = input(f"Copy the tutorials into which folder? [./{default}] ").strip()
    return Path(answer).expanduser() if answer else default


def prepare(options: argparse.Namespace, extra: list[str], checkout: Path = CHECKOUT) -> list[str]:
    """Copy the tutorials where needed and return the JupyterLab command that opens them."""
    if options.dir is None and (checkout / TOUR).is_file():
        return command(extra, checkout)  # a clone: the notebooks in place
    folder = (options.dir or ask_folder(options.yes)).resolve()
    print(f"tistudio.lab: the tutorials go into {folder}", file=sys.stderr)
    for copied in workdir.copy_tutorials(workdir.source(checkout), folder):
        print(f"  {copied.line(folder)}", file=sys.stderr)
    return lab_command(folder, Path(TOUR).name, extra)


def main(argv: list[str] | None = None) -> None:
    options, extra = parse(list(sys.argv[1:] if argv is None else argv))
    args = prepare(options, extra)
    if options.copy_only:
        print(shlex.join(args))
        return
    if "--allow-root" in args:
        print("tistudio.lab: running as root, so JupyterLab gets --allow-root", file=sys.stderr)
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        missing = 'tistudio.lab: JupyterLab is missing: pip install "tistudio[lab]"'
        raise SystemExit(missing) from None
    os.execv(sys.executable, args)
