"""Which pass broke it: `report.bisect(*args)` runs the IR after each pass in the interpreter on
copies of the real inputs and names the first pass whose results differ (issue #30). The broken
passes are injected here: one through the pipeline's public table of back-end passes, one by
patching a simplify pass's `run` for the length of a test."""

from __future__ import annotations

import types

import numpy as np
import pytest

import tistudio as ti
from tistudio.ir import statements as s
from tistudio.ir.ops import BinaryOpType
from tistudio.lang.bisect import UNTYPED
from tistudio.passes import alg_simp, pipeline


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)


def _flip_first_add(kernel, ctx) -> bool:
    """A wrong rewrite: the first float `add` of the kernel becomes `sub`."""
    for stmt in kernel.walk():
        if isinstance(stmt, s.BinaryOp) and stmt.op is BinaryOpType.add:
            if str(stmt.ret_type).startswith("f"):
                stmt.op = BinaryOpType.sub
                return True
    return False


def make_kernel():
    x = ti.field(ti.f32, shape=(8, 8))
    y = ti.field(ti.f32, shape=(8, 8))

    @ti.kernel
    def k(s: ti.f32, arr: ti.types.ndarray(dtype=ti.f32, ndim=1)) -> ti.f32:
        total = 0.0
        for i, j in x:
            y[i, j] = x[i, j] * s + 1.0
            arr[i] = s
        for i, j in y:
            total += y[i, j]
        return total

    x.fill(2.0)
    return k, x, y


def test_a_correct_pipeline_gives_the_same_results_after_every_pass() -> None:
    k, x, y = make_kernel()
    arr = np.zeros(8, np.float32)
    found = k.compile_report(3.0, arr).bisect(3.0, arr)
    assert found.first_bad is None and found.reference == "type_check"
    runs = dict(found.runs)
    assert runs["initial IR"] == runs["lower_ast"] == "not run: " + UNTYPED
    assert runs["scalarize"] == runs["lower_access"] == runs["jam"] == "same"
    assert "every pass after 'type_check' gives the same results" in repr(found)
    assert np.all(arr == 0.0) and np.all(y.to_numpy() == 0.0), "the user's data is untouched"


def test_a_broken_backend_pass_injected_through_the_pipeline_table(monkeypatch) -> None:
    broken = types.ModuleType("broken_add", "Turns an add into a sub (a test's broken pass).")
    broken.run = _flip_first_add
    monkeypatch.setitem(pipeline.BACKEND_PASSES, "cpu", (*pipeline.BACKEND_PASSES["cpu"], broken))
    k, x, y = make_kernel()
    arr = np.zeros(8, np.float32)
    report = k.compile_report(3.0, arr)
    assert report.passes[-1].name == "broken_add"
    found = report.bisect(3.0, arr)
    assert found.first_bad == "broken_add"
    assert dict(found.runs)["jam"] == "same" and dict(found.runs)["broken_add"] == "differs"
    assert any("field memory" in d for d in found.differences)  # y = 2*3 - 1, not + 1
    assert any("returned [320.0] instead of [448.0]" in d for d in found.differences)
    assert "'broken_add' is the first pass whose results differ from 'type_check'" in repr(found)
    assert np.all(arr == 0.0) and np.all(y.to_numpy() == 0.0)


def test_a_broken_simplify_pass_is_named_with_its_group(monkeypatch) -> None:
    real = alg_simp.run

    def run(kernel, ctx) -> bool:
        return real(kernel, ctx) | _flip_first_add(kernel, ctx)

    k, x, y = make_kernel()
    arr = np.zeros(8, np.float32)
    monkeypatch.setattr(alg_simp, "run", run)
    found = k.compile_report(3.0, arr).bisect(3.0, arr)
    assert found.first_bad == "alg_simp (simplify I)"
    assert found.runs.index(("scalarize", "same")) < len(found.runs)


def test_an_array_argument_that_differs_is_named() -> None:
    @ti.kernel
    def k(arr: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in arr:
            arr[i] = i * 0.5 + 2.0

    arr = np.ones(4, np.float32)
    found = k.compile_report(arr).bisect(arr)
    assert found.first_bad is None
    with pytest.MonkeyPatch.context() as patch:
        broken = types.ModuleType("broken_add", "Turns an add into a sub.")
        broken.run = _flip_first_add
        patch.setitem(pipeline.BACKEND_PASSES, "cpu", (broken,))
        found = k.compile_report(arr).bisect(arr)
    assert found.first_bad == "broken_add"
    assert found.differences == ["array argument 0: 4 elements differ, first at [0]: -2.0 vs 2.0"]
    assert np.all(arr == 1.0)


def test_on_the_gpu_fields_come_from_the_device_and_its_own_passes_run(monkeypatch) -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    x = ti.field(ti.f32, shape=16)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i + 0.5  # only on the device until something reads it

    @ti.kernel
    def k() -> ti.f32:
        total = 0.0
        for i in x:
            total += x[i] * 2.0
        return total

    fill()
    found = k.compile_report().bisect()
    assert found.first_bad is None and "pad_ndrange" in dict(found.runs)
    broken = types.ModuleType("broken_add", "Turns an add into a sub.")
    broken.run = _flip_first_add
    monkeypatch.setitem(pipeline.BACKEND_PASSES, "gpu", (*pipeline.BACKEND_PASSES["gpu"], broken))
    found = k.compile_report().bisect()
    assert found.first_bad == "broken_add"
    assert any(d.startswith("returned [") for d in found.differences), found.differences
