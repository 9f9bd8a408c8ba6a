"""Build and run a C program against a saved CPU module, as its users do: the header from
`python -m tistudio.aot cheader`, the module's object files, the system C compiler."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_c_program(folder: Path, main_c: str) -> str:
    """Write `module.h` for the module saved in `folder`, compile `main_c` with it and the
    module's objects (warnings are errors), run it there; return what it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    made = subprocess.run(
        [sys.executable, "-m", "tistudio.aot", "cheader", ".", "-o", "module.h"],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
    )
    assert made.returncode == 0, made.stderr
    (folder / "main.c").write_text(main_c)
    objects = sorted(p.name for p in folder.glob("*.o"))
    cc = ["cc", "-std=c11", "-O1", "-Wall", "-Werror", "main.c", *objects, "-lmvec", "-lm"]
    built = subprocess.run([*cc, "-o", "runner"], capture_output=True, text=True, cwd=folder)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run(["./runner"], capture_output=True, text=True, cwd=folder)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout
