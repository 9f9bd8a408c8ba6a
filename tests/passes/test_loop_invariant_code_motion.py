from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import loop_invariant_code_motion as licm


def test_values_that_change_per_iteration_stay_in_the_loop():
    text = """
        <i32> $0 = const 0
        <i32> $1 = const 10
        <*i32> $2 = global tmp var (offset = 0 B)
        $3 = offloaded serial body {
          $4 : for in range($0, $1) reversed=false serialize=false {
            <i32> $5 = loop $4 index 0
            <i32> $6 = add $5 $1
            <i32> $7 = global load $2
            <i32> $8 = mul $7 $7
            <*i32> $9 = alloca
            <i32> $10 = atomic add($2, $8)
            $11 : global store [$2 <- $6]
          }
        }
    """
    check_pass(licm, before=text, after=text)


def test_invariant_arithmetic_moves_before_a_serial_loop():
    check_pass(
        licm,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 0
            <*i32> $2 = global tmp var (offset = 0 B)
            $3 = offloaded serial body {
              $4 : for in range($1, $0) reversed=false serialize=false {
                <i32> $5 = loop $4 index 0
                <i32> $6 = const 3
                <i32> $7 = mul $0 $6
                <i32> $8 = add $5 $7
                <i32> $9 = sub $7 $0
                $10 : global store [$2 <- $8]
                $11 : global store [$2 <- $9]
              }
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 0
            <*i32> $2 = global tmp var (offset = 0 B)
            $3 = offloaded serial body {
              <i32> $4 = const 3
              <i32> $5 = mul $0 $4
              <i32> $6 = sub $5 $0
              $7 : for in range($1, $0) reversed=false serialize=false {
                <i32> $8 = loop $7 index 0
                <i32> $9 = add $8 $5
                $10 : global store [$2 <- $9]
                $11 : global store [$2 <- $6]
              }
            }
        """,
    )


def test_the_outermost_parallel_loop_keeps_its_body():
    text = """
        <i32> $0 = argload[0]
        <i32> $1 = const 0
        $2 : for in range($1, $0) reversed=false serialize=false {
          <i32> $3 = const 3
          <i32> $4 = mul $0 $3
          <*i32> $5 = global ptr [S1place<i32>], index [$4]
          $6 : global store [$5 <- $4]
        }
    """
    check_pass(licm, before=text, after=text)


def test_a_serialized_top_level_loop_and_a_while_loop_are_hoisted_from():
    check_pass(
        licm,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 0
            <*i32> $2 = global tmp var (offset = 0 B)
            $3 : for in range($1, $0) reversed=false serialize=true {
              <i32> $4 = neg $0
              $5 : global store [$2 <- $4]
            }
            $6 : while true {
              <i32> $7 = global load $2
              <u1> $8 = cmp_gt $7 $1
              <i32> $9 = bit_shl $0 $0
              $10 : if $8 {
                <i32> $11 = add $0 $0
                $12 : global store [$2 <- $11]
                $13 : break
              }
              $14 : global store [$2 <- $9]
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <i32> $1 = const 0
            <*i32> $2 = global tmp var (offset = 0 B)
            <i32> $3 = neg $0
            $4 : for in range($1, $0) reversed=false serialize=true {
              $5 : global store [$2 <- $3]
            }
            <i32> $6 = bit_shl $0 $0
            $7 : while true {
              <i32> $8 = global load $2
              <u1> $9 = cmp_gt $8 $1
              $10 : if $9 {
                <i32> $11 = add $0 $0
                $12 : global store [$2 <- $11]
                $13 : break
              }
              $14 : global store [$2 <- $6]
            }
        """,
    )


def test_values_climb_out_of_nested_loops_in_one_run():
    check_pass(
        licm,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 16
            $2 : for in range($0, $1) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
              $4 : for in range($0, $1) reversed=false serialize=false {
                <i32> $5 = loop $4 index 0
                $6 : for in range($0, $1) reversed=false serialize=false {
                  <i32> $7 = loop $6 index 0
                  <i32> $8 = const 2
                  <i32> $9 = mul $3 $8
                  <i32> $10 = loop $2 index 0
                  <*gen> $11 = get root [tree 0]
                  <*gen> $12 = [S1dense]::lookup($11, $9)
                  <*i32> $13 = get child [S2place<i32>] $12
                  <i32> $14 = add $7 $5
                  $15 : global store [$13 <- $14]
                  $16 : global store [$13 <- $10]
                }
              }
            }
        """,
        after="""
            <i32> $0 = const 0
            <i32> $1 = const 16
            $2 : for in range($0, $1) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
              <i32> $4 = const 2
              <i32> $5 = mul $3 $4
              <i32> $6 = loop $2 index 0
              <*gen> $7 = get root [tree 0]
              <*gen> $8 = [S1dense]::lookup($7, $5)
              <*i32> $9 = get child [S2place<i32>] $8
              $10 : for in range($0, $1) reversed=false serialize=false {
                <i32> $11 = loop $10 index 0
                $12 : for in range($0, $1) reversed=false serialize=false {
                  <i32> $13 = loop $12 index 0
                  <i32> $14 = add $13 $11
                  $15 : global store [$9 <- $14]
                  $16 : global store [$9 <- $6]
                }
              }
            }
        """,
    )


def test_a_range_for_task_body_is_not_hoisted_from_but_its_inner_loops_are():
    check_pass(
        licm,
        before="""
            <i32> $0 = argload[0]
            $1 = offloaded range_for(0, 8) body {
              <i32> $2 = const 1
              <*i32> $3 = external_ptr arg 1, [$0]
              <i32> $4 = const 0
              $5 : for in range($4, $0) reversed=false serialize=false {
                <*i32> $6 = external_ptr arg 1, [$2]
                <i32> $7 = external_tensor_shape_along_axis 0, arg 1
                $8 : global store [$3 <- $7]
                $9 : global store [$6 <- $7]
              }
            }
        """,
        after="""
            <i32> $0 = argload[0]
            $1 = offloaded range_for(0, 8) body {
              <i32> $2 = const 1
              <*i32> $3 = external_ptr arg 1, [$0]
              <i32> $4 = const 0
              <*i32> $5 = external_ptr arg 1, [$2]
              <i32> $6 = external_tensor_shape_along_axis 0, arg 1
              $7 : for in range($4, $0) reversed=false serialize=false {
                $8 : global store [$3 <- $6]
                $9 : global store [$5 <- $6]
              }
            }
        """,
    )
