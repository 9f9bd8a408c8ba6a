"""Template signatures, the per-signature cache and its statistics, compile reports."""

from __future__ import annotations

import numpy as np
import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_template_signatures_follow_taichis_keying() -> None:
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.f32, shape=16)

    @ti.kernel
    def add(field: ti.template(), delta: ti.f32, n: ti.template(), arr: ti.types.ndarray()):
        for i in range(n):
            field[i] += delta + arr[i]

    a32 = np.ones(16, np.float32)
    add(x, 42, 4, a32)
    add(x, 1, 4, a32)  # scalars do not instantiate
    add(y, 1, 4, a32)  # another field does
    add(y, 1, 5, a32)  # another Python int does
    add(y, 1, 5, np.ones(16, np.float64))  # another ndarray dtype does
    rows = add.cache_info()
    assert [(r["hits"], r["misses"]) for r in rows] == [(1, 1), (0, 1), (0, 1), (0, 1)]
    assert [r["kernel"] for r in rows] == [f"add_c0_{k}" for k in range(4)]
    assert rows[0]["signature"] == (
        "field=x: f32[8], delta: f32 (runtime), n=4, arr: ndarray[float32, 1d]"
    )
    assert all(r["compile_ms"] > 0 for r in rows)
    np.testing.assert_array_equal(x.to_numpy()[:5], [45, 45, 45, 45, 0])  # (42+1) + (1+1)


def test_unhashable_template_arguments_are_keyed_by_contents() -> None:
    # Keyed by id, a list built for each call got the first list's compile whenever it took
    # that list's id: k([5.0, 6.0]) returned 3.0.
    @ti.kernel
    def total(ws: ti.template()) -> ti.f32:
        s = 0.0
        for j in ti.static(range(len(ws))):
            s += ws[j]
        return s

    assert total([1.0, 2.0]) == 3.0
    assert total([5.0, 6.0]) == 11.0
    assert [total([float(v), 1.0]) for v in range(3)] == [1.0, 2.0, 3.0]
    assert total([1.0, 2.0]) == 3.0
    assert len(total.instances()) == 5  # one per distinct list, none for a repeated one
    assert total(np.array([2.0, 4.0])) == 6.0  # an array by its contents too
    assert total(np.array([2.0, 5.0])) == 7.0


def test_other_unhashable_template_arguments_are_kept_and_keyed_by_identity() -> None:
    class Weights:  # defines __eq__ without __hash__: unhashable
        def __init__(self, w: float) -> None:
            self.w = w

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Weights) and other.w == self.w

        __hash__ = None  # type: ignore[assignment]

    @ti.kernel
    def scaled(p: ti.template()) -> ti.f32:
        return p.w * 2.0

    results = [scaled(Weights(float(v))) for v in range(4)]  # each object dies after its call
    assert results == [0.0, 2.0, 4.0, 6.0]


def test_kernel_survives_reinit_and_recompiles() -> None:
    @ti.kernel
    def answer() -> ti.i32:
        return 42

    assert answer() == 42
    ti.init()
    assert answer() == 42
    assert [r["misses"] for r in answer.cache_info()] == [1]


def test_compile_report_lists_every_pass_and_machine_code() -> None:
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def k(v: ti.i32):
        for i in x:
            x[i] = v // 2

    report = k.compile_report(3)
    names = [r.name for r in report.passes]
    for required in (
        "initial IR",
        "lower_ast",
        "type_check",
        "offload",
        "demote_atomics",
        "demote_dense_struct_fors",
        "lower_access",
        "demote_operations",
    ):
        assert required in names
    assert all(r.doc and r.ir_text.startswith("kernel {") for r in report.passes)
    final = report.passes[-1].ir_text
    assert "offloaded range_for(0, 4)" in final and "floordiv" not in final
    assert "define void" in report.llvm_ir and report.assembly.strip()
    assert x.to_numpy().tolist() == [0, 0, 0, 0]  # a report compiles but does not launch


def test_print_ir_prints_each_pass(capsys: pytest.CaptureFixture[str]) -> None:
    ti.init(print_ir=True)

    @ti.kernel
    def k() -> ti.i32:
        return 1 + 2

    assert k() == 3
    out = capsys.readouterr().out
    assert "] lower_ast:\nkernel {" in out and "] offload:" in out


def test_compile_report_checks_its_arguments_like_a_call() -> None:
    ti.init(offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def fill(a: ti.template(), value: ti.f32):
        for i in a:
            a[i] = value

    with pytest.raises(TypeError, match=r"kernel 'fill' is missing a value for its parameter 'a'"):
        fill.compile_report()
    report = fill.compile_report(x, value=2.0)  # keywords bind as in a call
    assert "fill" in report.name and report.passes


# --- the fast path of a call (a signature seen before) checks what the key does not ---------


def test_a_repeated_call_still_checks_an_arrays_element_axes() -> None:
    @ti.kernel
    def third(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)) -> ti.f32:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i][2]
        return s

    good = np.zeros((4, 3), np.float32)
    good[:, 2] = 5
    assert third(good) == 20
    with pytest.raises(ValueError, match=r"must end with axes \(3,\).*got shape \(4, 4\)"):
        third(np.zeros((4, 4), np.float32))  # the same dtype and ndim as `good`
    assert third(good) == 20


