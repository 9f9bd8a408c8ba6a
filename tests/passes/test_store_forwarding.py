from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import store_forwarding


def test_loads_with_no_known_value_are_left_alone():
    text = """
        <*i32> $0 = alloca
        <i32> $1 = local load [$0]
        <i32> $2 = const 1
        <i32> $3 = add $1 $2
        $4 : local store [$0 <- $3]
        <*i32> $5 = global tmp var (offset = 0 B)
        <i32> $6 = global load $5
        $7 : return $6
    """
    check_pass(store_forwarding, before=text, after=text)


def test_a_load_after_a_store_becomes_the_stored_value():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            $2 : local store [$1 <- $0]
            <i32> $3 = local load [$1]
            <i32> $4 = mul $3 $3
            $5 : local store [$1 <- $4]
            <i32> $6 = local load [$1]
            $7 : return $6
        """,
        after="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            <i32> $2 = mul $0 $0
            $3 : return $2
        """,
    )


def test_a_load_before_the_first_store_reads_memory():
    check_pass(
        store_forwarding,
        before="""
            <*i32> $0 = alloca
            <i32> $1 = local load [$0]
            <i32> $2 = const 1
            $3 : local store [$0 <- $2]
            <i32> $4 = local load [$0]
            $5 : return $1, $4
        """,
        after="""
            <*i32> $0 = alloca
            <i32> $1 = local load [$0]
            <i32> $2 = const 1
            $3 : local store [$0 <- $2]
            $4 : return $1, $2
        """,
    )


def test_a_variable_stored_once_is_forwarded_into_branches_and_loops():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            $2 : local store [$1 <- $0]
            <u1> $3 = argload[1]
            <*i32> $4 = global tmp var (offset = 0 B)
            $5 : if $3 {
              <i32> $6 = local load [$1]
              $7 : global store [$4 <- $6]
            }
            $8 : for in range($0, $0) reversed=false serialize=false {
              $9 : while true {
                <i32> $10 = local load [$1]
                $11 : global store [$4 <- $10]
                $12 : break
              }
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            <u1> $2 = argload[1]
            <*i32> $3 = global tmp var (offset = 0 B)
            $4 : if $2 {
              $5 : global store [$3 <- $0]
            }
            $6 : for in range($0, $0) reversed=false serialize=false {
              $7 : while true {
                $8 : global store [$3 <- $0]
                $9 : break
              }
            }
        """,
    )


def test_a_loop_that_stores_the_variable_sees_its_own_stores():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 10
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            $4 : for in range($0, $1) reversed=false serialize=false {
              <i32> $5 = local load [$2]
              <i32> $6 = loop $4 index 0
              <i32> $7 = add $5 $6
              $8 : local store [$2 <- $7]
              <i32> $9 = local load [$2]
              <*i32> $10 = global ptr [S1place<i32>], index [$6]
              $11 : global store [$10 <- $9]
            }
            <i32> $12 = local load [$2]
            $13 : return $12
        """,
        after="""
            <i32> $0 = const 0
            <i32> $1 = const 10
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            $4 : for in range($0, $1) reversed=false serialize=false {
              <i32> $5 = local load [$2]
              <i32> $6 = loop $4 index 0
              <i32> $7 = add $5 $6
              $8 : local store [$2 <- $7]
              <*i32> $9 = global ptr [S1place<i32>], index [$6]
              $10 : global store [$9 <- $7]
            }
            <i32> $11 = local load [$2]
            $12 : return $11
        """,
    )


def test_a_store_in_a_nested_loop_blocks_forwarding_into_the_outer_loop():
    text = """
        <i32> $0 = const 0
        <i32> $1 = const 10
        <*i32> $2 = alloca
        $3 : local store [$2 <- $0]
        $4 : while true {
          <i32> $5 = local load [$2]
          <u1> $6 = cmp_ge $5 $1
          $7 : if $6 {
            $8 : break
          }
          $9 : for in range($0, $1) reversed=false serialize=false {
            <i32> $10 = local load [$2]
            <i32> $11 = add $10 $1
            $12 : local store [$2 <- $11]
          }
        }
    """
    check_pass(store_forwarding, before=text, after=text)


