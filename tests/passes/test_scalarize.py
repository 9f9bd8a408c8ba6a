"""scalarize: tensor variables and values become their scalar elements (golden text)."""

from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import scalarize


def test_scalar_kernel_is_unchanged() -> None:
    check_pass(
        scalarize,
        before="""
        <*f32> $0 = alloca
        <f32> $1 = const 1.0
        $2 : local store [$0 <- $1]
    """,
        after="""
        <*f32> $0 = alloca
        <f32> $1 = const 1.0
        $2 : local store [$0 <- $1]
    """,
    )


def test_tensor_variable_becomes_one_variable_per_element() -> None:
    check_pass(
        scalarize,
        before="""
        <f32> $0 = const 1.0
        <f32> $1 = const 2.0
        <*[Tensor (2) f32]> $2 = alloca
        <[Tensor (2) f32]> $3 = [$0, $1]
        $4 : local store [$2 <- $3]
        <[Tensor (2) f32]> $5 = local load [$2]
        <f32> $6 = get element $5[1]
        <f32> $7 = add $6 $6
    """,
        after="""
        <f32> $0 = const 1.0
        <f32> $1 = const 2.0
        <*f32> $2 = alloca
        <*f32> $3 = alloca
        $4 : local store [$2 <- $0]
        $5 : local store [$3 <- $1]
        <f32> $6 = local load [$3]
        <f32> $7 = add $6 $6
    """,
    )


def test_constant_element_pointer_is_that_elements_variable() -> None:
    check_pass(
        scalarize,
        before="""
        <i32> $0 = const 1
        <*[Tensor (2, 2) i32]> $1 = alloca
        <*i32> $2 = shift ptr [$1 + $0]
        $3 : local store [$2 <- $0]
        <i32> $4 = local load [$2]
    """,
        after="""
        <i32> $0 = const 1
        <*i32> $1 = alloca
        <*i32> $2 = alloca
        <*i32> $3 = alloca
        <*i32> $4 = alloca
        $5 : local store [$2 <- $0]
        <i32> $6 = local load [$2]
    """,
    )


def test_run_time_index_reads_through_select_and_writes_through_ifs() -> None:
    check_pass(
        scalarize,
        before="""
        <i32> $0 = argload[0]
        <f32> $1 = const 5.0
        <*[Tensor (2) f32]> $2 = alloca
        <*f32> $3 = shift ptr [$2 + $0]
        $4 : local store [$3 <- $1]
        <f32> $5 = local load [$3]
    """,
        after="""
        <i32> $0 = argload[0]
        <f32> $1 = const 5.0
        <*f32> $2 = alloca
        <*f32> $3 = alloca
        <i32> $4 = const 0
        <u1> $5 = cmp_eq $0 $4
        $6 : if $5 {
          $7 : local store [$2 <- $1]
        }
        <i32> $8 = const 1
        <u1> $9 = cmp_eq $0 $8
        $10 : if $9 {
          $11 : local store [$3 <- $1]
        }
        <f32> $12 = local load [$2]
        <f32> $13 = local load [$3]
        <i32> $14 = const 1
        <u1> $15 = cmp_eq $0 $14
        <f32> $16 = select($15, $13, $12)
    """,
    )


def test_atomic_at_a_run_time_index_reads_through_select_and_updates_through_ifs() -> None:
    check_pass(
        scalarize,
        before="""
        <i32> $0 = argload[0]
        <i32> $1 = const 5
        <*[Tensor (2) i32]> $2 = alloca
        <*i32> $3 = shift ptr [$2 + $0]
        <i32> $4 = atomic add($3, $1)
        $5 : return $4
    """,
        after="""
        <i32> $0 = argload[0]
        <i32> $1 = const 5
        <*i32> $2 = alloca
        <*i32> $3 = alloca
        <i32> $4 = local load [$2]
        <i32> $5 = local load [$3]
        <i32> $6 = const 1
        <u1> $7 = cmp_eq $0 $6
        <i32> $8 = select($7, $5, $4)
        <i32> $9 = const 0
        <u1> $10 = cmp_eq $0 $9
        $11 : if $10 {
          <i32> $12 = atomic add($2, $1)
        }
        <i32> $13 = const 1
        <u1> $14 = cmp_eq $0 $13
        $15 : if $14 {
          <i32> $16 = atomic add($3, $1)
        }
        $17 : return $8
    """,
    )


def test_element_wise_tensor_arithmetic_splits() -> None:
    check_pass(
        scalarize,
        before="""
        <i32> $0 = const 1
        <i32> $1 = const 2
        <[Tensor (2) i32]> $2 = [$0, $1]
        <[Tensor (2) i32]> $3 = mul $2 $2
        <i32> $4 = get element $3[0]
    """,
        after="""
        <i32> $0 = const 1
        <i32> $1 = const 2
        <i32> $2 = mul $0 $0
        <i32> $3 = mul $1 $1
    """,
    )