@pytest.mark.parametrize(
    "arch", [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]
)
def test_a_repeated_call_still_rejects_a_non_contiguous_array(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, fallback_to_cpu=False, offline_cache=False)

    @ti.kernel
    def total(a: ti.types.ndarray()) -> ti.f32:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    a = np.arange(8, dtype=np.float32)
    assert total(a) == 28
    with pytest.raises(ValueError, match="argument 'a' .*Non contiguous numpy arrays"):
        total(a[::2])  # a view: a new object of the same dtype and ndim
    assert total(a[::2].copy()) == 12
    # the refused call ran nothing: no hit
    assert [(r["hits"], r["misses"]) for r in total.cache_info()] == [(1, 1)]


def test_an_array_whose_dtype_changes_in_place_is_keyed_again() -> None:
    @ti.kernel
    def first(a: ti.types.ndarray()) -> ti.f32:
        return a[0]

    a = np.full(2, 3.0, np.float32)
    assert first(a) == 3.0
    a.dtype = np.int32  # the same object, now int32: not the float kernel's array any more
    assert first(a) == np.float32(3.0).view(np.int32)
    assert [r["signature"] for r in first.cache_info()] == [
        "a: ndarray[float32, 1d]",
        "a: ndarray[int32, 1d]",
    ]


def test_ti_ndarray_containers_take_the_fast_path_unwrapped() -> None:
    @ti.kernel
    def fill(a: ti.types.ndarray(), v: ti.f32):
        for i in range(a.shape[0]):
            a[i] = v

    a, b = ti.ndarray(ti.f32, 4), ti.ndarray(ti.f32, 4)
    for v in (1.0, 2.0, 3.0):
        fill(a, v)
        fill(b, -v)
    np.testing.assert_array_equal(a.to_numpy(), [3.0] * 4)
    np.testing.assert_array_equal(b.to_numpy(), [-3.0] * 4)
    assert [(r["hits"], r["misses"]) for r in fill.cache_info()] == [(5, 1)]


def test_the_garbage_collector_pauses_while_a_kernel_compiles() -> None:
    import gc

    seen: list[bool] = []

    def collector_state() -> int:  # runs while the kernel compiles (ti.static)
        seen.append(gc.isenabled())
        return 1

    @ti.kernel
    def k() -> ti.i32:
        return ti.static(collector_state())

    assert gc.isenabled()
    assert k() == 1 and seen == [False] and gc.isenabled()
    gc.disable()  # the program's own choice is left as it is
    try:

        @ti.kernel
        def k2() -> ti.i32:
            return ti.static(collector_state())

        assert k2() == 1 and seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_the_first_compile_leaves_the_imported_modules_in_the_old_generation(tmp_path) -> None:
    """The first compile of a process imports the compiler's lazily loaded modules (~8,000
    long-lived objects); it ends with a collection of the young generations, so that a later
    kernel's first call does not pay for traversing them."""
    import subprocess
    import sys

    script = (
        "import gc, tistudio as ti\n"
        "ti.init(arch=ti.cpu, offline_cache=False)\n"
        "x = ti.field(ti.f32, shape=8)\n"
        "@ti.kernel\n"
        "def fill(v: ti.f32):\n"
        "    for i in x:\n"
        "        x[i] = v\n"
        "gc.collect()  # every generation empty: what the compile adds is all there is\n"
        "fill(1.0)\n"
        "print(len(gc.get_objects(generation=1)))\n"
    )
    path = tmp_path / "first_compile.py"  # a file: kernels need their source
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    young = int(done.stdout.split()[-1])
    assert young < 2_000, f"{young} objects in generation 1 after the first compile"


def test_waiting_for_the_back_ends_start_is_not_counted_as_compiling(monkeypatch) -> None:
    # a cell run straight after ti.init: the first compile waits for the warm-up thread
    # (runtime/warm_up.py), here one that takes 300 ms, and the cache reports that apart
    import threading
    import time

    from tistudio.runtime import warm_up

    @ti.kernel
    def double(x: ti.f32) -> ti.f32:
        return x * 2.0

    starting = threading.Thread(target=time.sleep, args=(0.3,), daemon=True)
    monkeypatch.setattr(warm_up, "_thread", starting)
    starting.start()
    begin = time.perf_counter()
    assert double(2.0) == 4.0
    elapsed_ms = (time.perf_counter() - begin) * 1e3
    (info,) = double.cache_info()
    assert info["startup_ms"] >= 250
    assert info["compile_ms"] + info["startup_ms"] <= elapsed_ms
    assert info["compile_ms"] < elapsed_ms - 250
    double(3.0)
    (info,) = double.cache_info()
    assert info["hits"] == 1 and info["startup_ms"] >= 250  # the instance keeps its figures
