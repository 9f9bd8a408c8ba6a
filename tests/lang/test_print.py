"""`print` inside kernels and funcs, on the CPU and on the GPU (lavapipe): what it writes, that it
goes through `sys.stdout` after each launch (so pytest's capsys, like Jupyter, sees it), in
launch order, whole lines from parallel loops, a marker when the buffer overflows, and clear
errors for format specs that do not suit the value."""

from __future__ import annotations

import inspect
import os
import sys

import pytest

import tistudio as ti
from tistudio.backends.print_buffer import DEFAULT_CAPACITY
from tistudio.ir.interpreter import interpret
from tistudio.ir.printer import print_ir
from tistudio.lang import impl

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]


def _line_of(fn, text: str) -> int:  # noqa: ANN001
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("arch", ARCHES)
def test_scalars_sep_end_fstrings_percent_vectors_and_matrices(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.field(ti.f32, shape=3)
    x[1] = 0.25

    @ti.func
    def show(v):  # noqa: ANN001, ANN202
        print("func:", v * 2)

    @ti.kernel
    def k(n: ti.i32):
        a = 1.5
        v = ti.Vector([1, n, 3])
        m = ti.Matrix([[1.0, 2.5], [a, 4.0]])
        print(a, n)
        print(a, n, sep="|", end="!\n")
        print("x[1] =", x[1], "v =", v, "m =", m)
        print(f"a={a:.3f} n={n:5d} {{braces}} v={v} e={a:e} u={ti.u8(n):x}")
        print("%d items at %.2f, %s" % (n, a, v))  # noqa: UP031
        print(ti.u8(250), ti.i8(-3), ti.u32(4000000000), a > 1, ti.f64(a) / 3)
        print(1.5, 7, "text", [1, 2])
        show(v)

    k(7)
    assert capsys.readouterr().out == (
        "1.500000 7\n"
        "1.500000|7!\n"
        "x[1] = 0.250000 v = [1, 7, 3] m = [[1.000000, 2.500000], [1.500000, 4.000000]]\n"
        "a=1.500 n=    7 {braces} v=[1, 7, 3] e=1.500000e+00 u=7\n"
        "7 items at 1.50, [1, 7, 3]\n"
        "250 -3 4000000000 1 0.500000000000\n"
        "1.500000 7 text [1, 2]\n"
        "func: [2, 14, 6]\n"
    )


@pytest.mark.parametrize("arch", ARCHES)
def test_output_follows_launch_order_and_each_launch(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def k(i: ti.i32):
        print("kernel", i)

    print("before")
    k(1)
    print("between")
    k(2)
    sys.stdout.write("after\n")
    assert capsys.readouterr().out == "before\nkernel 1\nbetween\nkernel 2\nafter\n"


@pytest.mark.parametrize("arch", ARCHES)
def test_a_parallel_loop_of_many_prints_writes_whole_lines(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def k(n: ti.i32):
        for i in range(n):
            print("i =", i, "sq =", ti.i64(i) * i, "half =", i * 0.5)

    k(20000)
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(f"i = {i} sq = {i * i} half = {i * 0.5:f}" for i in range(20000))


@pytest.mark.parametrize("arch", ARCHES)
def test_a_full_buffer_drops_records_and_says_so(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def k(n: ti.i32):
        for i in range(n):
            print(i)

    fits = DEFAULT_CAPACITY // 2  # two words a record
    k(fits + 1000)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "[tistudio] print buffer overflowed: 1000 records dropped"
    assert len(lines) == fits + 1 and len(set(lines[:-1])) == fits
    k(3)  # the buffer is empty again
    assert sorted(capsys.readouterr().out.split()) == ["0", "1", "2"]


@pytest.mark.parametrize("arch", ARCHES)
def test_a_spec_that_does_not_suit_the_value_names_the_line(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)

    @ti.kernel
    def wrong_conversion():
        a = 1.5
        print(f"{a:d}")

    @ti.kernel
    def python_alignment():
        n = 3
        print(f"{n:<5}")

    @ti.kernel
    def bad_sep():
        print(1, sep=2)

    with pytest.raises(ti.TaichiTypeError, match="'d' doesn't match 'f32'") as info:
        wrong_conversion()
    assert str(_line_of(wrong_conversion, 'f"{a:d}"')) in str(info.value)
    with pytest.raises(ti.TaichiTypeError, match="not a valid printf format specifier"):
        python_alignment()
    with pytest.raises(ti.TaichiSyntaxError, match="sep must be a string"):
        bad_sep()


def test_print_stays_through_every_pass_and_the_interpreter_prints_the_same(capsys) -> None:
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def k(n: ti.i32):
        twice = n * 2
        print("n =", n, "twice is", twice, end=";\n")
        for i in range(2):
            print(f"{i:03d}")

    report = k.compile_report(5)
    assert len(report.passes) > 5
    for record in report.passes:  # the pass explorer shows the print after every pass
        assert 'print "n = {} twice is {};\\n"' in record.ir_text, record.name
    final = print_ir(report.result.final_ir)
    assert 'print "{:03d}\\n"' in final
    k(5)
    compiled = capsys.readouterr().out
    interpret(report.result.final_ir, [5], [t.buffer.copy() for t in impl.get_program().trees])
    assert capsys.readouterr().out == compiled == "n = 5 twice is 10;\n000\n001\n"


def test_a_kernel_from_the_disk_cache_still_prints(tmp_path, capsys) -> None:  # noqa: ANN001
    for _ in range(2):  # compile and save, then load
        ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))

        @ti.kernel
        def k(a: ti.f64):
            print(f"a = {a:.2f}", ti.Vector([a, 2 * a]))

        k(1.25)
    assert capsys.readouterr().out == "a = 1.25 [1.250000000000, 2.500000000000]\n" * 2


def test_static_print_runs_once_per_instantiation_and_static_assert_names_the_line(capsys) -> None:
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def k(n: ti.template()):
        ti.static_print("compiling for", n, f"{n / 4} {'x':>3}")  # compile-time: Python's str
        ti.static_assert(n > 0, "n must be positive")

    k(2)
    k(2)
    k(3)
    assert capsys.readouterr().out == "compiling for 2 0.5   x\ncompiling for 3 0.75   x\n"
    with pytest.raises(
        ti.TaichiSyntaxError, match="static assertion failed: n must be positive"
    ) as info:
        k(0)
    assert str(_line_of(k, "ti.static_assert")) in str(info.value)
