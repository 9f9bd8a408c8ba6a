"""`str.format` and f-strings in kernels' `print`, with Taichi 1.7.4's rules: which argument a
field takes (`{}` counts on its own beside `{1}`), the checks of arguments against fields, a spec
on a compile-time number printed by the kernel (`{:.10d}` of `3` is `0000000003`) while a field
without one is Python's text (`{True}` is `True`), specs applied element by element to vectors
and matrices, spec/type mismatches, and `print` of a value cast to `bool` (a `u1`).

The text is compared with real Taichi (a child process each, as in `test_print_taichi.py`) and,
for the parts Taichi's own tests pin down, with literal expected text.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import textwrap

import pytest

import tistudio as ti
from tests.processes import printed_lines

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]

PROGRAM = textwrap.dedent(
    """
    import sys
    import {module} as ti

    ti.init(arch=getattr(ti, sys.argv[1]))
    z = ti.Matrix.field(2, 2, dtype=ti.i32, shape=())

    @ti.kernel
    def f(k: ti.f32, n: ti.i32, d: ti.f64):
        z[None][0, 1] = n
        v = ti.Vector([k, 2 * k])
        m = ti.Matrix([[2e1, 3e2], [5e4, 6e5]], ti.f32)
        print("{{}} and {{}}".format(n, v))
        print("{{:.3f}} {{:e}} {{:.2}}".format(v, m, k), "|", end="")
        print("{{:5d}}|{{:x}}".format(z[None], ti.u32(n)))
        print("{{1}} {{0}} {{}} {{k}} {{k:.1f}} {{n:d}}".format(n, k, k=k, n=7))
        print("{{:i}} {{:.1}} {{:.10d}} {{:.3G}} {{:.4f}}".format(1, 2, 3, 123.4, 456.7))
        print("{{}} {{}} {{}} {{}}".format(True, 1.23, "txt", 4), "{{0}}{{0}}".format(n))
        print(f"{{True}} {{1.23}} {{4}} {{n}} {{k:.1f}} {{1.5:.2f}} {{2:5d}}", end=" ")
        print(f"{{v}} {{v:.1f}} {{m:g}}")
        print(f"{{n = }}", f"{{k = :.2f}}", f"{{v = }}")
        print(ti.cast(123.4, bool), ti.cast(n, bool), ti.cast(0, bool))
        print("{{:e}} {{:.3}}".format(d, d), f"{{d:g}}", "plain {{}}".format("x"))

    f(233.3, 42, 2.5)
    ti.sync()
    sys.stdout.flush()
    """
)


def _run(tmp_path, module: str, arch: str) -> list[str]:  # noqa: ANN001
    return printed_lines(tmp_path / f"{module}_{arch}.py", PROGRAM.format(module=module), arch)


@pytest.fixture(scope="module")
def taichi_lines(tmp_path_factory) -> list[str]:  # noqa: ANN001
    return _run(tmp_path_factory.mktemp("taichi"), "taichi", "cpu")


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_format_prints_what_taichi_prints(taichi_lines, tmp_path, arch) -> None:  # noqa: ANN001
    assert len(taichi_lines) == 9
    assert _run(tmp_path, "tistudio", arch) == taichi_lines


@pytest.mark.parametrize("arch", ARCHES)
def test_fields_numbering_specs_and_python_text(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, offline_cache=False)
    x = ti.Matrix.field(2, 2, dtype=ti.f32, shape=())

    @ti.kernel
    def k(a: ti.f32, n: ti.i32):
        x[None][1, 0] = a
        print("{2} {} {1} {k} {0} {k}".format(3, 2, 1, k=n))  # noqa: F525
        print("{:.10d} {:.1} {name:i} {0:.2}".format(3, 2.25, name=999), end="|\n")  # noqa: F525
        print("m = {:.1f}".format(x[None]), f"{x[None]:.2e}")  # noqa: UP032
        print(f"{True} {1.23} {n:05d} {ti.cast(a, bool)} {ti.cast(7, bool)}")

    k(-1.5, 42)
    assert capsys.readouterr().out == (
        "1 3 2 42 3 42\n"
        "0000000003 2.2 999 03|\n"
        "m = [[0.0, 0.0], [-1.5, 0.0]] [[0.00e+00, 0.00e+00], [-1.50e+00, 0.00e+00]]\n"
        "True 1.23 00042 1 1\n"
    )


def _line_of(fn, text: str) -> int:  # noqa: ANN001
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


BAD = [
    ('"{0} {1} {2}".format(1, 2, 3, 4)', ti.TaichiSyntaxError, "Expected 3 positional argument"),
    ('"{0} {1} {2}".format(1, 2)', ti.TaichiSyntaxError, r"but received 2 instead\."),
    ('"{0} {0}".format(1, 2)', ti.TaichiSyntaxError, "Expected 1 positional argument"),
    ('"".format(k=n)', ti.TaichiSyntaxError, "Keyword 'k' not used."),
    ('"{k}".format()', ti.TaichiSyntaxError, "Keyword 'k' not found."),
    ('"{:u}".format(n + 1)', ti.TaichiTypeError, "'u' doesn't match 'i32'."),
    ('"{:.2d}".format(ti.Vector([x, x]))', ti.TaichiTypeError, "'.2d' doesn't match 'f32'."),
    ('"{:- #0.233lli}".format(x)', ti.TaichiTypeError, "'- #0.233lli' doesn't match 'f32'."),
    ('f"{2:.2f}"', ti.TaichiTypeError, "'.2f' doesn't match 'i32'."),
    ('"{:d}".format(1.5)', ti.TaichiTypeError, "'d' doesn't match 'f32'."),
]


@pytest.mark.parametrize("expr,error,phrase", BAD)
def test_mismatches_raise_taichis_error_at_the_line(expr, error, phrase, tmp_path) -> None:  # noqa: ANN001
    ti.init(arch=ti.cpu, offline_cache=False)
    path = tmp_path / "bad_format.py"  # a kernel per case, in a file so its source can be read
    path.write_text(
        "import tistudio as ti\n\n\n@ti.kernel\n"
        f"def bad(n: ti.i32, x: ti.f32):\n    print({expr})\n"
    )
    spec = importlib.util.spec_from_file_location("bad_format", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(error, match=phrase) as info:
        module.bad(1, 2.0)
    assert isinstance(info.value, ti.TaichiCompilationError)
    assert f"line 6:\n    print({expr})" in str(info.value)


def test_an_error_names_the_users_line() -> None:
    ti.init(arch=ti.cpu, offline_cache=False)

    @ti.kernel
    def bad(n: ti.i32):
        print("{} {}".format(n))  # noqa: F524

    with pytest.raises(ti.TaichiSyntaxError, match="Expected 2 positional") as info:
        bad(1)
    assert f"line {_line_of(bad, 'format(n)')}" in str(info.value)
