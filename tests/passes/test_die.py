from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.passes import die


def test_live_code_is_left_alone():
    text = """
        <i32> $0 = const 1
        <*i32> $1 = global tmp var (offset = 0 B)
        <i32> $2 = atomic add($1, $0)
        <*i32> $3 = alloca
        $4 : local store [$3 <- $0]
        $5 : while true {
          <i32> $6 = local load [$3]
          $7 : global store [$1 <- $6]
          $8 : break
        }
        $9 = offloaded serial body {
        }
    """
    check_pass(die, before=text, after=text)


def test_die_removes_a_dead_chain():
    check_pass(
        die,
        before="""
            <i32> $0 = const 1
            <i32> $1 = add $0 $0
            <i32> $2 = mul $1 $1
            <*i32> $3 = global tmp var (offset = 0 B)
            $4 : global store [$3 <- $0]
        """,
        after="""
            <i32> $0 = const 1
            <*i32> $1 = global tmp var (offset = 0 B)
            $2 : global store [$1 <- $0]
        """,
    )


def test_unused_loads_are_removed_but_atomics_stay():
    check_pass(
        die,
        before="""
            <i32> $0 = const 0
            <*f32> $1 = global ptr [S2place<f32>], index [$0]
            <f32> $2 = global load $1
            <f32> $3 = const 1.0
            <f32> $4 = atomic add($1, $3)
            <*i32> $5 = alloca
            <i32> $6 = local load [$5]
            <i32> $7 = atomic add($5, $0)
        """,
        after="""
            <i32> $0 = const 0
            <*f32> $1 = global ptr [S2place<f32>], index [$0]
            <f32> $2 = const 1.0
            <f32> $3 = atomic add($1, $2)
            <*i32> $4 = alloca
            <i32> $5 = atomic add($4, $0)
        """,
    )


def test_variable_that_is_only_written_dies_with_its_stores_and_empty_if():
    check_pass(
        die,
        before="""
            <i32> $0 = argload[0]
            <*i32> $1 = alloca
            $2 : local store [$1 <- $0]
            <i32> $3 = const 0
            <u1> $4 = cmp_lt $0 $3
            $5 : if $4 {
              <i32> $6 = neg $0
              $7 : local store [$1 <- $6]
            }
            $8 : return $0
        """,
        after="""
            <i32> $0 = argload[0]
            $1 : return $0
        """,
    )


def test_a_variable_whose_loads_are_all_dead_is_removed_in_the_same_run():
    check_pass(
        die,
        before="""
            <i32> $0 = const 3
            <*i32> $1 = alloca
            $2 : local store [$1 <- $0]
            <*i32> $3 = alloca
            <i32> $4 = local load [$1]
            $5 : local store [$3 <- $4]
            <i32> $6 = local load [$3]
            <i32> $7 = add $6 $6
        """,
        after="""
        """,
    )


def test_empty_branches_and_loops_are_removed():
    check_pass(
        die,
        before="""
            <i32> $0 = argload[0]
            <u1> $1 = argload[1]
            $2 : if $1 {
            } else {
              <i32> $3 = add $0 $0
            }
            <i32> $4 = const 0
            $5 : for in range($4, $0) reversed=false serialize=false {
              <i32> $6 = loop $5 index 0
            }
            $7 : struct for in S1dense {
            }
            $8 : return $0, $1
        """,
        after="""
            <i32> $0 = argload[0]
            <u1> $1 = argload[1]
            $2 : return $0, $1
        """,
    )


def test_branches_and_loops_with_effects_stay():
    text = """
        <i32> $0 = argload[0]
        <u1> $1 = argload[1]
        <*i32> $2 = global tmp var (offset = 0 B)
        $3 : if $1 {
        } else {
          $4 : global store [$2 <- $0]
        }
        <i32> $5 = const 0
        $6 : for in range($5, $0) reversed=false serialize=true {
          <i32> $7 = loop $6 index 0
          $8 : global store [$2 <- $7]
        }
        $9 : while true {
        }
    """
    check_pass(die, before=text, after=text)


def test_a_read_in_a_nested_block_keeps_the_variable():
    text = """
        <i32> $0 = const 1
        <*i32> $1 = alloca
        $2 : local store [$1 <- $0]
        $3 : while true {
          <i32> $4 = local load [$1]
          <*i32> $5 = global tmp var (offset = 0 B)
          $6 : global store [$5 <- $4]
          $7 : break
        }
    """
    check_pass(die, before=text, after=text)


def test_an_atomic_on_a_variable_reads_it():
    text = """
        <i32> $0 = const 1
        <*i32> $1 = alloca
        $2 : local store [$1 <- $0]
        <i32> $3 = atomic add($1, $0)
        <*i32> $4 = global tmp var (offset = 0 B)
        $5 : global store [$4 <- $3]
    """
    check_pass(die, before=text, after=text)