def test_a_store_in_one_branch_blocks_forwarding_after_the_if():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = const 0
            <u1> $1 = argload[0]
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            $4 : if $1 {
              <i32> $5 = const 5
              $6 : local store [$2 <- $5]
              <i32> $7 = local load [$2]
              $8 : return $7
            }
            <i32> $9 = local load [$2]
            $10 : return $9
        """,
        after="""
            <i32> $0 = const 0
            <u1> $1 = argload[0]
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            $4 : if $1 {
              <i32> $5 = const 5
              $6 : local store [$2 <- $5]
              $7 : return $5
            }
            <i32> $8 = local load [$2]
            $9 : return $8
        """,
    )


def test_a_store_overwritten_before_any_read_is_deleted():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 1
            <*i32> $2 = alloca
            $3 : local store [$2 <- $0]
            $4 : local store [$2 <- $1]
            $5 : for in range($0, $1) reversed=false serialize=false {
              <i32> $6 = local load [$2]
              <i32> $7 = add $6 $1
              $8 : local store [$2 <- $0]
              $9 : local store [$2 <- $7]
            }
        """,
        after="""
            <i32> $0 = const 0
            <i32> $1 = const 1
            <*i32> $2 = alloca
            $3 : local store [$2 <- $1]
            $4 : for in range($0, $1) reversed=false serialize=false {
              <i32> $5 = local load [$2]
              <i32> $6 = add $5 $1
              $7 : local store [$2 <- $6]
            }
        """,
    )


def test_a_read_in_a_nested_block_keeps_the_earlier_store():
    text = """
        <i32> $0 = const 0
        <i32> $1 = const 1
        <*i32> $2 = alloca
        $3 : local store [$2 <- $0]
        $4 : while true {
          <i32> $5 = local load [$2]
          <u1> $6 = cmp_gt $5 $1
          $7 : if $6 {
            $8 : break
          }
          <i32> $9 = add $5 $1
          $10 : local store [$2 <- $9]
        }
        $11 : local store [$2 <- $1]
        $12 : for in range($0, $1) reversed=false serialize=false {
          <i32> $13 = local load [$2]
          $14 : local store [$2 <- $13]
        }
        $15 : local store [$2 <- $0]
    """
    check_pass(store_forwarding, before=text, after=text)


def test_a_store_before_a_break_is_kept():
    text = """
        <i32> $0 = const 0
        <i32> $1 = const 1
        <u1> $2 = argload[0]
        <*i32> $3 = alloca
        $4 : while true {
          $5 : local store [$3 <- $0]
          $6 : if $2 {
            $7 : break
          }
          $8 : local store [$3 <- $1]
          $9 : continue
        }
        <i32> $10 = local load [$3]
        $11 : return $10
    """
    check_pass(store_forwarding, before=text, after=text)


def test_stores_to_a_variable_nobody_reads_are_deleted():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            $2 : local store [$1 <- $0]
            $3 : for in range($0, $0) reversed=false serialize=false {
              <i32> $4 = loop $3 index 0
              $5 : local store [$1 <- $4]
            }
        """,
        after="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            $2 : for in range($0, $0) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
            }
        """,
    )


def test_a_forwarded_value_flows_through_several_variables():
    check_pass(
        store_forwarding,
        before="""
            <f32> $0 = argload[0]
            <*f32> $1 = alloca
            <*f32> $2 = alloca
            $3 : local store [$1 <- $0]
            <f32> $4 = local load [$1]
            $5 : local store [$2 <- $4]
            <f32> $6 = local load [$2]
            $7 : return $6
        """,
        after="""
            <f32> $0 = argload[0]
            <*f32> $1 = alloca
            <*f32> $2 = alloca
            $3 : return $0
        """,
    )


