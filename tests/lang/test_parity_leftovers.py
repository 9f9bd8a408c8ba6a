"""Small behaviours of Taichi 1.7.4 that its own test suite checks and that belong to no bigger
topic: tuple unpacking of matrices, atomic builtins on non-writable operands, dataclass methods,
ti.func parameters annotated as ndarrays. Each case was compared with real Taichi."""

from __future__ import annotations

import pytest

import tistudio as ti


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_a_vector_unpacks_into_its_elements() -> None:
    @ti.kernel
    def run() -> ti.i32:
        v = ti.Vector([2, 3, 4])
        p, q, r = v
        return p * 100 + q * 10 + r

    assert run() == 234


@pytest.mark.parametrize("rows", [[[2, 3], [4, 5]], [[2], [4]], [[2, 3]]])
def test_a_matrix_does_not_unpack_even_when_the_count_matches(rows: list) -> None:
    @ti.kernel
    def run() -> ti.i32:
        m = ti.Matrix(rows)
        p, q = m  # 4, 2 or 1x2 entries: Taichi unpacks vectors only
        return 0

    with pytest.raises(ti.TaichiCompilationError, match="more than one columns") as info:
        run()
    assert "p, q = m" in str(info.value)


def test_unpacking_a_matrix_into_as_many_targets_as_its_entries_is_refused() -> None:
    a = ti.field(ti.f32, shape=4)

    @ti.kernel
    def run():
        m = ti.Matrix([[2, 3], [4, 5]])
        a[0], a[1], a[2], a[3] = m

    with pytest.raises(ti.TaichiCompilationError, match="cannot unpack a 2x2 matrix"):
        run()


def test_a_count_mismatch_names_both_counts_and_taichi_words() -> None:
    a = ti.field(ti.f32, shape=2)

    @ti.kernel
    def run():
        a[0], a[1] = ti.Vector([1, 2, 3])

    with pytest.raises(ti.TaichiSyntaxError, match="3 values into 2 targets") as info:
        run()
    assert "The number of targets is not equal to value length" in str(info.value)


@pytest.mark.parametrize("name", ["atomic_min", "atomic_add", "atomic_and", "atomic_xor"])
def test_an_atomic_on_a_value_that_cannot_be_written_is_refused_with_taichi_words(
    name: str,
) -> None:
    atomic = getattr(ti, name)

    @ti.kernel
    def run():
        y = ti.Vector([1, 2, 3])
        z = atomic([3, 2, 1], y)  # noqa: F841 - the first operand is a list, not a place

    with pytest.raises(ti.TaichiSyntaxError, match=f"ti.{name}\\(\\) needs a field element") as e:
        run()
    assert f"cannot use a non-writable target as the first operand of '{name}'" in str(e.value)
