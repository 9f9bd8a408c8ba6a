"""A kernel that prints, exported to an AOT module and run by the loader (no frontend, no
passes): the module carries the print formats, and the loaded kernel prints the same text."""

from __future__ import annotations

import os

import pytest

import tistudio as ti
import tistudio.aot

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_a_loaded_kernel_prints_like_the_jit(arch, tmp_path, capsys) -> None:  # noqa: ANN001
    ti.init(arch=getattr(ti, arch), offline_cache=False)

    @ti.kernel
    def hello(n: ti.i32):
        for i in range(n):
            ti.loop_config(serialize=True)
            print(f"hello {i}: {i * 0.5:.2f}", ti.Vector([i, n]))

    module = ti.aot.Module(getattr(ti, arch))
    module.add_kernel(hello)
    path = tmp_path / "hello.tcm"
    module.archive(str(path))
    hello(2)
    jit = capsys.readouterr().out
    ti.reset()
    loaded = tistudio.aot.load(path, arch=getattr(ti, arch))
    loaded.get_kernel("hello")(2)
    assert capsys.readouterr().out == jit == "hello 0: 0.00 [0, 2]\nhello 1: 0.50 [1, 2]\n"
