"""Pass records printed on demand (`passes/deferred.py`): while the studio watches, a compile
prints no IR; the texts come from a rerun when first read, and equal an eager compile's."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.events import bus
from tistudio.ir.printer import print_ir_with_lines
from tistudio.passes.deferred import DeferredRecords


@pytest.fixture
def watched():
    """A program whose compiles someone watches (as the studio's panel does)."""
    ti.init(arch=ti.cpu, debug=True)
    stop = bus.subscribe("compiled", lambda event: None)
    yield
    stop()
    ti.reset()


def heat_kernel():
    @ti.func
    def lap(f: ti.template(), i: int, j: int) -> ti.f32:
        return f[i - 1, j] + f[i + 1, j] + f[i, j - 1] + f[i, j + 1] - 4.0 * f[i, j]

    @ti.kernel
    def heat(src: ti.template(), dst: ti.template(), k: ti.f32):
        for i, j in dst:
            if 0 < i < 31 and 0 < j < 31:
                dst[i, j] = src[i, j] + k * lap(src, i, j)

    return heat


def test_a_watched_compile_prints_nothing_until_a_text_is_read(watched):
    u, v = ti.field(ti.f32, shape=(32, 32)), ti.field(ti.f32, shape=(32, 32))
    heat = heat_kernel()
    heat(u, v, 0.1)
    records = heat.instances()[0].result.records
    assert isinstance(records, DeferredRecords) and not records.loaded
    names = [r.name for r in records]
    assert names[:3] == ["initial IR", "lower_ast", "type_check"]
    assert all(r.ms >= 0 and r.stmt_count > 0 for r in records)  # on the compile's clock
    assert any(r.changed for r in records[1:]) and not records.loaded
    assert "kernel {" in records[0].ir_text and records.loaded  # the rerun, on first read


def test_deferred_texts_equal_an_eager_compile_and_end_at_the_final_ir(watched):
    u, v = ti.field(ti.f32, shape=(32, 32)), ti.field(ti.f32, shape=(32, 32))
    heat = heat_kernel()
    heat(u, v, 0.1)
    entry = heat.instances()[0]
    deferred = list(entry.result.records)
    eager = heat.compile_report(u, v, 0.1).passes  # recorded as the passes ran
    assert [r.name for r in deferred] == [r.name for r in eager]
    assert [r.ir_text for r in deferred] == [r.ir_text for r in eager]
    assert [r.lines for r in deferred] == [r.lines for r in eager]
    assert [r.stmt_ids for r in deferred] == [r.stmt_ids for r in eager]
    assert deferred[-1].ir_text == print_ir_with_lines(entry.result.final_ir)[0]
    marks = entry.result.records.marks
    assert [r.ms for r in deferred] == [m.ms for m in marks]  # times of the real compile


def test_ndarray_and_gradient_kernels_keep_no_array_and_print_the_same(watched):
    x = ti.field(ti.f32, shape=8, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def square(a: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in x:
            x[i] = a[i]
            loss[None] += x[i] * x[i]

    arr = np.arange(8, dtype=np.float32)
    square(arr)
    with ti.ad.Tape(loss):
        square(arr)
    for kernel in (square, square.grad):
        entry = kernel.instances()[0]
        deferred = [r.ir_text for r in entry.result.records]
        assert deferred[-1] == print_ir_with_lines(entry.result.final_ir)[0]
    eager = square.compile_report(arr).passes
    assert [r.ir_text for r in square.instances()[0].result.records] == [r.ir_text for r in eager]


def test_unwatched_compiles_print_their_passes_on_first_read_too():
    """A script's compile notes nothing while it runs; its records (names and times too) come
    from the rerun when read (`save_html` shows kernels compiled without the studio)."""
    ti.init(arch=ti.cpu)
    try:
        x = ti.field(ti.f32, shape=4)

        @ti.kernel
        def fill():
            for i in x:
                x[i] = 1.0

        fill()
        entry = fill.instances()[0]
        records = entry.result.records
        assert isinstance(records, DeferredRecords) and records.marks is None
        assert not records.loaded
        assert records[0].name == "initial IR" and records.loaded
        assert records[-1].ir_text == print_ir_with_lines(entry.result.final_ir)[0]
    finally:
        ti.reset()
