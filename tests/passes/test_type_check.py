"""type_check: the casts Taichi's rules imply, made explicit (golden text)."""

from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import type_check


def test_already_typed_kernel_is_unchanged() -> None:
    check_pass(
        type_check,
        before="""
        <i32> $0 = const 1
        <i32> $1 = add $0 $0
    """,
        after="""
        <i32> $0 = const 1
        <i32> $1 = add $0 $0
    """,
        typed=True,
    )


def test_int_operand_of_float_add_is_cast() -> None:
    check_pass(
        type_check,
        before="""
        <i32> $0 = const 1
        <f32> $1 = const 2.5
        <f32> $2 = add $0 $1
    """,
        after="""
        <i32> $0 = const 1
        <f32> $1 = const 2.5
        <f32> $2 = cast_value<f32> $0
        <f32> $3 = add $2 $1
    """,
        typed=False,
    )


def test_integer_truediv_becomes_float_div() -> None:
    check_pass(
        type_check,
        before="""
        <i32> $0 = const 7
        <f32> $1 = truediv $0 $0
    """,
        after="""
        <i32> $0 = const 7
        <f32> $1 = cast_value<f32> $0
        <f32> $2 = cast_value<f32> $0
        <f32> $3 = div $1 $2
    """,
        typed=False,
    )


def test_store_casts_to_the_destination_and_condition_to_u1() -> None:
    check_pass(
        type_check,
        before="""
        <*i32> $0 = alloca
        <f32> $1 = const 2.5
        $2 : local store [$0 <- $1]
        <i32> $3 = local load [$0]
        $4 : if $3 {
        }
    """,
        after="""
        <*i32> $0 = alloca
        <f32> $1 = const 2.5
        <i32> $2 = cast_value<i32> $1
        $3 : local store [$0 <- $2]
        <i32> $4 = local load [$0]
        <u1> $5 = cast_value<u1> $4
        $6 : if $5 {
        }
    """,
        typed=False,
    )


def test_comparison_operands_promote_to_common_type() -> None:
    check_pass(
        type_check,
        before="""
        <u32> $0 = const 1
        <i32> $1 = const 2
        <u1> $2 = cmp_lt $0 $1
    """,
        after="""
        <u32> $0 = const 1
        <i32> $1 = const 2
        <u32> $2 = cast_value<u32> $1
        <u1> $3 = cmp_lt $0 $2
    """,
        typed=False,
    )


def test_store_that_loses_precision_warns() -> None:
    from tistudio.ir import parse_ir
    from tistudio.passes.context import PassContext

    kernel = parse_ir(
        "kernel {\n  <*i32> $0 = alloca\n  <f32> $1 = const 2.5\n  $2 : local store [$0 <- $1]\n}"
    )
    ctx = PassContext()
    type_check.run(kernel, ctx)
    assert [m for m, _ in ctx.warnings] == ["Assign may lose precision: i32 <- f32"]