def test_a_variable_used_by_an_atomic_is_not_touched():
    text = """
        <i32> $0 = const 1
        <*i32> $1 = alloca
        $2 : local store [$1 <- $0]
        <i32> $3 = atomic add($1, $0)
        $4 : local store [$1 <- $0]
        <i32> $5 = local load [$1]
        $6 : return $3, $5
    """
    check_pass(store_forwarding, before=text, after=text)


def test_global_store_is_forwarded_to_a_load_of_the_same_pointer():
    check_pass(
        store_forwarding,
        before="""
            <i32> $0 = argload[0]
            <*f32> $1 = global ptr [S1place<f32>], index [$0]
            <f32> $2 = const 2.0
            $3 : global store [$1 <- $2]
            <f32> $4 = global load $1
            <*f32> $5 = global ptr [S1place<f32>], index [$0]
            <f32> $6 = global load $5
            $7 : return $4, $6
        """,
        after="""
            <i32> $0 = argload[0]
            <*f32> $1 = global ptr [S1place<f32>], index [$0]
            <f32> $2 = const 2.0
            $3 : global store [$1 <- $2]
            <*f32> $4 = global ptr [S1place<f32>], index [$0]
            <f32> $5 = global load $4
            $6 : return $2, $5
        """,
    )


def test_global_forwarding_stops_at_other_stores_atomics_and_blocks():
    text = """
        <i32> $0 = argload[0]
        <*f32> $1 = global ptr [S1place<f32>], index [$0]
        <*f32> $2 = external_ptr arg 1, [$0]
        <f32> $3 = const 2.0
        $4 : global store [$1 <- $3]
        $5 : global store [$2 <- $3]
        <f32> $6 = global load $1
        $7 : global store [$1 <- $3]
        <f32> $8 = atomic add($2, $3)
        <f32> $9 = global load $1
        $10 : global store [$1 <- $3]
        <u1> $11 = argload[2]
        $12 : if $11 {
          <f32> $13 = global load $1
          $14 : return $13
        }
        <f32> $15 = global load $1
        $16 : return $6, $9, $15
    """
    check_pass(store_forwarding, before=text, after=text)


def test_tasks_start_with_nothing_known():
    check_pass(
        store_forwarding,
        before="""
            <*i32> $0 = global tmp var (offset = 0 B)
            <i32> $1 = const 3
            $2 : global store [$0 <- $1]
            $3 = offloaded serial body {
              <i32> $4 = global load $0
              <*i32> $5 = alloca
              $6 : local store [$5 <- $4]
              <i32> $7 = local load [$5]
              $8 : return $7
            }
        """,
        after="""
            <*i32> $0 = global tmp var (offset = 0 B)
            <i32> $1 = const 3
            $2 : global store [$0 <- $1]
            $3 = offloaded serial body {
              <i32> $4 = global load $0
              <*i32> $5 = alloca
              $6 : return $4
            }
        """,
    )


def test_a_load_after_a_conditional_store_reads_the_earlier_store():
    text = """
        <i32> $0 = const 1
        <i32> $1 = const 2
        <u1> $2 = argload[0]
        <*i32> $3 = alloca
        $4 : local store [$3 <- $0]
        $5 : if $2 {
          $6 : local store [$3 <- $1]
        }
        <i32> $7 = local load [$3]
        $8 : local store [$3 <- $1]
        <*i32> $9 = global tmp var (offset = 0 B)
        $10 : global store [$9 <- $7]
    """
    check_pass(store_forwarding, before=text, after=text)


def test_a_task_does_not_use_a_value_stored_outside_it():
    text = """
        <i32> $0 = const 1
        <*i32> $1 = alloca
        $2 : local store [$1 <- $0]
        $3 = offloaded serial body {
          <i32> $4 = local load [$1]
          $5 : return $4
        }
    """
    check_pass(store_forwarding, before=text, after=text)
