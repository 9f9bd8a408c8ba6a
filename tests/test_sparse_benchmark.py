"""The sparse benchmark cases (`benchmarks/cases/sparse_pointer.py`, `sparse_bitmasked.py`) on a
small grid: every framework's step, run twice (the second step deactivates the first's blocks),
agrees with the case's reference, and the reference check catches a cell written outside the
active blocks. So the cases' code cannot rot unseen between benchmark runs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.processes import run_script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cases import compare, sparse_grid  # noqa: E402

SIZE = 256  # 16×16 blocks, 8 of them active


def _inputs() -> dict[str, np.ndarray]:
    inputs = sparse_grid.make_inputs(SIZE)
    assert inputs["blocks"].shape == (8, 2)
    return inputs


def test_the_reference_has_the_chosen_blocks_only() -> None:
    inputs = _inputs()
    want = sparse_grid.expected(inputs)
    blocks = {tuple(b) for b in inputs["blocks"]}
    nb = SIZE // sparse_grid.B
    touched = want["x"].reshape(nb, 16, nb, 16).any(axis=(1, 3))
    assert {tuple(b) for b in np.argwhere(touched)} == blocks
    assert int(want["count"][0]) == 8 * 256


@pytest.mark.parametrize("make", [sparse_grid.numpy_impl, sparse_grid.numba_impl])
def test_numpy_and_numba_agree_with_the_reference(make) -> None:
    inputs = _inputs()
    impl = make(inputs)
    impl.step()
    impl.step()
    got = impl.result()
    assert compare(got, sparse_grid.expected(inputs)) is None
    got["x"][0, 0] += 1.0  # block (0, 0) is not active
    assert "x: 1 of" in compare(got, sparse_grid.expected(inputs))


SCRIPT = """
import sys
import numpy as np
import {framework} as ti
from benchmarks.cases import compare, {case}, sparse_grid

ti.init(arch=ti.cpu, offline_cache=False)
inputs = sparse_grid.make_inputs({size})
impl = {case}.taichi_impl(ti, inputs)
impl.step()
impl.step()
print("RESULT", compare(impl.result(), sparse_grid.expected(inputs)))
"""


@pytest.mark.parametrize("case", ["sparse_pointer", "sparse_bitmasked"])
@pytest.mark.parametrize("framework", ["tistudio", "taichi"])
def test_the_taichi_source_agrees_with_the_reference(tmp_path, framework, case) -> None:
    source = SCRIPT.format(framework=framework, case=case, size=SIZE)
    done = run_script(tmp_path / "case.py", source, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "RESULT None" in done.stdout, done.stdout
