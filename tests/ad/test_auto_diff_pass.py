"""The `auto_diff` and `determine_ad_stack_size` passes as the pass explorer shows them, the
adjoint kernel's own cache entries, and the errors for kernels autodiff cannot handle."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tistudio as ti
from tistudio.ir import walk
from tistudio.ir.statements import AdStackAlloca, AdStackPush


@pytest.fixture(autouse=True)
def cpu():
    ti.init(arch=ti.cpu)
    yield
    ti.reset()


def _stacks(kernel, *args) -> list[int]:
    report = kernel.grad.compile_report(*args)
    return [s.max_size for s in walk(report.result.final_ir.body) if isinstance(s, AdStackAlloca)]


def test_adjoint_is_an_instantiation_with_its_passes_recorded() -> None:
    x = ti.field(ti.f32, shape=8, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += ti.sin(x[i]) * x[i]

    x.from_numpy(np.linspace(0.1, 0.8, 8, dtype=np.float32))
    compute()
    after_primal = loss[None]
    compute.grad()
    primal, adjoint = compute.instances(), compute.grad.instances()
    assert len(primal) == len(adjoint) == 1
    assert primal[0].result is not adjoint[0].result
    report = compute.grad.compile_report()
    assert report.name == adjoint[0].name
    names = [p.name for p in report.passes]
    assert names.index("auto_diff") < names.index("offload")
    record = report.passes[names.index("auto_diff")]
    assert "chain rule" in record.doc
    assert "cos" in record.ir_text and "atomic add" in record.ir_text
    assert "auto_diff" not in [p.name for p in compute.compile_report().passes]
    # the forward atomic into `loss` is gone from the adjoint kernel: it leaves loss alone
    assert after_primal > 0.5 and loss[None] == after_primal


def test_adjoint_kernel_names_follow_taichi() -> None:
    x = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def double():
        for i in x:
            x[i] = x[i] * 2.0

    double.grad()
    final = double.grad.instances()[0].result.final_ir
    assert re.fullmatch(r"double_c\d+_0_reverse_grad", final.name)


def test_stack_sizes_come_from_constant_trip_counts() -> None:
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    n = ti.field(ti.i32, shape=())

    @ti.kernel
    def nested():
        for i in x:
            v = x[i]
            for _ in range(6):
                for _ in range(3):
                    v = ti.sin(v)
            x[i] = v

    @ti.kernel
    def runtime_bound():
        for i in x:
            v = x[i]
            for _ in range(n[None]):
                v = ti.sin(v)
            x[i] = v

    assert set(_stacks(nested)) == {18}
    assert set(_stacks(runtime_bound)) == {32}  # Taichi's default_ad_stack_size
    with pytest.warns(UserWarning, match=r"^autodiff: .* 32 values") as caught:
        runtime_bound.grad()
    # shown at the kernel's `v = ti.sin(v)`, whose values the stack keeps, not inside tistudio
    (warning,) = [w for w in caught if "32 values" in str(w.message)]
    assert warning.filename == __file__
    assert warning.lineno == runtime_bound.fn.__code__.co_firstlineno + 5


def test_ad_stack_size_sets_the_size_for_run_time_bounds() -> None:
    ti.init(arch=ti.cpu, ad_stack_size=100, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=2, needs_grad=True)
    n = ti.field(ti.i32, shape=())

    @ti.kernel
    def many():
        for i in x:
            v = x[i]
            for _ in range(n[None]):
                v = ti.sin(v) + 0.01
            x[i] = v

    n[None] = 90  # more than 32: right only with the larger stack
    x.from_numpy(np.array([0.5, 1.0]))
    assert set(_stacks(many)) == {100}
    x.grad.fill(1.0)
    with pytest.warns(UserWarning, match="100 values"):
        many.grad()
    expected = []
    for v in (0.5, 1.0):
        d = 1.0
        for _ in range(90):
            d *= np.cos(v)
            v = np.sin(v) + 0.01
        expected.append(d)
    np.testing.assert_allclose(x.grad.to_numpy(), expected, rtol=1e-10)


def test_stack_records_values_only_where_needed() -> None:
    """`v * 2.0` needs no record of v; `sin(v)` does (its derivative reads v)."""
    x = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def linear():
        for i in x:
            v = x[i]
            for _ in range(4):
                v = v * 2.0 + 1.0
            x[i] = v

    @ti.kernel
    def nonlinear():
        for i in x:
            v = x[i]
            for _ in range(4):
                v = ti.sin(v) + 1.0
            x[i] = v

    assert _stacks(linear) == []
    assert _stacks(nonlinear) == [4]
    linear.grad()
    final = linear.grad.instances()[0].result.final_ir
    assert not any(isinstance(s, AdStackPush) for s in walk(final.body))


def _error_line(fn) -> str:
    with pytest.raises(ti.TaichiSyntaxError) as info:
        fn()
    return str(info.value)


def test_kernel_simplicity_rule_names_the_line() -> None:
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    total = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def mixed():
        total[None] = 1.0
        for i in x:
            total[None] += x[i]

    message = _error_line(mixed.grad)
    assert "kernel simplicity rule" in message and "total[None] = 1.0" in message


def test_unsupported_constructs_are_clear_errors() -> None:
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    m = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def with_while():
        for i in x:
            v = x[i]
            while v < 10.0:
                v = v * 2.0
            x[i] = v

    @ti.kernel
    def with_atomic_max():
        for i in x:
            ti.atomic_max(m[None], x[i])

    assert "'While' cannot be differentiated" in _error_line(with_while.grad)
    assert "atomic max" in _error_line(with_atomic_max.grad)


def test_tape_checks_its_loss() -> None:
    x = ti.field(ti.f32, shape=4, needs_grad=True)
    plain = ti.field(ti.f32, shape=())
    with pytest.raises(RuntimeError, match="0-D field"):
        with ti.ad.Tape(loss=x):
            pass
    with pytest.raises(RuntimeError, match="needs_grad=True"):
        with ti.ad.Tape(loss=plain):
            pass


def test_grad_for_needs_a_grad_replaced_primal() -> None:
    with pytest.raises(RuntimeError, match="grad_replaced"):
        ti.ad.grad_for(lambda: None)


def test_reference_interpreter_runs_the_adjoint_like_the_cpu() -> None:
    """The IR interpreter (stack statements included) agrees with the compiled adjoint."""
    from tistudio.ir.interpreter import interpret
    from tistudio.lang import impl

    x = ti.field(ti.f64, shape=5, needs_grad=True)
    y = ti.field(ti.f64, shape=5, needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            v = x[i]
            for k in range(3):
                if v > 0.5:
                    v = ti.sin(v) * v + k
                else:
                    v = ti.exp(v * 0.5)
            y[i] = v

    x.from_numpy(np.array([0.2, 0.7, 1.4, -0.3, 0.9]))
    compute()
    y.grad.fill(1.0)
    final = compute.grad.compile_report().result.final_ir
    program = impl.get_program()
    trees = [t.buffer.copy() for t in program.trees]
    interpret(final, [], trees)
    compute.grad()
    assert np.abs(x.grad.to_numpy()).max() > 0.1
    for tree, buffer in zip(program.trees, trees):  # all f64: libm and LLVM may differ in an ulp
        np.testing.assert_allclose(tree.buffer.view(np.float64), buffer.view(np.float64), 1e-13)
