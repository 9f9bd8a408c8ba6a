"""A kernel that calls `ti.random`, exported to AOT modules: the module records the exporting
program's `random_seed`, and every runner gives launch n of the kernel the key that
`backends/random_keys.py` gives it (seed, the kernel's name, n). So the Python loaders of a
CPU and of a GPU module, and a C program linking the CPU module, draw the same numbers: new
ones at each launch, the same ones in each run. (The JIT's numbers differ: its kernels are
named per instantiation, `draw_c0_0`.)"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
import tistudio.aot
from tests.aot.c_program import run_c_program
from tistudio.aot.format import AotModuleError
from tistudio.lang.ops import random

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

MAIN_C = r"""
#include <stdio.h>
#include "module.h"

int main(void) {
    uint32_t a[8];
    for (int launch = 0; launch < 2; launch++) {
        tistudio_draw(0, a, 8);
        for (int i = 0; i < 8; i++) printf("%u ", a[i]);
        printf("\n");
    }
    return 0;
}
"""


@ti.kernel
def draw(a: ti.types.ndarray(ti.u32, ndim=1)):
    for i in a:
        a[i] = random(ti.u32)


def _export(arch: str, path: Path, seed: int) -> None:
    ti.init(arch=getattr(ti, arch), offline_cache=False, random_seed=seed)
    module = ti.aot.Module(getattr(ti, arch))
    module.add_kernel(draw)
    module.save(path)
    ti.reset()


def _launches(arch: str, path: Path, count: int = 2) -> list[list[int]]:
    kernel = tistudio.aot.load(path, arch=getattr(ti, arch)).get_kernel("draw")
    out = []
    for _ in range(count):
        a = np.zeros(8, np.uint32)
        kernel(a)
        out.append(a.tolist())
    ti.reset()
    return out


def test_cpu_and_gpu_modules_draw_the_same_numbers(tmp_path) -> None:
    for arch in ("cpu", "vulkan"):
        _export(arch, tmp_path / arch, seed=9)
    cpu = _launches("cpu", tmp_path / "cpu")
    assert cpu == _launches("vulkan", tmp_path / "vulkan")
    assert cpu[0] != cpu[1], "two launches drew the same numbers"
    assert cpu == _launches("cpu", tmp_path / "cpu"), "a second run drew other numbers"
    _export("cpu", tmp_path / "other", seed=10)
    assert _launches("cpu", tmp_path / "other") != cpu, "the seed did not reach the module"


def test_a_c_program_draws_what_the_python_loader_draws(tmp_path) -> None:
    _export("cpu", tmp_path, seed=9)
    stdout = run_c_program(tmp_path, MAIN_C)
    got = [[int(x) for x in line.split()] for line in stdout.splitlines()]
    assert got == _launches("cpu", tmp_path)


def test_a_damaged_seed_is_refused(tmp_path) -> None:
    _export("cpu", tmp_path, seed=9)
    meta = (tmp_path / "metadata.json").read_text()
    assert '"random_seed": 9' in meta
    (tmp_path / "metadata.json").write_text(meta.replace('"random_seed": 9', '"random_seed": -1'))
    with pytest.raises(AotModuleError, match="bad random_seed"):
        tistudio.aot.load(tmp_path, arch=ti.cpu)
