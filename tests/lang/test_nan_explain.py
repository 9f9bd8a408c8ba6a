"""Where a NaN came from: `explain_nan(field, index)` reruns the launch that last wrote the field
for one cell in the traced interpreter and names the source line that made the NaN or Inf
(issue #30)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang import impl
from tistudio.lang.nan_explain import explain_nan, record_writes


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init(arch=ti.cpu)
    record_writes()


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(n for n, line in enumerate(lines) if text in line)


def test_sqrt_of_a_negative_names_its_line_and_operand() -> None:
    x = ti.field(ti.f32, shape=(16, 16))
    y = ti.field(ti.f32, shape=(16, 16))

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i - 3.0

    @ti.kernel
    def step(s: ti.f32):
        for i, j in x:
            a = x[i, j] * s
            b = a + 1.0
            y[i, j] = ti.sqrt(b) * 2.0

    fill()
    step(2.0)
    assert math.isnan(y[1, 5])
    found = explain_nan(y, (1, 5))
    assert found.kernel_name.startswith("step")
    assert found.filename == __file__
    assert found.line == line_of(step, "ti.sqrt(b)")
    assert found.expression == "y[i, j] = ti.sqrt(b) * 2.0"
    assert found.operation == "sqrt(-3.0) = nan"
    assert found.operands == (-3.0,)
    text = repr(found)
    assert "y[1, 5] = nan from kernel step" in text and "sqrt(-3.0) = nan" in text
    assert explain_nan(y, (9, 5)).origin is None  # sqrt(13): finite
    assert repr(explain_nan(y, (9, 5))).startswith(
        "<y[9, 5] = 7.211102485656738: finite, nothing to explain"
    )


def test_the_origin_is_the_line_that_made_it_not_the_lines_it_flowed_through() -> None:
    a = ti.field(ti.f32, shape=64)
    out = ti.field(ti.f32, shape=64)

    @ti.kernel
    def k(z: ti.f32):
        for i in a:
            r = z / (i - 7.0)  # i == 7 with z == 0: 0/0
            t = r * 2.0
            if i > 3:
                t += 1.0
            out[i] = t - 1.0

    a.fill(1.0)
    k(0.0)
    found = explain_nan(out, 7)
    assert found.line == line_of(k, "r = z / (i - 7.0)")
    assert found.operation == "div(0.0, 0.0) = nan"
    assert found.origin.kind == "computed"


def test_inf_from_a_division_by_zero_in_an_ndrange_loop_with_ndarrays() -> None:
    out = ti.field(ti.f64, shape=(8, 4))

    @ti.kernel
    def k(src: ti.types.ndarray(dtype=ti.f64, ndim=2), dst: ti.types.ndarray(dtype=ti.f64, ndim=2)):
        for i, j in ti.ndrange(8, 4):
            dst[i, j] = src[i, j] * 5.0  # the rerun must not touch the caller's arrays
            out[i, j] = 1.0 / (src[i, j] - 2.0)

    src, dst = np.full((8, 4), 3.0), np.zeros((8, 4))
    src[3, 2] = 2.0
    k(src, dst)
    assert out[3, 2] == math.inf and dst[0, 0] == 15.0
    dst[:] = -1.0
    before = out.to_numpy()
    found = explain_nan(out, (3, 2))
    assert found.line == line_of(k, "out[i, j] = 1.0 /")
    assert found.operation == "div(1.0, 0.0) = inf"
    assert np.all(dst == -1.0), "the rerun writes a copy of the array, not the user's"
    np.testing.assert_array_equal(out.to_numpy(), before)  # nor the field


def test_the_last_launch_that_wrote_the_field_is_the_one_explained() -> None:
    v = ti.field(ti.f32, shape=8)

    @ti.kernel
    def logs():
        for i in v:
            v[i] = ti.log(i - 4.0)

    @ti.kernel
    def roots():
        for i in v:
            v[i] = ti.sqrt(i - 4.0)

    logs()
    assert explain_nan(v, 1).operation == "log(-3.0) = nan"
    roots()
    found = explain_nan(v, 1)
    assert found.operation == "sqrt(-3.0) = nan" and found.kernel_name.startswith("roots")
    assert found.line == line_of(roots, "ti.sqrt")
    assert explain_nan(v, 4).origin is None  # sqrt(0) is 0
    v[6] = math.nan  # from the host: the rerun of roots finds no NaN to explain it
    found = explain_nan(v, 6)
    assert found.origin is None and math.isnan(found.value)
    assert "rerunning roots" in found.verdict and "its inputs changed since?" in found.verdict


def test_a_nan_already_in_memory_is_reported_as_loaded() -> None:
    src = ti.field(ti.f32, shape=4)
    dst = ti.field(ti.f32, shape=4)

    @ti.kernel
    def copy():
        for i in src:
            dst[i] = src[i] + 1.0

    src.from_numpy(np.array([0.0, np.nan, 2.0, 3.0], dtype=np.float32))
    copy()
    found = explain_nan(dst, 1)
    assert found.origin.kind == "loaded"
    assert found.line == line_of(copy, "dst[i] = src[i] + 1.0")
    assert "read nan from memory the kernel did not write" in found.operation


def test_vector_fields_and_a_field_nobody_wrote() -> None:
    vel = ti.Vector.field(2, ti.f32, shape=4)
    never = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k():
        for i in vel:
            vel[i] = ti.Vector([1.0, ti.acos(1.0 + i)])

    k()
    found = explain_nan(vel, 2)
    assert found.operation == "acos(3.0) = nan"
    assert explain_nan(vel, 0).origin is None
    with pytest.raises(LookupError, match="no recorded launch wrote never"):
        explain_nan(never, 0)
    with pytest.raises(IndexError):
        explain_nan(vel, 9)


def test_the_log_starts_once_and_follows_ti_init_to_the_next_program() -> None:
    program = impl.get_program()
    log = record_writes()
    assert record_writes() is log and program.write_log is log
    v = ti.field(ti.f32, shape=2)

    @ti.kernel
    def k():
        for i in v:
            v[i] = ti.sqrt(-1.0 - i)

    k()
    assert len(log.last) == 1
    ti.init(arch=ti.cpu)
    assert impl.get_program().write_log is None
    x = ti.field(ti.f32, shape=2)

    @ti.kernel
    def k2():
        for i in x:
            x[i] = ti.log(-1.0 - i)

    k2()  # the first launch under the new program: the log moves there, forgetting the old
    assert impl.get_program().write_log is log and list(log.last) == [x.snode.ptr.id]
    assert explain_nan(x, 1).operation == "log(-2.0) = nan"


def test_a_kernel_the_offline_cache_loaded_is_compiled_again_to_explain_it(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.delenv("TISTUDIO_VERIFY_IR", raising=False)  # verifying compiles bypass it
    for run in range(2):  # compile and save, then load: no IR comes from the disk
        ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
        record_writes()
        x = ti.field(ti.f32, shape=(8, 8))
        v = ti.Vector.field(2, ti.f32, shape=(8, 8))

        @ti.kernel
        def k(a: ti.template(), b: ti.template(), c: ti.f32, scale: ti.template()):
            for i, j in a:
                b[i, j] = ti.Vector([a[i, j], ti.log(i - c) * scale[0]])

        k(x, v, 2.0, (3.0,))
        entry = k.instances()[0]
        assert (entry.result.cache, entry.result.final_ir is None) == (
            ("miss", False) if run == 0 else ("hit", True)
        )
        found = explain_nan(v, (1, 5))
        assert found.operation == "log(-1.0) = nan"
        assert found.line == line_of(k, "ti.log(i - c)")


def test_on_the_gpu_the_rerun_starts_from_the_devices_memory() -> None:
    ti.init(arch=ti.gpu, fallback_to_cpu=False)
    record_writes()
    x = ti.field(ti.f32, shape=(16, 16))
    y = ti.field(ti.f32, shape=(16, 16))

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i - 3.0  # only on the device until something reads it

    @ti.kernel
    def k(s: ti.f32):
        for i, j in x:
            y[i, j] = ti.sqrt(x[i, j] * s)

    fill()
    k(2.0)
    assert explain_nan(y, (1, 2)).operation == "sqrt(-4.0) = nan"


def test_the_write_log_does_not_keep_a_dropped_instance_alive() -> None:
    import gc
    import weakref

    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(a: ti.f32):
        for i in x:
            x[i] = ti.sqrt(a - i)

    log = record_writes()
    fill(1.0)
    assert log.writer_of(x) is not None
    impl.get_program().wait_for_optimised()
    instance = weakref.ref(fill.instances()[0].instance)
    gc.disable()
    try:
        fill._cache.clear()
        fill._fast.clear()
        assert instance() is None  # freed at once, the machine code with it
    finally:
        gc.enable()
    assert log.writer_of(x) is None  # the log forgets it: explain_nan asks for a new launch
    with pytest.raises(Exception, match="launch the kernel again"):
        explain_nan(x, 3)
