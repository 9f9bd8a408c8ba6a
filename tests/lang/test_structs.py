"""Structs end to end: dataclass methods, struct fields, locals, literals, returns."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


@ti.dataclass
class Particle:
    x: ti.math.vec2
    v: ti.math.vec2
    m: ti.f32

    @ti.func
    def kinetic(self):  # noqa: ANN201
        return 0.5 * self.m * self.v.dot(self.v)

    @ti.func
    def step(self, dt):  # noqa: ANN001, ANN201
        self.x += self.v * dt


def test_dataclass_fields_locals_methods_and_returns() -> None:
    ps = Particle.field(shape=4)

    @ti.kernel
    def init():
        for i in ps:
            ps[i] = Particle(x=ti.Vector([i, 0.0]), v=ti.Vector([1.0, i]), m=2.0)

    @ti.kernel
    def advance(dt: ti.f32) -> ti.f32:
        e = 0.0
        for i in range(4):
            p = ps[i]
            p.step(dt)
            p.v.y += 1
            ps[i] = p
            e += p.kinetic()
        ps[0].m = 5.0
        return e

    @ti.kernel
    def second() -> Particle:
        return ps[1]

    init()
    assert advance(0.5) == sum(1 + (i + 1) ** 2 for i in range(4))
    arrays = ps.to_numpy()
    np.testing.assert_array_equal(arrays["x"], [[i + 0.5, 0.5 * i] for i in range(4)])
    np.testing.assert_array_equal(arrays["m"], [5, 2, 2, 2])
    p = second()
    assert p.x.to_list() == [1.5, 0.5] and p.m == 2.0


def test_struct_field_from_dicts_and_nested_members() -> None:
    inner = ti.types.struct(a=ti.i32, b=ti.math.vec3)
    outer = ti.types.struct(s=inner, w=ti.f32)
    f = ti.Struct.field({"s": inner, "w": ti.f32}, shape=3)

    @ti.func
    def bump(o):
        o.s.b.z += o.s.a
        return o

    @ti.kernel
    def k():
        for i in f:
            o = outer(s=inner(a=i, b=ti.Vector([0, 0, 1])), w=0.5)
            f[i] = bump(o)
            f[i].s.b.x = f[i].w * 2

    k()
    got = f.to_numpy()
    np.testing.assert_array_equal(got["s"]["a"], [0, 1, 2])
    np.testing.assert_array_equal(got["s"]["b"], [[1, 0, 1], [1, 0, 2], [1, 0, 3]])
    f.from_numpy({"w": np.array([1, 2, 3], np.float32)})
    assert f.w.to_numpy().tolist() == [1, 2, 3]
