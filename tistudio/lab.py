"""`python -m tistudio.lab`: open JupyterLab on the tutorial notebooks (the README's main command).

It runs `jupyter lab notebooks/01_tour.ipynb` with the checkout as the server's root, from any
working directory. Extra arguments go to JupyterLab (`--no-browser`, `--port=8890`, ...). As
root (containers, the project's own machines) JupyterLab refuses to start without
`--allow-root`; the launcher adds it there and says so.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
TOUR = "notebooks/01_tour.ipynb"


def command(extra: list[str], checkout: Path = CHECKOUT, is_root: bool | None = None) -> list[str]:
    """The JupyterLab command line that opens the tour (raises if the notebooks are missing)."""
    if not (checkout / TOUR).is_file():
        raise SystemExit(
            f"tistudio.lab: {TOUR} not found under {checkout}; the tutorials come with the "
            'repository: clone it and run `pip install -e ".[lab]"` there'
        )
    tour = str(checkout / TOUR)  # absolute: JupyterLab resolves it against its working directory
    argv = [sys.executable, "-m", "jupyterlab", tour, f"--ServerApp.root_dir={checkout}"]
    if is_root if is_root is not None else hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    return argv + extra


def main(argv: list[str] | None = None) -> None:
    args = command(list(sys.argv[1:] if argv is None else argv))
    if "--allow-root" in args:
        print("tistudio.lab: running as root, so JupyterLab gets --allow-root", file=sys.stderr)
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        raise SystemExit('tistudio.lab: JupyterLab is missing: pip install -e ".[lab]"') from None
    os.execv(sys.executable, args)


if __name__ == "__main__":
    main()
