"""Reverse-mode autodiff through sparse fields against real Taichi 1.7.4: `lazy_grad` places each
gradient beside its primal under the same pointer or bitmasked node, a struct-for over the active
cells accumulates the loss, and `ti.ad.Tape` fills the gradients of the active cells only. The
same program runs under Taichi (CPU) and tistudio (CPU and lavapipe) in child processes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tests.processes import printed_lines

PROGRAM = textwrap.dedent(
    """
    import sys
    import {module} as ti

    ti.init(arch=getattr(ti, sys.argv[1]))
    for kind in ("pointer", "bitmasked"):
        x, y = ti.field(ti.f32), ti.field(ti.f32)
        loss = ti.field(ti.f32, shape=(), needs_grad=True)
        block = getattr(ti.root, kind)(ti.i, 4).dense(ti.i, 4)
        block.place(x, y)
        ti.root.lazy_grad()
        for i in (1, 2, 9, 14):
            x[i] = i * 0.5
            y[i] = 3.0 - i

        @ti.kernel
        def energy():
            for i in x:
                loss[None] += x[i] ** 2 * y[i] + ti.sin(y[i])

        with ti.ad.Tape(loss=loss):
            energy()
        grads = x.grad.to_numpy().tolist() + y.grad.to_numpy().tolist()
        print(kind, [loss[None]] + grads)
        ti.reset()
        ti.init(arch=getattr(ti, sys.argv[1]))
    """
)


@pytest.mark.parametrize("arch", ["cpu", "vulkan"])
def test_gradients_of_sparse_fields_match_taichi(tmp_path, arch: str) -> None:
    theirs = printed_lines(tmp_path / "theirs.py", PROGRAM.format(module="taichi"), "cpu")
    ours = printed_lines(tmp_path / "ours.py", PROGRAM.format(module="tistudio"), arch)
    assert len(ours) == 2 and ours[0].startswith("pointer")
    for mine, want in zip(ours, theirs, strict=True):
        kind, values = mine.split(" ", 1)
        want_kind, want_values = want.split(" ", 1)
        got, expected = ast.literal_eval(values), ast.literal_eval(want_values)
        # the loss, x.grad of the 4 written cells, y.grad (x² + cos y) of the 12 active cells
        assert kind == want_kind and sum(v != 0 for v in got) == 1 + 4 + 12
        assert got == pytest.approx(expected, rel=1e-5), (mine, want)
