"""Structs as Taichi 1.7.4 makes them: `ti.Struct(...)` in both scopes, struct types called
with one value, nested members given as dicts."""

from __future__ import annotations

import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_struct_literals_in_a_kernel_type_members_by_their_values() -> None:
    x = ti.Struct.field({"a": ti.i32, "b": ti.f32}, shape=4)
    out = ti.field(ti.f32, shape=4)

    @ti.kernel
    def run():
        for i in x:
            x[i] = ti.Struct(a=2 * i, b=0.5 * i)
        c = ti.Struct({"a": 2, "b": 3})
        d = c  # a copy: writing d leaves c alone
        d.a = 5
        s = ti.Struct(v=ti.Vector([0, 1, 2]), n=2, inner={"u": 1.5})
        out[0] = c.a
        out[1] = d.a
        out[2] = s.v[2] + s.n
        out[3] = s.inner.u

    run()
    assert [x[3].a, x[3].b] == [6, 1.5]
    assert out.to_numpy().tolist() == [2, 5, 4, 1.5]


def test_struct_type_called_with_one_value_fills_its_first_member() -> None:
    vec3f = ti.types.vector(3, float)
    line3f = ti.types.struct(linedir=vec3f, length=float)
    mystruct = ti.types.struct(line=line3f, idx=int)
    y = mystruct.field(shape=2)

    @ti.kernel
    def run():
        for i in y:
            y[i] = mystruct(1)

    run()
    assert y[1].line.linedir.to_list() == [1, 1, 1]
    assert (y[1].line.length, y[1].idx) == (0, 0)
    y[0] = mystruct(3)  # Python scope alike
    assert y[0].line.linedir.to_list() == [3, 3, 3] and y[0].line.length == 0
    y[0] = ti.Struct({"line": {"linedir": vec3f(2), "length": 0.5}, "idx": 7})
    assert (y[0].line.linedir.to_list(), y[0].line.length, y[0].idx) == ([2, 2, 2], 0.5, 7)


def test_python_scope_struct_constructor_forms() -> None:
    p = ti.Struct(a=[1, 2], b=3.5)
    q = ti.Struct({"a": 1, "inner": {"c": 2.0}})
    assert p.a.to_list() == [1, 2] and p.b == 3.5
    assert q.inner.c == 2.0
    with pytest.raises(ti.TaichiSyntaxError, match="dictionary or keyword arguments"):
        ti.Struct(1, 2)


def test_struct_types_cast_python_scope_members_to_their_types() -> None:
    vec2i = ti.types.vector(2, int)
    structi = ti.types.struct(a=int, b=vec2i, c=ti.u8)
    structf = ti.types.struct(a=float, b=ti.types.vector(2, float))
    s, t = structi(2.5, (2.5, 2.5), 3.7), structf(2, (2, 2))
    assert (s.a, s.b.to_list(), s.c) == (2, [2, 2], 3)
    assert isinstance(s.a, int) and isinstance(t.a, float) and t.b.to_list() == [2.0, 2.0]


def test_python_scope_struct_with_vector_members_in_a_func() -> None:
    @ti.dataclass
    class Pair:
        p1: ti.math.vec3
        p2: ti.math.vec3

    offset = Pair(p1=[0, 2, 4], p2=[-2, -4, -6])  # lists become the members' vectors
    out = Pair.field(shape=2)

    @ti.kernel
    def run():
        for i in out:
            out[i].p1 = (out[i].p1 + 2) / 2 + offset.p1

    run()
    assert out[1].p1.to_list() == [1, 3, 5]


def test_struct_fields_are_template_arguments_with_a_dtype() -> None:
    pair = ti.types.struct(a=ti.i32, b=ti.math.vec2)
    f = pair.field(shape=2)

    @ti.kernel
    def run(x: ti.template()):
        for i in x:
            x[i].a = i + 1

    run(f)
    assert f.dtype is pair and f.a.to_numpy().tolist() == [1, 2]
