"""Why a kernel compiled again: `cache_info()`'s `why` sentences and the signature texts that
name the fields passed (issue #30, "Why it recompiled")."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti
from tistudio.lang.recompile_why import ArgFacts, Reset, explain, headline


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


@ti.kernel
def heat(src: ti.template(), dst: ti.template(), k: ti.f32):
    for I in ti.grouped(src):
        dst[I] = src[I] * k


def rows(kernel) -> list[tuple[str, str]]:
    return [(r["signature"], r["why"]) for r in kernel.cache_info()]


def test_swapped_fields_get_their_own_names_and_a_reason() -> None:
    u = ti.field(ti.f32, shape=(128, 128))
    v = ti.field(ti.f32, shape=(128, 128))
    heat(u, v, 0.5)
    heat(v, u, 0.5)
    heat(u, v, 0.25)  # a hit: no new row
    (first, first_why), (second, second_why) = rows(heat)
    assert first == "src=u: f32[128, 128], dst=v: f32[128, 128], k: f32 (runtime)"
    assert second == "src=v: f32[128, 128], dst=u: f32[128, 128], k: f32 (runtime)"
    assert first_why.startswith("first call of heat; compiled in ")
    assert second_why.startswith(
        "src is field v, was u (both f32[128, 128]: fields count by identity); "
        "dst is field u, was v (both f32[128, 128]: fields count by identity) "
        "(nearest earlier: heat_c0_0); compiled in "
    )
    ms = heat.cache_info()[1]["compile_ms"]
    assert second_why.endswith(f"compiled in {ms:.1f} ms")
    assert headline(second_why) == "src is field v, was u; dst is field u, was v"


def test_a_fields_own_name_comes_first_and_dtype_and_shape_changes_are_named() -> None:
    small = ti.field(ti.f32, shape=8, name="temperature")
    big = ti.field(ti.f64, shape=16)
    heat(small, small, 1.0)
    heat(big, small, 1.0)
    (first, _), (second, why) = rows(heat)
    assert first == "src=temperature: f32[8], dst=temperature: f32[8], k: f32 (runtime)"
    assert second.startswith("src=big: f64[16], dst=temperature")
    assert why.startswith("src is field big, was temperature (dtype f32 → f64, shape [8] → [16])")


def test_a_field_passed_as_the_parameters_own_name_is_not_named_twice() -> None:
    src = ti.field(ti.i32, shape=4)
    dst = ti.field(ti.i32, shape=4, name="dst")
    heat(src, dst, 1.0)
    assert rows(heat)[0][0] == "src: i32[4], dst: i32[4], k: f32 (runtime)"


def test_values_ndarrays_and_the_nearest_earlier_instantiation() -> None:
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def add(f: ti.template(), n: ti.template(), a: ti.types.ndarray()):
        for i in range(n):
            f[i] += a[i]

    a32 = np.ones(8, np.float32)
    add(x, 4, a32)
    add(y, 5, a32)
    add(x, 5, a32)  # nearest: add_c0_1 (one difference), not add_c0_0 (also one): the later
    add(x, 5, np.ones(8, np.float64))
    whys = [why for _, why in rows(add)]
    assert whys[1].startswith("f is field y, was x (both f32[8]: fields count by identity); ")
    assert "template value n is 5, was 4 (nearest earlier: add_c0_0)" in whys[1]
    assert whys[2].startswith("f is field x, was y (both f32[8]: fields count by identity) ")
    assert "(nearest earlier: add_c0_1)" in whys[2]
    assert whys[3].startswith("ndarray a: dtype float32 → float64 (nearest earlier: add_c0_2)")
    assert rows(add)[3][0] == "f=x: f32[8], n=5, a: ndarray[float64, 1d]"

    @ti.kernel
    def clear(a: ti.types.ndarray()):
        for I in ti.grouped(a):
            a[I] = 0

    clear(np.ones(3, np.int32))
    clear(np.ones((2, 3), np.int32))
    assert rows(clear)[1][1].startswith("ndarray a: shape 1d → 2d (nearest earlier: clear_c")


def test_beyond_three_differences_the_rest_are_counted() -> None:
    @ti.kernel
    def five(a: ti.template(), b: ti.template(), c: ti.template(), d: ti.template(), e: int):
        pass

    five(1, 2, 3, 4, 0)
    five(5, 6, 7, 8, 0)
    why = rows(five)[1][1]
    assert why.startswith(
        "template value a is 5, was 1; template value b is 6, was 2; "
        "template value c is 7, was 3; and 1 more (nearest earlier: five_c0_0)"
    )


def test_ti_init_resetting_the_cache_is_the_reason() -> None:
    u = ti.field(ti.f32, shape=4)
    heat(u, u, 1.0)
    heat(u, u, 2.0)
    ti.init()
    w = ti.field(ti.f32, shape=4)
    heat(w, w, 1.0)
    assert rows(heat)[0][1].startswith(
        "first call since ti.init() reset the cache (1 earlier instantiation dropped); compiled in"
    )


def test_an_arch_change_is_named() -> None:
    facts = (ArgFacts("k", "runtime", dtype="f32"),)
    why = explain("f", ("#",), facts, [], 12.34, "gpu", Reset(3, "cpu"))
    assert why == (
        "first call since ti.init() reset the cache (3 earlier instantiations dropped; "
        "arch cpu → gpu); compiled in 12.3 ms"
    )


def step(f) -> None:  # a helper whose parameter holds whichever field it is given
    heat(f, f, 1.0)


def test_one_variable_name_serves_one_field_only() -> None:
    u = ti.field(ti.f32, shape=4)
    v = ti.field(ti.f32, shape=4)
    step(u)  # the caller's variable is `f`
    step(v)  # `f` again, but another field: a short id instead
    snode = v._ti_place_snode.id
    assert [s for s, _ in rows(heat)] == [
        "src=f: f32[4], dst=f: f32[4], k: f32 (runtime)",
        f"src=field#{snode}: f32[4], dst=field#{snode}: f32[4], k: f32 (runtime)",
    ]
    assert rows(heat)[1][1].startswith(f"src is field field#{snode}, was f ")
    heat(u, v, 1.0)  # a field keeps the name it was first given
    assert rows(heat)[2][0].startswith(f"src=f: f32[4], dst=field#{snode}: f32[4]")


def test_two_variables_holding_one_field_give_a_short_id() -> None:
    u = ti.field(ti.f32, shape=4)
    alias = u  # noqa: F841 - two names for one field: neither is reliably the user's
    heat(u, u, 1.0)
    assert rows(heat)[0][0].startswith(f"src=field#{u._ti_place_snode.id}: f32[4]")


def test_objects_by_variable_name_values_by_repr() -> None:
    @ti.data_oriented
    class Sim:
        def __init__(self) -> None:
            self.x = ti.field(ti.f32, shape=4)

        @ti.kernel
        def step(self, n: ti.template()):
            for i in range(n):
                self.x[i] += 1

    first, second = Sim(), Sim()
    first.step(2)
    second.step(2)
    assert [s for s, _ in rows(Sim.step)] == ["self=first: Sim, n=2", "self=second: Sim, n=2"]
    why = rows(Sim.step)[1][1]
    assert why.startswith("self is second, was first (objects count by identity)")


def test_compile_reports_name_the_fields_too() -> None:
    u = ti.field(ti.f32, shape=4)
    v = ti.field(ti.f32, shape=4)
    report = heat.compile_report(v, u, 1.0)
    assert report.signature_text == "src=v: f32[4], dst=u: f32[4], k: f32 (runtime)"


def test_vector_and_struct_fields_show_their_elements() -> None:
    m = ti.Vector.field(3, ti.f32, shape=4)
    s = ti.Struct.field({"a": ti.f32, "b": ti.i32}, shape=4)

    @ti.kernel
    def touch(f: ti.template()):
        pass

    touch(m)
    touch(s)
    assert [text for text, _ in rows(touch)] == [
        "f=m: f32[4] x [3]",
        "f=s: struct(a: f32, b: i32)[4]",
    ]
    assert rows(touch)[1][1].startswith(
        "f is field s, was m (dtype f32 → struct(a: f32, b: i32), elements [3] → none)"
    )


def test_a_reverse_mode_kernel_names_the_arrays_bringing_a_grad() -> None:
    @ti.kernel
    def square(a: ti.types.ndarray(), b: ti.types.ndarray()):
        for i in a:
            b[i] = a[i] * a[i]

    a = ti.ndarray(ti.f32, 4, needs_grad=True)
    b = ti.ndarray(ti.f32, 4, needs_grad=True)
    plain = ti.ndarray(ti.f32, 4)
    square.grad(a, b)
    square.grad(plain, b)
    (first, _), (second, why) = rows(square.grad)
    assert first == "a: ndarray[float32, 1d] with .grad, b: ndarray[float32, 1d] with .grad"
    assert second == "a: ndarray[float32, 1d], b: ndarray[float32, 1d] with .grad"
    assert why.startswith("ndarrays with a .grad: b, was a, b (nearest earlier: square_c")
