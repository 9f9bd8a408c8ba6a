"""`@ti.data_oriented` classes: kernels and funcs as methods, `self` as a template argument.

Each expectation was checked against Taichi 1.7.4 with the same program."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang.data_oriented import data_oriented


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def _scaled_class() -> type:
    @data_oriented
    class Scaled:
        def __init__(self, n: int, k: int) -> None:
            self.n = n
            self.k = k  # a plain attribute: a compile-time constant of the kernels
            self.x = ti.field(ti.i32, shape=n)

        @ti.func
        def term(self, i):
            return i * self.k

        @ti.func
        def store(self, i):
            self.x[i] = self.term(i)  # a func method calling another

        @ti.kernel
        def fill(self):
            for i in self.x:
                self.store(i)

        @ti.kernel
        def total(self, extra: ti.i32) -> ti.i32:
            s = extra
            for i in ti.static(range(self.n)):  # ti.static on a plain attribute
                s += self.x[i]
            return s

    return Scaled


def test_kernels_and_funcs_as_methods_reach_the_instances_fields() -> None:
    Scaled = _scaled_class()
    a, b = Scaled(4, 2), Scaled(5, 3)
    a.fill()
    b.fill()
    np.testing.assert_array_equal(a.x.to_numpy(), [0, 2, 4, 6])
    np.testing.assert_array_equal(b.x.to_numpy(), [0, 3, 6, 9, 12])
    assert a.total(100) == 112
    assert b.total(0) == 30


def test_each_instance_compiles_once_and_instances_never_share_code() -> None:
    Scaled = _scaled_class()
    a, b = Scaled(4, 2), Scaled(4, 2)
    a.fill()
    a.fill()
    b.fill()
    rows = Scaled.fill.cache_info()  # read through the class: the kernel itself
    assert [(r["hits"], r["misses"]) for r in rows] == [(1, 1), (0, 1)]


def test_a_plain_attribute_is_read_when_the_kernel_compiles() -> None:
    Scaled = _scaled_class()
    a = Scaled(4, 2)
    a.fill()
    a.k = 100  # as in Taichi: the compiled kernel keeps the value it was compiled with
    a.fill()
    np.testing.assert_array_equal(a.x.to_numpy(), [0, 2, 4, 6])


def test_instances_of_a_class_that_compares_by_value_keep_their_own_fields() -> None:
    @data_oriented
    class Same:
        def __init__(self, value: int) -> None:
            self.x = ti.field(ti.i32, shape=())
            self.value = value

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Same)

        def __hash__(self) -> int:
            return 0

        @ti.kernel
        def put(self):
            self.x[None] = self.value

    a, b = Same(1), Same(2)
    a.put()
    b.put()
    assert (a.x[None], b.x[None]) == (1, 2)


def test_a_subclass_overrides_a_func_its_base_kernel_calls() -> None:
    Scaled = _scaled_class()

    class Shifted(Scaled):  # inherits @data_oriented
        @ti.func
        def term(self, i):
            return i + self.k

    s = Shifted(4, 7)
    s.fill()
    np.testing.assert_array_equal(s.x.to_numpy(), [7, 8, 9, 10])


def test_a_data_oriented_member_of_a_data_oriented_instance() -> None:
    Scaled = _scaled_class()

    @data_oriented
    class Outer:
        def __init__(self) -> None:
            self.inner = Scaled(4, 10)
            self.y = ti.field(ti.i32, shape=4)
            self.use_inner = True

        @ti.kernel
        def copy(self):
            for i in self.y:
                if ti.static(self.use_inner):
                    self.y[i] = self.inner.x[i] + self.inner.term(1)

    o = Outer()
    o.inner.fill()
    o.copy()
    np.testing.assert_array_equal(o.y.to_numpy(), [10, 20, 30, 40])


def test_a_class_kernel_of_an_undecorated_class_is_a_syntax_error() -> None:
    class Plain:
        def __init__(self) -> None:
            self.x = ti.field(ti.i32, shape=2)

        @ti.kernel
        def put(self):
            self.x[0] = 1

    with pytest.raises(ti.TaichiSyntaxError, match="Please decorate class Plain"):
        Plain().put()


def test_a_func_method_cannot_be_called_from_python() -> None:
    a = _scaled_class()(4, 2)
    with pytest.raises(ti.TaichiSyntaxError, match="only be called from a kernel"):
        a.term(1)


def test_property_and_staticmethod_kernels() -> None:
    @data_oriented
    class Consts:
        def __init__(self) -> None:
            self.base = 40

        @property
        @ti.kernel
        def answer(self) -> ti.i32:
            return self.base + 2

        @staticmethod
        @ti.kernel
        def seven(x: ti.i32) -> ti.i32:
            return x + 7

    c = Consts()
    assert c.answer == 42
    assert c.seven(1) == 8
    assert Consts.seven(2) == 9


def test_a_methods_gradient_through_the_instance() -> None:
    @data_oriented
    class Sum:
        def __init__(self) -> None:
            self.x = ti.field(ti.f32, shape=4, needs_grad=True)
            self.loss = ti.field(ti.f32, shape=(), needs_grad=True)
            self.weight = 3.0

        @ti.kernel
        def reduce(self):
            for i in self.x:
                self.loss[None] += self.x[i] * self.weight

    s = Sum()
    with ti.ad.Tape(loss=s.loss):
        s.reduce()
    np.testing.assert_array_equal(s.x.grad.to_numpy(), [3, 3, 3, 3])
    s.x.grad.fill(0)
    s.loss.grad[None] = 1.0
    s.reduce.grad()
    np.testing.assert_array_equal(s.x.grad.to_numpy(), [3, 3, 3, 3])
