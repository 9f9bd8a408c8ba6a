from __future__ import annotations

from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout, parse_ir
from tistudio.ir.types import f32
from tistudio.passes import offload
from tistudio.passes.context import PassContext


def test_offloaded_kernel_is_left_alone():
    check_pass(
        offload,
        before="""
            $0 = offloaded range_for(0, 8) body {
              <i32> $1 = loop $0 index 0
            }
        """,
        after="""
            $0 = offloaded range_for(0, 8) body {
              <i32> $1 = loop $0 index 0
            }
        """,
    )


def test_empty_kernel_stays_empty():
    check_pass(offload, before="kernel {\n}", after="kernel {\n}")


def test_straight_line_code_becomes_one_serial_task():
    check_pass(
        offload,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 1
            <i32> $2 = add $0 $1
            $3 : return $2
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = const 1
              <i32> $3 = add $1 $2
              $4 : return $3
            }
        """,
    )


def test_range_for_with_constant_bounds():
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 128
            $2 : for in range($0, $1) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
              <f32> $4 = argload[0]
              <*f32> $5 = global ptr [S2place<f32>], index [$3]
              <f32> $6 = atomic add($5, $4)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 128) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = argload[0]
              <*f32> $3 = global ptr [S2place<f32>], index [$1]
              <f32> $4 = atomic add($3, $2)
            }
        """,
    )


def test_dynamic_end_is_computed_by_a_serial_task_into_a_gtmp():
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = argload[0]
            $2 : for in range($0, $1) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
              <*f32> $4 = global ptr [S2place<f32>], index [$3]
              <f32> $5 = const 1.0
              $6 : global store [$4 <- $5]
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <*i32> $2 = global tmp var (offset = 0 B)
              $3 : global store [$2 <- $1]
            }
            $4 = offloaded range_for(0, tmp(offset=0B)) body {
              <i32> $5 = loop $4 index 0
              <*f32> $6 = global ptr [S2place<f32>], index [$5]
              <f32> $7 = const 1.0
              $8 : global store [$6 <- $7]
            }
        """,
    )


def test_two_loops_with_the_same_dynamic_bounds_share_their_slots():
    # The second loop has no serial code before it: its bounds were stored already.
    check_pass(
        offload,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = argload[1]
            $2 : for in range($0, $1) reversed=false serialize=false {
              <i32> $3 = loop $2 index 0
            }
            $4 : for in range($0, $1) reversed=false serialize=false {
              <i32> $5 = loop $4 index 0
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = argload[1]
              <*i32> $3 = global tmp var (offset = 0 B)
              $4 : global store [$3 <- $1]
              <*i32> $5 = global tmp var (offset = 8 B)
              $6 : global store [$5 <- $2]
            }
            $7 = offloaded range_for(tmp(offset=0B), tmp(offset=8B)) body {
              <i32> $8 = loop $7 index 0
            }
            $9 = offloaded range_for(tmp(offset=0B), tmp(offset=8B)) body {
              <i32> $10 = loop $9 index 0
            }
        """,
    )
    kernel = parse_ir(
        """kernel {
          <i32> $0 = argload[0]
          $1 : for in range($0, $0) reversed=false serialize=false {
          }
        }"""
    )
    offload.run(kernel, PassContext())
    assert kernel.gtmp_size == 4


def test_bound_of_a_later_serial_task_is_reloaded_from_its_gtmp():
    # $2 is computed before the first loop but bounds the second one, after a serial statement:
    # it reaches the second serial task through a slot of its own.
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = argload[0]
            <i32> $2 = mul $1 $1
            $3 : for in range($0, $0) reversed=false serialize=false {
            }
            <i32> $4 = argload[1]
            $5 : for in range($4, $2) reversed=false serialize=false {
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = mul $1 $1
              <*i32> $3 = global tmp var (offset = 16 B)
              $4 : global store [$3 <- $2]
            }
            $5 = offloaded range_for(0, 0) body {
            }
            $6 = offloaded serial body {
              <*i32> $7 = global tmp var (offset = 16 B)
              <i32> $8 = global load $7
              <i32> $9 = argload[1]
              <*i32> $10 = global tmp var (offset = 0 B)
              $11 : global store [$10 <- $9]
              <*i32> $12 = global tmp var (offset = 8 B)
              $13 : global store [$12 <- $8]
            }
            $14 = offloaded range_for(tmp(offset=0B), tmp(offset=8B)) body {
            }
        """,
    )


def test_kernel_arguments_are_reread_in_each_task_not_stored():
    check_pass(
        offload,
        before="""
            <f32> $0 = argload[0]
            <i32> $1 = const 4
            $2 : for in range($1, $1) reversed=false serialize=false {
              <f32> $3 = add $0 $0
            }
        """,
        after="""
            $0 = offloaded range_for(4, 4) body {
              <f32> $1 = argload[0]
              <f32> $2 = add $1 $1
            }
        """,
    )


def test_serialized_range_for_stays_in_the_serial_task():
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 4
            $2 : for in range($0, $1) reversed=false serialize=true {
              <i32> $3 = loop $2 index 0
              $4 : return $3
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = const 0
              <i32> $2 = const 4
              $3 : for in range($1, $2) reversed=false serialize=true {
                <i32> $4 = loop $3 index 0
                $5 : return $4
              }
            }
        """,
    )


