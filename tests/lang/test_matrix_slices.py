"""Slices of vectors and matrices in kernels, as Taichi 1.7.4 has them: `m[i, :]` (a row,
`i` maybe a run-time value), `m[:, j]`, `m[0:2, 1:3]` (a matrix), `v[1:3]`, `v[::2]`, of local
variables, of values and of field elements; the same program runs under real Taichi and under
tistudio (CPU and GPU) and must print the same lines (Python-scope vectors and matrices print
as Taichi's do, NumPy's text)."""

from __future__ import annotations

import textwrap

import pytest

from tests.processes import printed_lines

PROGRAM = textwrap.dedent(
    """
    import sys
    import {module} as ti

    ti.init(arch=getattr(ti, sys.argv[1]))
    x = ti.Vector.field(4, ti.i32, shape=2)

    @ti.kernel
    def rows(i: ti.i32) -> ti.types.vector(3, ti.i32):
        m = ti.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        return m[i, :] + m[:, 2] * 10

    @ti.kernel
    def blocks() -> ti.i32:
        m = ti.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        b = m[0:2, 1:3]
        c = (m * 2)[1:, ::2]
        return b[1, 1] + b.n * 10 + b.m * 100 + c[1, 1] * 1000

    @ti.kernel
    def vectors() -> ti.i32:
        v = ti.Vector([1, 2, 3, 4])
        x[0] = [5, 6, 7, 8]
        w = v[1:3] + x[0][2:]
        return w[0] * 100 + w[1] + v[::2][1] * 10000

    for i in range(3):
        print(rows(i).to_numpy().tolist())
    print(blocks())
    print(vectors())
    print(rows(1), ti.Matrix([[1.5, 2], [3, 4]]))  # a Python-scope matrix prints as NumPy's
    """
)


@pytest.fixture(scope="module")
def taichi_lines(tmp_path_factory) -> list[str]:  # noqa: ANN001
    return printed_lines(
        tmp_path_factory.mktemp("taichi") / "slices.py", PROGRAM.format(module="taichi"), "cpu"
    )


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_slices_give_what_taichi_gives(taichi_lines, tmp_path, arch) -> None:  # noqa: ANN001
    assert len(taichi_lines) == 7
    ours = printed_lines(tmp_path / "slices.py", PROGRAM.format(module="tistudio"), arch)
    assert ours == taichi_lines


def test_a_slice_with_run_time_bounds_is_refused(tmp_path) -> None:  # noqa: ANN001
    source = textwrap.dedent(
        """
        import tistudio as ti
        ti.init(arch=ti.cpu)

        @ti.kernel
        def k(n: ti.i32) -> ti.i32:
            v = ti.Vector([1, 2, 3, 4])
            return v[0:n][0]

        try:
            k(2)
        except ti.TaichiSyntaxError as e:
            print(str(e).splitlines()[-1])
        """
    )
    lines = printed_lines(tmp_path / "bad.py", source)
    assert lines == [
        "a slice of a vector or matrix needs bounds known at compile time (numbers or "
        "ti.static values)"
    ]
