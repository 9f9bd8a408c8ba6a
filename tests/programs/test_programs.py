"""Classic Taichi programs run unchanged on tistudio: only the import line differs.

Each program in this folder is written as a Taichi user writes one (``ti.init`` at the top,
global fields, kernels, a main loop) and returns its results from ``main()``. Every run is a
fresh subprocess (``_run_program.py``), so Taichi's and tistudio's global state never meet.
"""

from __future__ import annotations

import ast
import functools
import itertools
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNNER = HERE / "_run_program.py"
TAICHI_IMPORT = "import taichi as ti"
PROGRAMS = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith(("_", "test_")))
TIMEOUT_S = 300


@functools.cache
def run_program(name: str, backend: str, attempt: int = 0) -> dict[str, np.ndarray]:
    """Results of ``main()`` of one program on one backend (``attempt`` keys repeated runs)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.npz"
        command = [sys.executable, str(RUNNER), str(HERE / f"{name}.py"), backend, str(out)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
        if done.returncode != 0:
            pytest.fail(
                f"{name}.py on {backend} exited with {done.returncode}:\n{done.stderr[-4000:]}",
                pytrace=False,
            )
        with np.load(out) as arrays:
            return {key: arrays[key].copy() for key in arrays.files}


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray], exact: bool) -> None:
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        assert got[key].shape == expected.shape, key
        assert got[key].dtype == expected.dtype, key
        if exact or not np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_array_equal(got[key], expected, err_msg=key)
        else:
            # The values here are O(1). rtol 1e-5 is about 100 float32 ulps: room for a
            # different but valid order of float operations (Taichi's default fast math fuses
            # multiply-adds and reassociates sums), never for a wrong answer. atol covers
            # values that cancel to near zero, such as the Jacobi change between sweeps.
            np.testing.assert_allclose(got[key], expected, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_imports_taichi_once_at_the_top(name):
    source = (HERE / f"{name}.py").read_text()
    assert source.count(TAICHI_IMPORT) == 1
    assert "tistudio" not in source
    # "At the top": in the leading run of docstring and import statements, before any code.
    leading = itertools.takewhile(
        lambda node: isinstance(node, ast.Import | ast.ImportFrom | ast.Expr),
        ast.parse(source).body,
    )
    names = [
        (a.name, a.asname) for node in leading if isinstance(node, ast.Import) for a in node.names
    ]
    assert ("taichi", "ti") in names, "import taichi as ti must come before any code"


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_gives_identical_results_twice_on_taichi(name):
    first = run_program(name, "taichi", 0)
    second = run_program(name, "taichi", 1)
    assert first, "main() returned no arrays"
    assert_same(second, first, exact=True)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_runs_unchanged_on_tistudio(name):
    want = run_program(name, "taichi", 0)
    got = run_program(name, "tistudio", 0)
    assert_same(got, want, exact=False)
