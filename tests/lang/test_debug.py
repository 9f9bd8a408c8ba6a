"""`ti.init(debug=True)`: out-of-bounds accesses, integer division by zero and `assert` in
kernels raise `TaichiAssertionError` naming what, where and with which values, on the CPU and on
the GPU (lavapipe); the next launch works; with debug off none of it costs anything."""

from __future__ import annotations

import inspect
import os
import threading

import numpy as np
import pytest

import tistudio as ti

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
ARCHES = [pytest.param(ti.cpu, id="cpu"), pytest.param(ti.vulkan, id="gpu")]


def _line_of(fn, text: str) -> int:  # noqa: ANN001
    """The file line of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _raises(fn, *args) -> str:  # noqa: ANN001, ANN002
    with pytest.raises(ti.TaichiAssertionError) as info:
        fn(*args)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, RuntimeError)
    return str(info.value)


@pytest.mark.parametrize("arch", ARCHES)
def test_field_index_out_of_bounds_names_field_shape_indices_and_line(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)
    x = ti.field(ti.i32, shape=(4, 5))

    @ti.kernel
    def put(i: ti.i32, j: ti.i32, v: ti.i32):
        x[i, j] = v

    line = _line_of(put.fn, "x[i, j] = v")
    message = _raises(put, 3, 5, 1)
    assert message.startswith(f"(kernel=put, line {line}) ")
    assert "Accessing field 'x' of shape (4, 5) with indices (3, 5)" in message
    assert f'File "{__file__}", line {line}' in message and "x[i, j] = v" in message
    assert "indices (-1, 0)" in _raises(put, -1, 0, 1)
    put(3, 4, 7)  # the next launch works, and nothing was written by the failed ones
    assert x.to_numpy().sum() == 7 and x[3, 4] == 7


@pytest.mark.parametrize("arch", ARCHES)
def test_ndarray_index_out_of_bounds_in_a_parallel_loop(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def ramp(a: ti.types.ndarray(dtype=ti.f32, ndim=1), n: ti.i32):
        for i in range(n):
            a[i] = i * 2

    small = np.zeros(64, np.float32)
    message = _raises(ramp, small, 100)
    assert "Accessing ndarray argument 'a' of shape (64,) with indices (" in message
    index = int(message.split("indices (")[1].split(",")[0])
    assert 64 <= index < 100
    ramp(small, 64)
    assert np.array_equal(small, np.arange(64) * 2)


@pytest.mark.parametrize("arch", ARCHES)
def test_vector_field_and_struct_field_accesses_are_checked(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)
    v = ti.Vector.field(3, ti.f32, shape=8)
    s = ti.Struct.field({"a": ti.f32, "b": ti.i32}, shape=4)

    @ti.kernel
    def read(i: ti.i32, j: ti.i32) -> ti.f32:
        return v[i][1] + s[j].a

    assert "Accessing field 'v' of shape (8,) with indices (9,)" in _raises(read, 9, 0)
    assert "Accessing field 's.a' of shape (4,) with indices (4,)" in _raises(read, 0, 4)
    assert read(7, 3) == 0.0


@pytest.mark.parametrize("arch", ARCHES)
def test_integer_division_and_modulo_by_zero(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def div(a: ti.i32, b: ti.i32) -> ti.i32:
        return a // b

    @ti.kernel
    def mod(a: ti.i32, b: ti.i32) -> ti.i32:
        return a % b

    message = _raises(div, 7, 0)
    line = _line_of(div.fn, "return a // b")
    assert message.startswith(f"(kernel=div, line {line}) Integer division by zero: 7 divided by 0")
    assert "Integer division by zero: -9 divided by 0" in _raises(mod, -9, 0)
    assert div(7, -2) == -4 and mod(-9, 4) == 3  # Python's rounding still holds


@pytest.mark.parametrize("arch", ARCHES)
def test_assert_messages_are_formatted_with_the_kernel_values(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def percent(i: ti.i32, f: ti.f32):
        assert i < 3, "i = %d is too big (f = %s, 100%%)" % (i, f)  # noqa: UP031

    @ti.kernel
    def fstring(i: ti.i32, u: ti.u8):
        assert i < 3, f"i = {i:4d}, u = {u}, half = {i / 2:.2f}"

    @ti.kernel
    def bare(i: ti.i32):
        for k in range(4):
            assert i + k < 6

    assert "i = 5 is too big (f = 0.1, 100%)" in _raises(percent, 5, 0.1)
    assert "i =    7, u = 255, half = 3.50" in _raises(fstring, 7, 255)
    message = _raises(bare, 3)
    assert f"line {_line_of(bare.fn, 'assert i + k')}) Assertion failed: i + k < 6" in message
    percent(2, 0.5)
    fstring(0, 1)
    bare(2)


@pytest.mark.parametrize("arch", ARCHES)
def test_local_vector_index_out_of_bounds_names_vector_size_index_and_line(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def pick(i: ti.i32) -> ti.i32:
        v = ti.Vector([10, 20, 30])
        return v[i]

    @ti.kernel
    def put(i: ti.i32, j: ti.i32) -> ti.i32:
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        m[i, j] = 9
        return m[0, 0] + m[0, 1] + m[0, 2] + m[1, 0] + m[1, 1] + m[1, 2]

    @ti.kernel
    def row(i: ti.i32) -> ti.f32:
        m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        return m[i, 1]  # one index, m[i], is refused in a kernel, as in Taichi

    line = _line_of(pick.fn, "return v[i]")
    message = _raises(pick, 3)
    assert message.startswith(f"(kernel=pick, line {line}) ")
    assert "Accessing vector 'v' of size 3 with index 3" in message
    assert f'File "{__file__}", line {line}' in message and "return v[i]" in message
    assert "with index -1" in _raises(pick, -1)
    assert pick(2) == 30  # the next launch works
    # each axis on its own: m[0, 5] is no m[1, 2], as a check of the flat offset would let by
    message = _raises(put, 0, 5)
    assert f"line {_line_of(put.fn, 'm[i, j] = 9')}) " in message
    assert "Accessing matrix 'm' of shape (2, 3) with indices (0, 5)" in message
    assert put(1, 2) == 24
    assert "Accessing matrix 'm' of shape (2, 2) with indices (2, 1)" in _raises(row, 2)
    assert row(1) == 4.0


@pytest.mark.parametrize("arch", ARCHES)
def test_local_vector_checks_run_where_the_access_runs(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def guarded(i: ti.i32) -> ti.i32:
        v = ti.Vector([1, 2, 3])
        r = 0
        if i < 3 and v[i] > 1:  # `and` short-circuits: v[5] is never read
            r = 1
        return r

    @ti.kernel
    def bump(i: ti.i32, n: ti.i32) -> ti.i32:
        v = ti.Vector([1, 2, 3, 4])
        for k in range(n):
            v[i + k] += 10
        return v.sum()

    @ti.kernel
    def literal(k: ti.u8) -> ti.i32:
        return ti.Vector([1, 2, 3])[k]

    @ti.kernel
    def long_literal(k: ti.u8) -> ti.i32:  # too long a source to quote in the message
        return ti.Vector([1000, 2000, 3000, 4000, 5000, 6000, 7000])[k]

    assert guarded(5) == 0 and guarded(1) == 1
    assert "Accessing vector 'v' of size 4 with index 4" in _raises(bump, 2, 3)
    assert bump(1, 3) == 40
    assert bump.compile_report(1, 3).passes[-1].ir_text.count(" assert ") == 1  # read and write
    assert "Accessing vector 'ti.Vector([1, 2, 3])' of size 3 with index 200" in _raises(
        literal, 200
    )
    assert literal(2) == 3
    assert "Accessing a vector of size 7 with index 9" in _raises(long_literal, 9)


@pytest.mark.parametrize("arch", ARCHES)
def test_run_time_component_of_a_field_element_is_checked_for_reads_and_writes(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)
    f = ti.Vector.field(3, ti.i32, shape=4)

    @ti.kernel
    def put(i: ti.i32, k: ti.i32):
        f[i][k] = 5

    @ti.kernel
    def get(i: ti.i32, k: ti.i32) -> ti.i32:
        return f[i][k]

    message = _raises(put, 1, 3)
    assert message.startswith(f"(kernel=put, line {_line_of(put.fn, 'f[i][k] = 5')}) ")
    assert "Accessing vector 'f[i]' of size 3 with index 3" in message
    assert "Accessing vector 'f[i]' of size 3 with index -1" in _raises(get, 1, -1)
    assert f.to_numpy().sum() == 0  # the failed write wrote nothing
    put(1, 2)
    assert get(1, 2) == 5 and f.to_numpy().sum() == 5


@pytest.mark.parametrize("arch", ARCHES)
def test_local_vector_indices_in_release_mode_compute_and_compile_no_checks(arch) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=False, offline_cache=False)

    @ti.kernel
    def shuffle(i: ti.i32, j: ti.i32) -> ti.i32:
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        v = ti.Vector([7, 8])
        m[i, j] += v[i]
        return m[i, j] * 100 + m[1 - i, 2 - j]

    expected = {
        (i, j): ([1, 2, 3, 4, 5, 6][3 * i + j] + 7 + i) * 100 + [6, 5, 4, 3, 2, 1][3 * i + j]
        for i in range(2)
        for j in range(3)
    }
    assert {key: shuffle(*key) for key in expected} == expected
    assert " assert " not in shuffle.compile_report(0, 0).passes[-1].ir_text

    @ti.kernel
    def outside(i: ti.i32) -> ti.i32:
        v = ti.Vector([10, 20, 30])
        v[i] = 99  # writes nothing
        return v[i] + v.sum()  # reads element 0: never memory past the vector

    assert outside(3) == 10 + 60 and outside(-7) == 10 + 60 and outside(1) == 99 + 139


def test_debug_off_compiles_no_checks_and_ignores_asserts() -> None:
    ti.init(debug=False, offline_cache=False, print_ir=False)
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def checked(i: ti.i32, d: ti.i32) -> ti.i32:
        assert i < 0, "never checked without debug"
        return x[i] // d

    assert checked(1, 1) == 0
    report = checked.compile_report(1, 1)
    assert "insert_debug_checks" not in [r.name for r in report.passes]
    assert " assert " not in report.passes[-1].ir_text
    assert "assert_failed" not in report.llvm_ir_unoptimized
    ti.init(debug=True, offline_cache=False)
    x = ti.field(ti.i32, shape=4)
    report = checked.compile_report(1, 1)
    assert "insert_debug_checks" in [r.name for r in report.passes]
    assert report.passes[-1].ir_text.count(" assert ") == 3  # the user's, the index, the divisor
    assert "assert_failed" in report.llvm_ir_unoptimized


def test_debug_off_still_runs_the_calls_in_an_assert() -> None:
    ti.init(debug=False, offline_cache=False)
    x = ti.field(ti.i32, shape=())

    @ti.func
    def bump(v):
        x[None] += v
        return 0

    @ti.kernel
    def run():
        assert bump(15) == 0
        assert bump(10) == 1  # false, but not checked: the call's write stays (Taichi: 25)

    run()
    assert x[None] == 25


def test_a_failing_launch_in_one_thread_leaves_the_others_right() -> None:
    ti.init(debug=True, offline_cache=False)
    x = ti.field(ti.i64, shape=256)

    @ti.kernel
    def fill(arr: ti.types.ndarray(dtype=ti.i64, ndim=1), n: ti.i32, v: ti.i64) -> ti.i64:
        total = ti.cast(0, ti.i64)
        for i in range(n):
            arr[i] = v + i
            total += arr[i]
        return total

    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for round_ in range(20):
                arr = np.zeros(256, np.int64)
                if k == 0:  # this thread's launches all fail
                    with pytest.raises(ti.TaichiAssertionError, match="shape \\(256,\\)"):
                        fill(arr, 300, round_)
                    continue
                assert fill(arr, 256, k * 1000 + round_) == 256 * (k * 1000 + round_) + 32640
                assert np.array_equal(arr, np.arange(256) + k * 1000 + round_)
        except BaseException as e:  # noqa: BLE001 - re-raised by the test below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(fill.cache_info()) == 1
    assert x.to_numpy().sum() == 0


@pytest.mark.parametrize("arch", ARCHES)
def test_prints_before_a_failed_check_are_shown_and_big_launches_recover(arch, capsys) -> None:  # noqa: ANN001
    ti.init(arch=arch, debug=True, offline_cache=False)

    @ti.kernel
    def shout(i: ti.i32):
        print("checking", i)
        assert i < 3, "i=%d" % i  # noqa: UP031

    @ti.kernel
    def total(a: ti.types.ndarray(dtype=ti.f32, ndim=1), n: ti.i32) -> ti.f32:
        s = 0.0
        for i in range(n):  # split over the thread pool / many workgroups
            s += a[i]
        return s

    assert "i=5" in _raises(shout, 5)
    assert capsys.readouterr().out == "checking 5\n"
    big = np.ones(1 << 20, np.float32)
    for _ in range(2):
        assert "indices (1048576,)" in _raises(total, big, (1 << 20) + 1)
        assert total(big, 1 << 20) == float(1 << 20)


def test_checks_travel_with_the_kernel_spec_into_a_cpu_aot_module(tmp_path) -> None:  # noqa: ANN001
    ti.init(arch=ti.cpu, debug=True, offline_cache=False)

    @ti.kernel
    def poke(a: ti.types.ndarray(dtype=ti.i32, ndim=1), i: ti.i32):
        a[i] = 7

    module = ti.aot.Module(ti.cpu)
    module.add_kernel(poke)
    module.save(tmp_path / "m")
    loaded = ti.aot.load(tmp_path / "m").get_kernel("poke")
    arr = np.zeros(4, np.int32)
    for _ in range(2):  # the record is cleared, and nothing is written past the temporaries
        with pytest.raises(
            ti.TaichiAssertionError, match=r"'a' of shape \(4,\) with indices \(4,\)"
        ):
            loaded(arr, 4)
    loaded(arr, 3)
    assert arr.tolist() == [0, 0, 0, 7]


@pytest.mark.parametrize("arch", ARCHES)
def test_assert_messages_from_str_format_show_the_kernel_values(arch) -> None:  # noqa: ANN001
    """`"...".format(...)` messages, fields numbered as Taichi numbers them; floats shown as
    Taichi shows them (an f32 1.0 is `1`, 0.1 is `0.1`). Expected texts: Taichi 1.7.4."""
    ti.init(arch=arch, debug=True, offline_cache=False)
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def auto(v: ti.i32, f: ti.f32):
        assert v < 3, "v={} f={} twice={}".format(v, f, f * 2)  # noqa: UP032 - the form under test

    @ti.kernel
    def numbered_and_named(v: ti.i32, f: ti.f32):
        assert v < 3, "{0} and {0}, {name}".format(v, name=f)  # noqa: UP032

    @ti.kernel
    def in_loop():
        for i in x:
            x[i] = i * 0.5
            assert x[i] < 1, "i={} x[i]={}".format(i, x[i])  # noqa: UP032

    @ti.kernel
    def fstring(v: ti.i32, f: ti.f32):
        assert v < 3, f"v is {v} and f={f} and {v + 1}"

    assert "v=5 f=1.5 twice=3\n" in _raises(auto, 5, 1.5)
    assert "8 and 8, 0.1\n" in _raises(numbered_and_named, 8, 0.1)
    assert f"line {_line_of(in_loop.fn, 'assert x[i]')}) i=2 x[i]=1\n" in _raises(in_loop)
    assert "v is 7 and f=1.5 and 8\n" in _raises(fstring, 7, 1.5)
    auto(1, 0.0)
    numbered_and_named(0, 1.0)


def test_assert_message_of_a_vector_is_a_syntax_error() -> None:
    ti.init(debug=True, offline_cache=False)

    @ti.kernel
    def show(v: ti.i32):
        w = ti.Vector([v, v + 1])
        assert v < 3, "w = {}".format(w)  # noqa: UP032

    with pytest.raises(ti.TaichiSyntaxError, match="an assert message can show scalars only"):
        show(1)
