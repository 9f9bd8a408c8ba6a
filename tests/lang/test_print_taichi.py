"""`print` in kernels against real Taichi 1.7.4: one program runs under `taichi` and under
`tistudio` (CPU and lavapipe), each in a child process, and they must print the same lines.

Taichi's CPU `print` is C's `printf` on file descriptor 1, which bypasses `sys.stdout`, so the
oracle's output is taken from the child's stdout pipe. Loops are serialised so the order of lines
is defined. Spec errors print `ERR` and the last line of the error message.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.processes import printed_lines

PROGRAM = textwrap.dedent(
    """
    import sys
    import {module} as ti

    ti.init(arch=getattr(ti, sys.argv[1]))
    f = ti.field(ti.f32, shape=4)
    g = ti.Vector.field(3, ti.f64, shape=2)

    @ti.func
    def helper(v):
        print("in func", v, v.sum())

    @ti.kernel
    def scalars(n: ti.i32, x: ti.f32, d: ti.f64):
        print(n, x, d)
        print(n, x, d, sep="", end="|\\n")
        print(-n, -x, -d, sep=", ")
        print(ti.u8(n), ti.i8(-n), ti.u16(n * 1000), ti.i64(n) << 40, ti.u64(n) << 60)
        print(ti.u32(n) * 1000000000, ti.i32(n) * -300000000)
        print(x * 1e20, x * 1e-7, x / 3, d / 3, d * 1e30)
        print(x > 1, n == 7, "literal", 3, 2.5, True)
        zero = x - x
        print(1.0 / zero, -1.0 / zero)

    @ti.kernel
    def vectors(n: ti.i32, x: ti.f32):
        v = ti.Vector([n, n + 1, n + 2])
        w = ti.Vector([x, x * 2])
        m = ti.Matrix([[1, n], [n * n, 4]])
        mf = ti.Matrix([[x, 0.5], [1.5, x * x]])
        print(v, w)
        print(m, ti.Matrix([[n], [n + 1]]), ti.Matrix([[x, x]]))
        print(mf, g[1])
        print("v =", v, "w =", w, sep=" ")
        helper(w)
        f[2] = x
        print(f[2], f[3])

    @ti.kernel
    def fstrings(n: ti.i32, x: ti.f32, d: ti.f64):
        v = ti.Vector([x, x + 1])
        print(f"n={{n}} x={{x}} d={{d}} v={{v}}")
        print(f"{{n:d}} {{n:5d}} {{n:-5d}}| {{n:05d}} {{n:+d}} {{n: d}} {{n:.3}} {{n:%d}} {{n:ld}}")
        print(f"{{x:f}} {{x:e}} {{x:g}} {{x:E}} {{x:G}} {{x:F}} {{x:a}} {{x:.2f}} {{x:10.3f}}|")
        print(f"{{x:+.1e}} {{x:-10.2f}}| {{x:5}} {{x:.3}} {{x:5.1}} {{x:.0f}} {{x:08.3f}}")
        print(f"{{d:f}} {{d:e}} {{d:g}} {{d:.2f}} {{d:a}} {{d:.3a}}")
        u = ti.u32(n)
        print(f"{{u:x}} {{u:X}} {{u:o}} {{u:#x}} {{ti.u8(n * 50):x}} {{u:#o}}")
        print(f"{{v:.1f}} {{n}}{{x}}", f"{{n=}}")
        for i in range(3):
            ti.loop_config(serialize=True)
            print(f"i={{i}} i*x={{i * x:.2f}}")

    def error(body):
        @ti.kernel
        def k():
            n = 7
            x = 1.5
            body(n, x)

        try:
            k()
        except Exception as e:
            print("ERR", str(e).strip().splitlines()[-1], flush=True)

    scalars(7, 1.5, 2.25)
    ti.sync()
    g[1] = [1.0, 2.0, 3.0]
    vectors(3, 0.75)
    ti.sync()
    fstrings(42, 3.14159, -2.5)
    ti.sync()
    sys.stdout.flush()
    """
)
ERRORS = [
    'f"{{n:x}}"',
    'f"{{n:f}}"',
    'f"{{x:d}}"',
    'f"{{x:u}}"',
    'f"{{n:c}}"',
    'f"{{x:s}}"',
]


def _run(tmp_path, module: str, arch: str) -> list[str]:  # noqa: ANN001
    source = PROGRAM.format(module=module)
    for k, expr in enumerate(ERRORS):  # each error in a kernel of its own
        source += textwrap.dedent(
            f"""
            @ti.func
            def bad{k}(n, x):
                print({expr.format()})

            error(bad{k})
            """
        )
    return printed_lines(tmp_path / f"{module}_{arch}.py", source, arch)


@pytest.fixture(scope="module")
def taichi_lines(tmp_path_factory) -> list[str]:  # noqa: ANN001
    return _run(tmp_path_factory.mktemp("taichi"), "taichi", "cpu")


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_print_matches_taichi_line_for_line(taichi_lines, tmp_path, arch) -> None:  # noqa: ANN001
    ours = _run(tmp_path, "tistudio", arch)
    assert len(taichi_lines) >= 30
    assert ours == taichi_lines
