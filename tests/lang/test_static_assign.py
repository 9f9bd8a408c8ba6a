"""Two rules of Taichi's assignments: `n = ti.static(v)` names the compile-time value itself
(so `n` can size a matrix or unroll a loop), and a kernel's arguments are read-only (a
ti.func's parameters are its own copies)."""

from __future__ import annotations

import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu, offline_cache=False)


def test_a_static_assignment_names_the_value_itself() -> None:
    @ti.kernel
    def trace() -> ti.f32:
        n = ti.static(3)
        a, b = ti.static(2, 5)
        m = ti.Matrix.identity(ti.f32, n)  # needs a Python int
        total = 0.0
        for k in ti.static(range(a, b)):
            total += k
        return m.trace() + total

    assert trace() == 3 + (2 + 3 + 4)


@pytest.mark.parametrize("unpack", [False, True])
def test_a_static_value_cannot_be_stored_into_a_field(unpack: bool) -> None:
    x = ti.field(ti.i32, shape=2)

    @ti.kernel
    def bad():
        if ti.static(unpack):
            n, x[0] = ti.static(1, 2)
        else:
            x[1] = ti.static(3)

    match = r"not stored into x\[[01]\]: Static assign cannot be used on elements in arrays"
    with pytest.raises(ti.TaichiSyntaxError, match=match):
        bad()


@pytest.mark.parametrize("body", ["a = 3", "a += 1", "a, c = 1, 2"])
def test_a_kernel_argument_is_immutable(tmp_path, body: str) -> None:
    import importlib.util

    source = tmp_path / "kernel_args.py"
    source.write_text(
        "import tistudio as ti\n\n"
        "@ti.kernel\n"
        "def k(a: ti.i32) -> ti.i32:\n"
        "    c = 0\n"
        f"    {body}\n"
        "    return a + c\n"
    )
    spec = importlib.util.spec_from_file_location("kernel_args", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ti.TaichiSyntaxError, match='Kernel argument "a" is immutable') as e:
        module.k(1)
    assert body in str(e.value)


def test_a_funcs_parameters_and_copies_of_arguments_may_change() -> None:
    @ti.func
    def bump(a):
        a += 5
        return a

    @ti.kernel
    def k(b: ti.i32) -> ti.i32:
        c = b
        c += 1
        return bump(b) + c

    assert k(1) == 6 + 2
