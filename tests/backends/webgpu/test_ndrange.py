"""`ti.ndrange` on the GPU: one flat grid-stride loop, never the CPU's row loops.

The CPU turns a multi-axis ndrange into a parallel loop over rows around a serial loop over a
row (`passes/ndrange.py`), which LLVM vectorises. On the GPU that shape gives each invocation a
row of its own, so neighbouring invocations are a row apart and no load coalesces: the 8192x8192
stencil of `benchmarks/gpu` ran at 78 GB/s on an H200 against 2277 GB/s for its struct-for
twin. These tests pin the flat shape on the GPU and the row shape on the CPU, and the GPU's
last axis widened to whole groups of four, with the added elements skipped (`pad_ndrange`).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti

SIDE = 80  # rows >= ndrange.MIN_ROWS, so the CPU takes the row shape


def stencil():
    a = ti.field(ti.f32, shape=(SIDE, SIDE))
    b = ti.field(ti.f32, shape=(SIDE, SIDE))

    @ti.kernel
    def step():
        for i, j in ti.ndrange((1, SIDE - 1), (1, SIDE - 1)):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    return a, b, step


def expected(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    out[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return out


@pytest.mark.parametrize("arch", ["gpu", "cpu"])
def test_ndrange_stencil_is_flat_on_the_gpu_and_row_loops_on_the_cpu(arch, device):
    ti.init(arch=getattr(ti, arch), fallback_to_cpu=False)
    a, b, step = stencil()
    data = np.random.default_rng(5).random((SIDE, SIDE), dtype=np.float32)
    a.from_numpy(data)
    step()
    np.testing.assert_allclose(b.to_numpy(), expected(data), rtol=1e-6)
    report = step.compile_report()
    final_ir = report.passes[-1].ir_text
    assert final_ir.count("offloaded range_for") == 1
    rows = "range_for(0, 78)" in final_ir  # the parallel loop over the 78 interior rows
    assert rows == (arch == "cpu")
    if arch == "gpu":
        assert "range_for(0, 6240)" in final_ir  # 78 rows of 80: j from 0, not 1, to 80
        wgsl = report.wgsl
        # j and i from the flat index: its magnitude divided by the constant row length, as
        # unsigned numbers the driver sees (test_int_division.py)
        assert re.search(r"\) % 80u\)", wgsl) and re.search(r"\) / 80u\)", wgsl)
        assert "tree0_v4f32" in wgsl  # four cells of a row per step: vec4 loads and stores
        assert wgsl.count("for (") == 2  # the vec4 grid loop, the scalar rest; nothing inside
    ti.reset()


def test_the_widened_axis_skips_the_cells_it_added(device):
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    b = ti.field(ti.i32, shape=(9, 80))
    b.fill(-1)

    @ti.kernel
    def mark():
        for i, j in ti.ndrange((2, 9), (-3, 70)):  # j from -4 over 76 elements, 73 of them real
            b[i, j + 3] = i * 100 + j

    mark()
    want = np.full((9, 80), -1)
    i, j = np.meshgrid(np.arange(2, 9), np.arange(-3, 70), indexing="ij")
    want[i, j + 3] = i * 100 + j
    np.testing.assert_array_equal(b.to_numpy(), want)
    assert "range_for(0, 532)" in mark.compile_report().passes[-1].ir_text  # 7 rows x 76
    ti.reset()


def test_the_widening_is_a_pass_of_its_own_that_leaves_user_loops_alone(device):
    """`pad_ndrange` runs after `lower_ast` on the GPU only, shows in the pass records, and
    widens only what lower_ast wrote for an ndrange: a `range` loop the user splits into rows
    with `//` and `%` keeps its count."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    b = ti.field(ti.i32, shape=(9, 80))

    @ti.kernel
    def by_hand():
        for k in range(7 * 73):
            i, j = k // 73 + 2, k % 73 - 3
            b[i, j + 3] = i * 100 + j

    @ti.kernel
    def ndrange():
        for i, j in ti.ndrange((2, 9), (-3, 70)):
            b[i, j + 3] = i * 100 + j

    records = {p.name: p for p in ndrange.compile_report().passes}
    names = list(records)
    assert names.index("pad_ndrange") == names.index("lower_ast") + 1
    assert records["pad_ndrange"].changed and "const 76" in records["pad_ndrange"].ir_text
    by_hand_records = {p.name: p for p in by_hand.compile_report().passes}
    assert not by_hand_records["pad_ndrange"].changed
    assert "range_for(0, 511)" in by_hand.compile_report().passes[-1].ir_text  # 7 x 73
    ti.reset()
    ti.init(arch=ti.cpu)

    @ti.kernel
    def on_the_cpu():
        for _i, _j in ti.ndrange((2, 9), (-3, 70)):
            pass

    assert "pad_ndrange" not in [p.name for p in on_the_cpu.compile_report().passes]
    ti.reset()


def _corner_counter(rows: int, cols: int):
    """A GPU kernel over `ti.ndrange(rows, cols)` that counts its first cell (compiled on its
    first call or compile report; these sizes are never run)."""
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    hits = ti.field(ti.i32, shape=())

    @ti.kernel
    def count():
        for i, j in ti.ndrange(rows, cols):
            if i == 0 and j == 0:
                hits[None] += 1

    return count


def test_a_flat_ndrange_beyond_a_32_bit_index_is_refused(device):
    # The flat loop counts every element in one i32: 2**16 * (2**15 + 1) wrapped around, and
    # the loop ran too few invocations, silently. (The CPU runs this one in rows.)
    count = _corner_counter(2**16, 2**15 + 1)
    with pytest.raises(ti.TaichiSyntaxError, match=r"2,147,549,184 elements .* on the GPU"):
        count()
    ti.reset()


def test_no_widening_where_the_widened_count_would_not_fit(device):
    # 65534 rows of 32769 fit in an i32 (2,147,483,646 elements); widened to rows of 32772 they
    # would not (2,147,680,248): the axis stays as written. Compiled, not run (2**31 cells).
    count = _corner_counter(65534, 2**15 + 1)
    final_ir = count.compile_report().passes[-1].ir_text
    assert "range_for(0, 2147483646)" in final_ir, final_ir
    ti.reset()
