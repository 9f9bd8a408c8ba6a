from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import cse


def test_different_computations_are_left_alone():
    text = """
        <i32> $0 = argload[0]
        <i32> $1 = argload[1]
        <i32> $2 = add $0 $1
        <i32> $3 = sub $0 $1
        <i32> $4 = add $1 $0
        <i64> $5 = const 1
        <i32> $6 = const 1
        <f32> $7 = const 0.0
        <f32> $8 = const -0.0
        <*f32> $9 = global ptr [S2place<f32>], index [$0]
        <*f32> $10 = global ptr [S3place<f32>], index [$0]
        $11 : return $2, $3, $4, $5, $6, $7, $8, $9, $10
    """
    check_pass(cse, before=text, after=text)


def test_repeated_expression_and_constant_in_one_block():
    check_pass(
        cse,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 2
            <i32> $2 = mul $0 $1
            <i32> $3 = const 2
            <i32> $4 = mul $0 $3
            <i32> $5 = add $2 $4
            $6 : return $5
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 2
            <i32> $2 = mul $0 $1
            <i32> $3 = add $2 $2
            $4 : return $3
        """,
    )


def test_a_chain_of_repeats_merges_in_one_run():
    check_pass(
        cse,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = add $0 $1
            <i32> $3 = mul $2 $2
            <i32> $4 = add $0 $1
            <i32> $5 = mul $4 $4
            <u1> $6 = cmp_lt $3 $5
            $7 : return $6
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            <i32> $2 = add $0 $1
            <i32> $3 = mul $2 $2
            <u1> $4 = cmp_lt $3 $3
            $5 : return $4
        """,
    )


def test_nested_blocks_reuse_values_of_enclosing_blocks():
    check_pass(
        cse,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 1
            <i32> $2 = add $0 $1
            <u1> $3 = argload[1]
            $4 : if $3 {
              <i32> $5 = const 1
              <i32> $6 = add $0 $5
              $7 : for in range($1, $6) reversed=false serialize=false {
                <i32> $8 = add $0 $1
                <i32> $9 = loop $7 index 0
                <i32> $10 = loop $7 index 0
                <*i32> $11 = global ptr [S1place<i32>], index [$9]
                <*i32> $12 = global ptr [S1place<i32>], index [$10]
                $13 : global store [$11 <- $8]
                $14 : global store [$12 <- $2]
              }
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 1
            <i32> $2 = add $0 $1
            <u1> $3 = argload[1]
            $4 : if $3 {
              $5 : for in range($1, $2) reversed=false serialize=false {
                <i32> $6 = loop $5 index 0
                <*i32> $7 = global ptr [S1place<i32>], index [$6]
                $8 : global store [$7 <- $2]
                $9 : global store [$7 <- $2]
              }
            }
        """,
    )


def test_sibling_branches_and_later_code_do_not_see_inner_values():
    text = """
        <i32> $0 = argload[0]
        <u1> $1 = argload[1]
        <*i32> $2 = global tmp var (offset = 0 B)
        $3 : if $1 {
          <i32> $4 = neg $0
          $5 : global store [$2 <- $4]
        } else {
          <i32> $6 = neg $0
          $7 : global store [$2 <- $6]
        }
        <i32> $8 = neg $0
        $9 : return $8
    """
    check_pass(cse, before=text, after=text)


def test_loads_are_never_merged():
    text = """
        <*i32> $0 = global tmp var (offset = 0 B)
        <i32> $1 = global load $0
        <i32> $2 = global load $0
        <*i32> $3 = alloca
        <i32> $4 = local load [$3]
        <i32> $5 = local load [$3]
        <*i32> $6 = alloca
        <i32> $7 = atomic add($0, $1)
        <i32> $8 = atomic add($0, $1)
        $9 : return $1, $2, $4, $5, $7, $8
    """
    check_pass(cse, before=text, after=text)


def test_address_computations_merge():
    check_pass(
        cse,
        before="""
            <i32> $0 = argload[0]
            <*gen> $1 = get root [tree 0]
            <*gen> $2 = [S1dense]::lookup($1, $0)
            <*f32> $3 = get child [S2place<f32>] $2
            <*gen> $4 = get root [tree 0]
            <*gen> $5 = [S1dense]::lookup($4, $0)
            <*f32> $6 = get child [S2place<f32>] $5
            <*f32> $7 = external_ptr arg 1, [$0, $0]
            <*f32> $8 = external_ptr arg 1, [$0, $0]
            <i32> $9 = external_tensor_shape_along_axis 0, arg 1
            <i32> $10 = external_tensor_shape_along_axis 0, arg 1
            <*f32> $11 = thread local ptr (offset = 4 B)
            <*f32> $12 = thread local ptr (offset = 4 B)
            $13 : return $3, $6, $7, $8, $9, $10, $11, $12
        """,
        after="""
            <i32> $0 = argload[0]
            <*gen> $1 = get root [tree 0]
            <*gen> $2 = [S1dense]::lookup($1, $0)
            <*f32> $3 = get child [S2place<f32>] $2
            <*f32> $4 = external_ptr arg 1, [$0, $0]
            <i32> $5 = external_tensor_shape_along_axis 0, arg 1
            <*f32> $6 = thread local ptr (offset = 4 B)
            $7 : return $3, $3, $4, $4, $5, $5, $6, $6
        """,
    )


def test_offloaded_tasks_share_nothing():
    check_pass(
        cse,
        before="""
            $0 = offloaded serial body {
              <i32> $1 = const 7
              <*i32> $2 = global tmp var (offset = 0 B)
              $3 : global store [$2 <- $1]
            }
            $4 = offloaded range_for(0, 8) body {
              <i32> $5 = const 7
              <*i32> $6 = global tmp var (offset = 0 B)
              <i32> $7 = const 7
              $8 : global store [$6 <- $7]
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = const 7
              <*i32> $2 = global tmp var (offset = 0 B)
              $3 : global store [$2 <- $1]
            }
            $4 = offloaded range_for(0, 8) body {
              <i32> $5 = const 7
              <*i32> $6 = global tmp var (offset = 0 B)
              $7 : global store [$6 <- $5]
            }
        """,
    )


def test_a_task_does_not_reuse_a_value_from_outside_it():
    text = """
        <i32> $0 = const 7
        $1 = offloaded serial body {
          <i32> $2 = const 7
          $3 : return $2
        }
        $4 : return $0
    """
    check_pass(cse, before=text, after=text)
