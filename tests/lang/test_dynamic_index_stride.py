"""`MatrixField._get_dynamic_index_stride()` against real Taichi 1.7.4: the byte distance from
one element of a matrix field to the next when every cell lays them out at one fixed distance,
else None. Both programs build the same layouts in a child process and print the answers."""

from __future__ import annotations

import textwrap

from tests.processes import printed_lines

PROGRAM = textwrap.dedent(
    """
    import {module} as ti
    from {module}.lang import impl

    def aos():  # one node holds the three components back to back
        return ti.Vector.field(3, ti.f32, shape=8)

    def path_lengths_differ():
        v = ti.Vector.field(2, ti.i32)
        ti.root.dense(ti.i, 8).place(v.get_scalar_field(0))
        ti.root.dense(ti.i, 2).dense(ti.i, 4).place(v.get_scalar_field(1))
        return v

    def cell_sizes_differ():
        v, t = ti.Vector.field(2, ti.i32), ti.field(ti.f32)
        ti.root.dense(ti.i, 8).place(v.get_scalar_field(0), t)
        ti.root.dense(ti.i, 8).place(v.get_scalar_field(1))
        return v

    def uneven_gaps():
        v, t = ti.Vector.field(3, ti.i32), ti.field(ti.f32)
        x, y, z = (v.get_scalar_field(i) for i in range(3))
        ti.root.dense(ti.i, 8).place(x, y, t, z)
        return v

    def soa():  # one dense node per component: 32 bytes apart
        v = ti.Vector.field(3, ti.i32)
        for i in range(3):
            ti.root.dense(ti.i, 8).place(v.get_scalar_field(i))
        return v

    def nested_aos():
        v = ti.Vector.field(2, ti.f32)
        ti.root.dense(ti.i, 4).dense(ti.j, 4).place(v)
        return v

    def aligned_after_a_byte():
        v, a = ti.Vector.field(2, ti.f64), ti.field(ti.i8)
        ti.root.dense(ti.ij, 4).place(a, v)
        return v

    def one_component():
        return ti.Vector.field(1, ti.f32, shape=3)

    for build in [aos, path_lengths_differ, cell_sizes_differ, uneven_gaps, soa, nested_aos,
                  aligned_after_a_byte, one_component]:
        ti.init(arch=ti.cpu)
        v = build()
        impl.get_runtime().materialize()
        print(build.__name__, v._get_dynamic_index_stride())
        ti.reset()
    """
)


def test_strides_match_taichi(tmp_path) -> None:
    ours = printed_lines(tmp_path / "ours.py", PROGRAM.format(module="tistudio"))
    theirs = printed_lines(tmp_path / "theirs.py", PROGRAM.format(module="taichi"))
    assert ours == theirs
    assert ours[0] == "aos 4" and ours[4] == "soa 32"  # the answers are not all None
