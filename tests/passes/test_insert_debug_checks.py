"""insert_debug_checks: bounds checks before field and ndarray accesses, divisor checks before
integer division; nothing for accesses and divisions that are safe by construction."""

from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout
from tistudio.ir.types import f32
from tistudio.passes import insert_debug_checks

X_CHECK = (
    """$7 : assert $6, "Accessing field 'x' of shape (4, 8) with indices (%d, %d)", """
    "args [$0, $1]"
)
ARR_CHECK = (
    """$6 : assert $5, "Accessing ndarray argument 'arr1' of shape (%d,) with indices (%d,): """
    """Out of bound access", args [$1, $0]"""
)


def _field() -> dict[int, SNode]:
    """root -> dense(ij, (4, 8)) -> place<f32> named x; ids 0, 1, 2."""
    root = SNode(0, "root")
    dense = root.dense((0, 1), (4, 8), 1)
    place = dense.place(f32, 2, "x")
    finalize_layout(root)
    return {0: root, 1: dense, 2: place}


def test_field_access_gets_a_check_of_its_runtime_indices_only():
    check_pass(
        insert_debug_checks,
        snodes=_field(),
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 3
            <*f32> $2 = global ptr [S2place<f32>], index [$0, $1]
            <f32> $3 = global load $2
        """,
        after=f"""
            <i32> $0 = argload[0]
            <i32> $1 = const 3
            <i32> $2 = const 4
            <i32> $3 = const 0
            <u1> $4 = cmp_ge $0 $3
            <u1> $5 = cmp_lt $0 $2
            <u1> $6 = bit_and $4 $5
            {X_CHECK}
            <*f32> $8 = global ptr [S2place<f32>], index [$0, $1]
            <f32> $9 = global load $8
        """,
    )


def test_constant_indices_inside_the_shape_and_float_division_change_nothing():
    text = """
        <i32> $0 = const 3
        <i32> $1 = const 7
        <*f32> $2 = global ptr [S2place<f32>], index [$0, $1]
        <f32> $3 = global load $2
        <f32> $4 = truediv $3 $3
        <i32> $5 = floordiv $0 $1
    """
    check_pass(insert_debug_checks, snodes=_field(), before=text, after=text)


def test_constant_index_outside_the_shape_is_checked():
    check_pass(
        insert_debug_checks,
        snodes=_field(),
        before="""
            <i32> $0 = const 4
            <i32> $1 = const 0
            <*f32> $2 = global ptr [S2place<f32>], index [$0, $1]
        """,
        after=f"""
            <i32> $0 = const 4
            <i32> $1 = const 0
            <i32> $2 = const 4
            <i32> $3 = const 0
            <u1> $4 = cmp_ge $0 $3
            <u1> $5 = cmp_lt $0 $2
            <u1> $6 = bit_and $4 $5
            {X_CHECK}
            <*f32> $8 = global ptr [S2place<f32>], index [$0, $1]
        """,
    )


def test_ndarray_access_is_checked_against_its_extents_read_at_run_time():
    check_pass(
        insert_debug_checks,
        before="""
            <i32> $0 = argload[0]
            <*f32> $1 = external_ptr arg 1, [$0]
        """,
        after=f"""
            <i32> $0 = argload[0]
            <i32> $1 = external_tensor_shape_along_axis 0, arg 1
            <i32> $2 = const 0
            <u1> $3 = cmp_ge $0 $2
            <u1> $4 = cmp_lt $0 $1
            <u1> $5 = bit_and $3 $4
            {ARR_CHECK}
            <*f32> $7 = external_ptr arg 1, [$0]
        """,
    )


def test_integer_division_and_modulo_by_a_variable_are_checked():
    check_pass(
        insert_debug_checks,
        before="""
            <i64> $0 = argload[0]
            <i64> $1 = argload[1]
            <i64> $2 = mod $0 $1
        """,
        after="""
            <i64> $0 = argload[0]
            <i64> $1 = argload[1]
            <i64> $2 = const 0
            <u1> $3 = cmp_ne $1 $2
            $4 : assert $3, "Integer division by zero: %d divided by 0", args [$0]
            <i64> $5 = mod $0 $1
        """,
    )
