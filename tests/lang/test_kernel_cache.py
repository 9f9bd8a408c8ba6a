"""Template signatures, the per-signature cache and its statistics, compile reports."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_template_signatures_follow_taichis_keying() -> None:
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.f32, shape=16)

    @ti.kernel
    def add(field: ti.template(), delta: ti.f32, n: ti.template(), arr: ti.types.ndarray()):
        for i in range(n):
            field[i] += delta + arr[i]

    a32 = np.ones(16, np.float32)
    add(x, 42, 4, a32)
    add(x, 1, 4, a32)  # scalars do not instantiate
    add(y, 1, 4, a32)  # another field does
    add(y, 1, 5, a32)  # another Python int does
    add(y, 1, 5, np.ones(16, np.float64))  # another ndarray dtype does
    rows = add.cache_info()
    assert [(r["hits"], r["misses"]) for r in rows] == [(1, 1), (0, 1), (0, 1), (0, 1)]
    assert [r["kernel"] for r in rows] == [f"add_c0_{k}" for k in range(4)]
    assert rows[0]["signature"] == (
        "field=field: f32[8], delta: f32 (runtime), n=4, arr: ndarray[float32, 1d]"
    )
    assert all(r["compile_ms"] > 0 for r in rows)
    np.testing.assert_array_equal(x.to_numpy()[:5], [45, 45, 45, 45, 0])  # (42+1) + (1+1)


def test_kernel_survives_reinit_and_recompiles() -> None:
    @ti.kernel
    def answer() -> ti.i32:
        return 42

    assert answer() == 42
    ti.init()
    assert answer() == 42
    assert [r["misses"] for r in answer.cache_info()] == [1]


def test_compile_report_lists_every_pass_and_machine_code() -> None:
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def k(v: ti.i32):
        for i in x:
            x[i] = v // 2

    report = k.compile_report(3)
    names = [r.name for r in report.passes]
    for required in (
        "initial IR",
        "lower_ast",
        "type_check",
        "offload",
        "demote_atomics",
        "demote_dense_struct_fors",
        "lower_access",
        "demote_operations",
    ):
        assert required in names
    assert all(r.doc and r.ir_text.startswith("kernel {") for r in report.passes)
    final = report.passes[-1].ir_text
    assert "offloaded range_for(0, 4)" in final and "floordiv" not in final
    assert "define void" in report.llvm_ir and report.assembly.strip()
    assert x.to_numpy().tolist() == [0, 0, 0, 0]  # a report compiles but does not launch


def test_print_ir_prints_each_pass(capsys: pytest.CaptureFixture[str]) -> None:
    ti.init(print_ir=True)

    @ti.kernel
    def k() -> ti.i32:
        return 1 + 2

    assert k() == 3
    out = capsys.readouterr().out
    assert "] lower_ast:\nkernel {" in out and "] offload:" in out


def test_compile_report_checks_its_arguments_like_a_call() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(a: ti.template(), value: ti.f32):
        for i in a:
            a[i] = value

    with pytest.raises(TypeError, match=r"kernel 'fill' takes 2 argument\(s\), 0 given"):
        fill.compile_report()
    report = fill.compile_report(x, value=2.0)  # keywords bind as in a call
    assert "fill" in report.name and report.passes
