"""`ti._lib`: the names of Taichi's compiled core that example programs and tests read."""

from __future__ import annotations

import tistudio as ti


def test_the_arch_probe_of_taichis_examples_picks_our_gpu_back_end() -> None:
    # the ggui examples run `ti.init(arch=ti.vulkan if ti._lib.core.with_vulkan() else ti.cuda)`
    assert ti._lib.core.with_vulkan() is True
    assert ti._lib.core.with_cuda() is False
    assert ti._lib.core.with_metal() is False


def test_the_core_error_is_the_language_error() -> None:
    assert ti._lib.core.TaichiRuntimeError is ti.TaichiRuntimeError
    assert ti._lib.utils.get_os_name() == "linux"


def test_a_field_may_have_as_many_axes_as_the_core_says() -> None:
    ti.init(arch=ti.cpu)
    d = ti._lib.core.get_max_num_indices()
    assert d == 12
    x = ti.field(ti.i32, shape=(2,) * d)

    @ti.kernel
    def fill():
        for I in ti.grouped(x):
            x[I] = I.sum() + I[d - 1] * 100

    fill()
    assert x[(1,) * d] == d + 100
    assert x[(0,) * (d - 1) + (1,)] == 101
