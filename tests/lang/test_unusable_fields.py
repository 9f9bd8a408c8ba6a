"""Fields whose memory a kernel must not use: one kept across `ti.init()` or `ti.reset()`
belongs to the program that ended, and one whose tree could not be allocated has no memory. A
kernel using either is refused at the line that uses it, and so is reading it. Before, a kernel
compiled for the new program with the old field's layout: an IndexError at launch, or, where
the new program had a smaller tree, writes past its end (segmentation fault); and after a
failed allocation every later field failed the same way."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import tistudio as ti
from tests.processes import run_script
from tistudio.frontend.errors import TaichiSyntaxError
from tistudio.studio.panel import fields_in


def test_a_kernel_refuses_a_field_argument_of_an_ended_program() -> None:
    ti.init(arch=ti.cpu)
    old = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill(f: ti.template()):
        for i in f:  # the loop over the old field
            f[i] = i

    fill(old)
    ti.init(arch=ti.cpu)
    with pytest.raises(TaichiSyntaxError, match="ended: create it again") as caught:
        fill(old)
    assert "for i in f:  # the loop over the old field" in str(caught.value)
    new = ti.field(ti.f32, shape=4)
    fill(new)  # the same kernel, with a field of the new program
    assert new.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_kernel_refuses_an_element_of_an_ended_programs_global_vector_field() -> None:
    ti.init(arch=ti.cpu)
    velocity = ti.Vector.field(2, ti.f32, shape=4)
    ti.init(arch=ti.cpu)
    out = ti.field(ti.f32, shape=4)

    @ti.kernel
    def speed():
        for i in range(4):
            out[i] = velocity[i].norm()  # the old field

    with pytest.raises(TaichiSyntaxError, match="ended") as caught:
        speed()
    assert "# the old field" in str(caught.value)


def test_reading_a_field_after_reset_is_refused_even_once_read_before() -> None:
    ti.init(arch=ti.cpu)
    x = ti.field(ti.i32, shape=3)
    x.fill(7)
    assert x.to_numpy().tolist() == [7, 7, 7]  # its NumPy view is cached now
    ti.reset()
    with pytest.raises(RuntimeError, match="ended: create it again"):
        x.to_numpy()
    with pytest.raises(RuntimeError, match="ended"):
        x[0]  # noqa: B018


def test_the_studio_lists_only_fields_a_kernel_may_use() -> None:
    ti.init(arch=ti.cpu)
    old = ti.field(ti.f32, shape=2)
    ti.init(arch=ti.cpu)
    huge = ti.field(ti.f32, shape=(2**24, 2**24))  # 1 PiB: never allocated
    with pytest.raises(MemoryError):
        huge.to_numpy()
    new = ti.Vector.field(2, ti.f32, shape=2)
    assert list(fields_in({"old": old, "huge": huge, "new": new})) == ["new"]


def test_a_field_kept_across_init_is_an_error_not_a_crash(tmp_path: Path) -> None:
    done = run_script(
        tmp_path / "stale.py",
        textwrap.dedent(
            """
            import tistudio as ti
            ti.init(arch=ti.cpu)
            big = ti.field(ti.f32, shape=1_000_000)

            @ti.kernel
            def fill(f: ti.template()):
                for i in f:
                    f[i] = i

            fill(big)
            ti.init(arch=ti.cpu)
            small = ti.field(ti.f32, shape=4)
            small.fill(0)
            try:
                fill(big)
            except SyntaxError as e:
                print("refused")
            """
        ),
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-800:]}"
    assert done.stdout.strip() == "refused"


DISCARDED = textwrap.dedent(
    """
    import tistudio as ti
    ti.init(arch=ti.cpu)
    huge = ti.field(ti.f32, shape=(2**24, 2**24))  # 1 PiB: beyond the address space
    beside = ti.field(ti.i32, shape=3)
    try:
        huge[0, 0] = 1.0
    except MemoryError as e:
        print("MemoryError:", e)
    later = ti.field(ti.f32, shape=4)
    later[1] = 2.0  # allocated in a tree of its own

    @ti.kernel
    def fill(f: ti.template()):
        for i in f:
            f[i] = 1

    fill(later)
    print(later.to_numpy().tolist())
    for field in (beside, huge):
        for use in (fill, lambda f: f.to_numpy()):
            try:
                use(field)
            except (SyntaxError, RuntimeError) as e:
                print(type(e).__name__, str(e).splitlines()[-1])
    """
)


def test_a_failed_allocation_discards_its_fields_and_later_ones_work(tmp_path: Path) -> None:
    # in a subprocess: a kernel given a discarded field wrote past the next tree's end
    done = run_script(tmp_path / "discarded.py", DISCARDED)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-800:]}"
    lines = done.stdout.splitlines()
    assert lines[0].startswith("MemoryError: cannot allocate 1,048,576.0 GiB")
    assert "(f32[16777216, 16777216], i32[3])" in lines[0]
    assert lines[1] == "[1.0, 1.0, 1.0, 1.0]"
    refused = "was discarded when its memory could not be allocated"
    assert lines[2:] == 2 * [
        f"TaichiSyntaxError this field {refused}",
        f"RuntimeError this field {refused}",
    ]
