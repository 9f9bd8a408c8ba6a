"""Taichi 1.7.4's own IR of our kernels, pass by pass (studio/taichi_ir.py, issue #30): the
real Taichi runs in a subprocess on a script recreating each kernel; its passes are parsed in
order and matched with ours by name."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tistudio as ti
from tistudio.studio.taichi_ir import TAICHI_NAMES, run_script, taichi_passes, taichi_script

pytest.importorskip("taichi")

OFFSET = 1234  # a module-level constant the Taichi run must recreate


class Opaque:
    """Something a kernel reads that the Taichi run cannot make again."""

    value = 1.0


opaque = Opaque()
arrows = None  # a vector field, made once ti.init has run


@ti.func
def root_of(v):
    return ti.sqrt(v) + OFFSET


@ti.kernel
def scale(a: ti.template(), k: ti.f32):
    for i, j in a:
        a[i, j] = a[i, j] * k


@ti.kernel
def shift(a: ti.template()):
    for i in a:
        a[i] = root_of(a[i])


@ti.kernel
def opaque_read(a: ti.template()):
    for i in a:
        a[i] = opaque.value


def only_entry(kernel):
    (entry,) = kernel._cache.values()
    return entry


@pytest.fixture(scope="module")
def fields():
    ti.init(arch=ti.cpu)
    return ti.field(ti.f32, shape=(4, 6)), ti.field(ti.f32, shape=8)


def test_struct_for_kernel_passes_in_order(fields):
    grid, _ = fields
    scale(grid, 2.0)
    entry = only_entry(scale)
    result = taichi_passes(scale, entry)
    assert result.error == ""
    names = result.names
    assert names[0] == "Initial IR"
    order = ["Initial IR", "Lowered", "Typechecked", "Simplified I", "Offloaded"]
    order += ["Atomics demoted I", "Access lowered", "Operations demoted", "Simplified IV"]
    assert [n for n in names if n in order] == order
    assert all(p.ir.startswith("kernel {") and p.ir.endswith("}") for p in result.passes)
    # one offloaded struct-for task over the 2D field, the scalar argument loaded
    offloaded = result.matching("offload").ir
    assert "offloaded struct_for" in offloaded
    assert "argload[0]" in result.matching("type_check").ir
    assert result.matching("type_check").name == "Typechecked"
    assert "global ptr" in result.matching("lower_ast").ir


def test_our_passes_find_theirs(fields):
    grid, _ = fields
    scale(grid, 2.0)
    entry = only_entry(scale)
    result = taichi_passes(scale, entry)
    ours = [record.name for record in entry.result.records]
    for name in ("initial IR", "lower_ast", "type_check", "offload", "lower_access"):
        assert name in ours
        assert result.matching(name).name == TAICHI_NAMES[name]
    sub_passes = [n for n in ours if n.endswith("(simplify I)")]
    assert sub_passes, ours
    assert result.matching(sub_passes[0]).name == "Simplified I"
    assert result.matching("privatize_fields") is None  # no Taichi pass of that name


def test_func_and_module_constant_are_recreated(fields):
    _, line = fields
    shift(line)
    entry = only_entry(shift)
    script = taichi_script(shift, entry)
    assert f"OFFSET = {OFFSET}" in script
    assert "@_ti.func\ndef root_of(v):" in script
    result = taichi_passes(shift, entry)
    assert result.error == ""
    typed = result.matching("type_check").ir
    assert "sqrt" in typed  # the func, inlined
    assert str(OFFSET) in typed  # the constant


def test_a_global_it_cannot_recreate_gives_the_reason(fields):
    _, line = fields
    opaque_read(line)
    result = taichi_passes(opaque_read, only_entry(opaque_read))
    assert result.passes == ()
    assert result.error == (
        "uses the global `opaque`, a Opaque, which the Taichi run cannot recreate"
    )
    assert result.matching("type_check") is None


def test_explorer_runs_taichi_on_demand_once_per_instantiation(fields):
    from tistudio.studio.passes_view import PassExplorer

    grid, _ = fields
    scale(grid, 2.0)
    entry = only_entry(scale)
    explorer = PassExplorer()
    explorer.add(scale, entry)
    assert explorer.taichi == {}  # nothing runs until the tab asks
    thread = explorer.run_taichi(0)
    assert explorer.taichi == {"instance": 0, "state": "running"}
    thread.join(60)
    shown = explorer.taichi
    assert shown["state"] == "done" and shown["error"] == ""
    ours = [p["name"] for p in explorer.data["passes"]]
    assert len(shown["match"]) == len(ours)
    typed = shown["match"][ours.index("type_check")]
    assert shown["passes"][typed][0] == "Typechecked"
    assert shown["match"][ours.index("initial IR")] == 0
    assert explorer.run_taichi(0) is None  # cached


LONG = 1 << 20  # far more elements than the stand-in ndarray has: the kernel must not launch


@ti.kernel
def norms(out: ti.types.ndarray(), n: ti.template(), w: ti.f32):
    for i in range(n):
        p = arrows[i % 8] * w
        out[i] = p.norm()


@ti.kernel
def total(a: ti.template()) -> ti.f32:
    s = 0.0
    for i in a:
        s += a[i]
    return s


def test_ndarray_value_and_vector_field_compile_without_launching(fields):
    global arrows
    arrows = ti.Vector.field(3, ti.f32, shape=8)
    norms(np.zeros(LONG, np.float32), LONG, 2.0)
    entry = only_entry(norms)
    script = taichi_script(norms, entry)
    assert "zeros((2,), dtype='float32')" in script and f"{LONG}, 0.0)" in script
    assert "arrows = _ti.Vector.field(3, _ti.f32, shape=(8,))" in script
    result = taichi_passes(norms, entry)
    assert result.error == ""
    assert result.matching("scalarize").name == "Scalarized"
    assert "sqrt" in result.matching("type_check").ir
    assert f"range((cast_value<i32> 0), (cast_value<i32> {LONG}))" in result.passes[0].ir


def test_each_task_of_a_multi_task_kernel_in_one_pass(fields):
    _, line = fields
    total(line)
    result = taichi_passes(total, only_entry(total))
    assert result.error == ""
    assert result.names.count("Start offload_to_executable") == 1
    lowered = result.matching("lower_access").ir
    assert [x for x in lowered.splitlines() if x.startswith("# task")] == [
        "# task 1 of 3",
        "# task 2 of 3",
        "# task 3 of 3",
    ]
    assert "atomic add" in lowered  # the reduction's task


def test_without_taichi_the_reason_says_how_to_install_it(fields):
    _, line = fields
    shift(line)
    script = taichi_script(shift, only_entry(shift))
    result = run_script(script, "shift", python=(sys.executable, "-S"))  # no site-packages
    assert result.error == "Taichi is not installed (pip install taichi==1.7.4)"


@ti.kernel
def square(a: ti.template()):
    for i in a:
        a[i] = a[i] * a[i]


def test_an_autodiff_twin_gives_the_reason(fields):
    values = ti.field(ti.f32, shape=4, needs_grad=True)
    square.grad(values)
    result = taichi_passes(square.grad, only_entry(square.grad))
    assert result.error == (
        "square.grad is the reverse-mode autodiff twin of square: "
        "the Taichi run compiles kernels as written only"
    )


@ti.data_oriented
class Grid:
    def __init__(self) -> None:
        self.cells = ti.field(ti.f32, shape=4)

    @ti.kernel
    def clear(self):
        for i in self.cells:
            self.cells[i] = 0.0


def test_a_kernel_of_a_class_gives_the_reason(fields):
    grid = Grid()
    grid.clear()
    kernel = vars(Grid)["clear"]
    result = taichi_passes(kernel, only_entry(kernel))
    assert result.error == "a kernel of a class (its `self`) cannot be recreated in the Taichi run"


vec3 = ti.math.vec3
LIMIT = float("inf")


@ti.kernel
def clamp_all(points: ti.types.ndarray(dtype=vec3, ndim=1)):
    for i in points:
        points[i] = ti.min(points[i], LIMIT)


def test_math_types_and_infinite_constants_are_recreated(fields):
    clamp_all(np.zeros((4, 3), np.float32))
    entry = only_entry(clamp_all)
    script = taichi_script(clamp_all, entry)
    assert "vec3 = _ti.math.vec3" in script and "LIMIT = float('inf')" in script
    assert "zeros((2, 3), dtype='float32')" in script
    result = taichi_passes(clamp_all, entry)
    assert result.error == ""
    assert "inf" in result.matching("type_check").ir