def test_struct_for_becomes_a_struct_for_task_with_its_loop_indices():
    root = SNode(0, "root")
    dense = root.dense((0, 1), (16, 8), 1)
    dense.place(f32, 2)
    finalize_layout(root)
    check_pass(
        offload,
        snodes={0: root, 1: dense, 2: dense.children[0]},
        before="""
            <f32> $0 = const 1.0
            $1 : struct for in S1dense {
              <i32> $2 = loop $1 index 0
              <i32> $3 = loop $1 index 1
              <*f32> $4 = global ptr [S2place<f32>], index [$2, $3]
              $5 : global store [$4 <- $0]
            }
        """,
        after="""
            $0 = offloaded struct_for(S1dense) body {
              <f32> $1 = const 1.0
              <i32> $2 = loop $0 index 0
              <i32> $3 = loop $0 index 1
              <*f32> $4 = global ptr [S2place<f32>], index [$2, $3]
              $5 : global store [$4 <- $1]
            }
        """,
    )
    kernel = parse_ir("kernel {\n  $0 : struct for in S1dense {\n  }\n}", {1: dense})
    offload.run(kernel, PassContext())
    assert kernel.body[0].snode is dense


def test_constant_used_by_serial_code_and_a_loop_is_cloned_into_the_loop():
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 4
            <*i32> $2 = global ptr [S1place<i32>], index []
            $3 : global store [$2 <- $1]
            $4 : for in range($0, $1) reversed=false serialize=false {
              <i32> $5 = loop $4 index 0
              <i32> $6 = add $5 $1
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = const 4
              <*i32> $2 = global ptr [S1place<i32>], index []
              $3 : global store [$2 <- $1]
            }
            $4 = offloaded range_for(0, 4) body {
              <i32> $5 = const 4
              <i32> $6 = loop $4 index 0
              <i32> $7 = add $6 $5
            }
        """,
    )


def test_value_crossing_tasks_goes_through_a_gtmp_and_addresses_are_recomputed():
    check_pass(
        offload,
        before="""
            <i32> $0 = argload[0]
            <i32> $1 = const 2
            <i32> $2 = mul $0 $1
            <*i32> $3 = global ptr [S1place<i32>], index [$2]
            $4 : for in range($1, $1) reversed=false serialize=false {
              <i32> $5 = loop $4 index 0
              <i32> $6 = add $5 $2
              <i32> $7 = atomic add($3, $6)
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = const 2
              <i32> $3 = mul $1 $2
              <*i32> $4 = global tmp var (offset = 0 B)
              $5 : global store [$4 <- $3]
            }
            $6 = offloaded range_for(2, 2) body {
              <*i32> $7 = global tmp var (offset = 0 B)
              <i32> $8 = global load $7
              <*i32> $9 = global ptr [S1place<i32>], index [$8]
              <i32> $10 = loop $6 index 0
              <i32> $11 = add $10 $8
              <i32> $12 = atomic add($9, $11)
            }
        """,
    )


def test_local_variable_shared_by_tasks_becomes_a_gtmp_in_each_task():
    check_pass(
        offload,
        before="""
            <*i32> $0 = alloca
            <i32> $1 = const 0
            $2 : local store [$0 <- $1]
            <i32> $3 = const 16
            $4 : for in range($1, $3) reversed=false serialize=false {
              <i32> $5 = loop $4 index 0
              <i32> $6 = atomic add($0, $5)
            }
            <i32> $7 = local load [$0]
            $8 : return $7
        """,
        after="""
            $0 = offloaded serial body {
              <*i32> $1 = global tmp var (offset = 0 B)
              <i32> $2 = const 0
              $3 : global store [$1 <- $2]
            }
            $4 = offloaded range_for(0, 16) body {
              <*i32> $5 = global tmp var (offset = 0 B)
              <i32> $6 = loop $4 index 0
              <i32> $7 = atomic add($5, $6)
            }
            $8 = offloaded serial body {
              <*i32> $9 = global tmp var (offset = 0 B)
              <i32> $10 = global load $9
              $11 : return $10
            }
        """,
    )


def test_local_variable_used_in_one_task_stays_local_and_empty_serial_is_dropped():
    check_pass(
        offload,
        before="""
            <i32> $0 = const 0
            <i32> $1 = const 8
            $2 : for in range($0, $1) reversed=false serialize=false {
              <*i32> $3 = alloca
              <i32> $4 = loop $2 index 0
              $5 : local store [$3 <- $4]
            }
            <*f32> $6 = alloca
            <f32> $7 = local load [$6]
        """,
        after="""
            $0 = offloaded range_for(0, 8) body {
              <*i32> $1 = alloca
              <i32> $2 = loop $0 index 0
              $3 : local store [$1 <- $2]
            }
            $4 = offloaded serial body {
              <*f32> $5 = alloca
              <f32> $6 = local load [$5]
            }
        """,
    )


def test_if_and_while_at_top_level_join_the_serial_task():
    check_pass(
        offload,
        before="""
            <u1> $0 = const true
            $1 : if $0 {
              <i32> $2 = const 1
            }
            $3 : while true {
              $4 : break
            }
        """,
        after="""
            $0 = offloaded serial body {
              <u1> $1 = const true
              $2 : if $1 {
                <i32> $3 = const 1
              }
              $4 : while true {
                $5 : break
              }
            }
        """,
    )


def test_non_i32_bound_is_cast_before_it_is_stored():
    check_pass(
        offload,
        before="""
            <i64> $0 = argload[0]
            <i64> $1 = const 0
            $2 : for in range($1, $0) reversed=false serialize=false {
            }
        """,
        after="""
            $0 = offloaded serial body {
              <i64> $1 = argload[0]
              <i32> $2 = cast_value $1
              <*i32> $3 = global tmp var (offset = 0 B)
              $4 : global store [$3 <- $2]
            }
            $5 = offloaded range_for(0, tmp(offset=0B)) body {
            }
        """,
    )
