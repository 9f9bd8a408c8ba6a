"""Runs one program of this folder on Taichi or tistudio and saves what ``main()`` returns.

    python tests/programs/_run_program.py PROGRAM.py {taichi|tistudio} OUT.npz

For tistudio the program's ``import taichi as ti`` line becomes ``import tistudio as ti`` and
nothing else changes; the edited source is written to a file of the same name in a temporary
folder, so that the compiler can read kernel source from it as Taichi does.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TAICHI_IMPORT = "import taichi as ti"
TISTUDIO_IMPORT = "import tistudio as ti"


def source_for(program: Path, backend: str) -> str:
    source = program.read_text()
    if backend == "tistudio":
        source = source.replace(TAICHI_IMPORT, TISTUDIO_IMPORT, 1)
    return source


def run(program: Path, backend: str) -> dict[str, np.ndarray]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / program.name
        path.write_text(source_for(program, backend))
        spec = importlib.util.spec_from_file_location(program.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[program.stem] = module
        spec.loader.exec_module(module)
        return module.main()


def main() -> None:
    program, backend, out = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if backend not in ("taichi", "tistudio"):
        raise SystemExit(f"backend must be taichi or tistudio, not {backend!r}")
    sys.path.insert(0, str(ROOT))  # the checkout's tistudio, not some other installed copy
    results = run(program, backend)
    np.savez(out, **{name: np.asarray(array) for name, array in results.items()})


if __name__ == "__main__":
    main()
