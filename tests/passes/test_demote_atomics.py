from __future__ import annotations

import pytest

from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout
from tistudio.ir.types import f32
from tistudio.passes import demote_atomics


def _snodes() -> dict[int, SNode]:
    """S1dense (16, 8) holding S2place<f32>; S3dense (16,) holding S4place<f32>."""
    root = SNode(0, "root")
    grid = root.dense((0, 1), (16, 8), 1)
    grid.place(f32, 2)
    line = root.dense((0,), (16,), 3)
    line.place(f32, 4)
    finalize_layout(root)
    return {n.id: n for n in (root, grid, grid.children[0], line, line.children[0])}


def test_shared_addresses_keep_their_atomics():
    # x[0] is hit by every iteration; x[i] and x[i + 1] overlap across iterations;
    # a global temporary is shared by all threads.
    check_pass(
        demote_atomics,
        before="""
            $0 = offloaded range_for(0, 16) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = const 1.0
              <i32> $3 = const 0
              <*f32> $4 = global ptr [S4place<f32>], index [$3]
              <f32> $5 = atomic add($4, $2)
              <i32> $6 = const 1
              <i32> $7 = add $1 $6
              <*f32> $8 = external_ptr arg 0, [$1]
              <f32> $9 = atomic add($8, $2)
              <*f32> $10 = external_ptr arg 0, [$7]
              <f32> $11 = atomic add($10, $2)
              <*f32> $12 = global tmp var (offset = 0 B)
              <f32> $13 = atomic max($12, $2)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 16) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = const 1.0
              <i32> $3 = const 0
              <*f32> $4 = global ptr [S4place<f32>], index [$3]
              <f32> $5 = atomic add($4, $2)
              <i32> $6 = const 1
              <i32> $7 = add $1 $6
              <*f32> $8 = external_ptr arg 0, [$1]
              <f32> $9 = atomic add($8, $2)
              <*f32> $10 = external_ptr arg 0, [$7]
              <f32> $11 = atomic add($10, $2)
              <*f32> $12 = global tmp var (offset = 0 B)
              <f32> $13 = atomic max($12, $2)
            }
        """,
        snodes=_snodes(),
    )


def test_field_indexed_by_the_loop_index_is_demoted_and_old_value_kept():
    check_pass(
        demote_atomics,
        before="""
            $0 = offloaded range_for(0, 16) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = argload[0]
              <*f32> $3 = global ptr [S4place<f32>], index [$1]
              <f32> $4 = atomic add($3, $2)
              <f32> $5 = mul $4 $4
              <*f32> $6 = external_ptr arg 1, [$1]
              $7 : global store [$6 <- $5]
            }
        """,
        after="""
            $0 = offloaded range_for(0, 16) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = argload[0]
              <*f32> $3 = global ptr [S4place<f32>], index [$1]
              <f32> $4 = global load $3
              <f32> $5 = add $4 $2
              $6 : global store [$3 <- $5]
              <f32> $7 = mul $4 $4
              <*f32> $8 = external_ptr arg 1, [$1]
              $9 : global store [$8 <- $7]
            }
        """,
        snodes=_snodes(),
    )


@pytest.mark.parametrize("op", ["sub", "min", "max", "mul", "bit_and", "bit_or", "bit_xor"])
def test_each_atomic_op_demotes_to_its_binary_op(op):
    check_pass(
        demote_atomics,
        before=f"""
            $0 = offloaded serial body {{
              <i32> $1 = const 3
              <*i32> $2 = global ptr [S9place<i32>], index []
              <i32> $3 = atomic {op}($2, $1)
            }}
        """,
        after=f"""
            $0 = offloaded serial body {{
              <i32> $1 = const 3
              <*i32> $2 = global ptr [S9place<i32>], index []
              <i32> $3 = global load $2
              <i32> $4 = {op} $3 $1
              $5 : global store [$2 <- $4]
            }}
        """,
    )


def test_local_and_thread_local_destinations_are_demoted_in_parallel_tasks():
    check_pass(
        demote_atomics,
        before="""
            $0 = offloaded range_for(0, 16) body {
              <*i32> $1 = alloca
              <i32> $2 = loop $0 index 0
              <u1> $3 = const true
              $4 : if $3 {
                <i32> $5 = atomic add($1, $2)
              }
              <*i32> $6 = thread local ptr (offset = 0 B)
              <i32> $7 = atomic min($6, $2)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 16) body {
              <*i32> $1 = alloca
              <i32> $2 = loop $0 index 0
              <u1> $3 = const true
              $4 : if $3 {
                <i32> $5 = local load [$1]
                <i32> $6 = add $5 $2
                $7 : local store [$1 <- $6]
              }
              <*i32> $8 = thread local ptr (offset = 0 B)
              <i32> $9 = global load $8
              <i32> $10 = min $9 $2
              $11 : global store [$8 <- $10]
            }
        """,
    )


def test_struct_for_over_the_fields_own_parent_is_demoted():
    check_pass(
        demote_atomics,
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = loop $0 index 1
              <f32> $3 = const 2.0
              <*f32> $4 = global ptr [S2place<f32>], index [$1, $2]
              <f32> $5 = atomic add($4, $3)
              <*f32> $6 = external_ptr arg 0, [$1, $2]
              <f32> $7 = atomic add($6, $3)
            }
        """,
        after="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = loop $0 index 1
              <f32> $3 = const 2.0
              <*f32> $4 = global ptr [S2place<f32>], index [$1, $2]
              <f32> $5 = global load $4
              <f32> $6 = add $5 $3
              $7 : global store [$4 <- $6]
              <*f32> $8 = external_ptr arg 0, [$1, $2]
              <f32> $9 = global load $8
              <f32> $10 = add $9 $3
              $11 : global store [$8 <- $10]
            }
        """,
        snodes=_snodes(),
    )


def test_struct_for_with_partial_or_swapped_indices_keeps_atomics():
    # Over the 2-D S1dense, x[i] is shared by the 8 cells of row i; y[j, i] swaps the axes.
    kept = """
        $0 = offloaded struct_for(S1dense) body {
          <i32> $1 = loop $0 index 0
          <i32> $2 = loop $0 index 1
          <f32> $3 = const 2.0
          <*f32> $4 = global ptr [S4place<f32>], index [$1]
          <f32> $5 = atomic add($4, $3)
          <*f32> $6 = global ptr [S2place<f32>], index [$2, $1]
          <f32> $7 = atomic add($6, $3)
        }
    """
    check_pass(demote_atomics, before=kept, after=kept, snodes=_snodes())


def test_one_index_struct_for_over_its_field_is_demoted():
    check_pass(
        demote_atomics,
        before="""
            $0 = offloaded struct_for(S3dense) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = const 1.0
              <*f32> $3 = global ptr [S4place<f32>], index [$1]
              <f32> $4 = atomic sub($3, $2)
            }
        """,
        after="""
            $0 = offloaded struct_for(S3dense) body {
              <i32> $1 = loop $0 index 0
              <f32> $2 = const 1.0
              <*f32> $3 = global ptr [S4place<f32>], index [$1]
              <f32> $4 = global load $3
              <f32> $5 = sub $4 $2
              $6 : global store [$3 <- $5]
            }
        """,
        snodes=_snodes(),
    )


def test_other_access_to_the_field_at_another_index_blocks_demotion():
    kept = """
        $0 = offloaded range_for(0, 15) body {
          <i32> $1 = loop $0 index 0
          <i32> $2 = const 1
          <i32> $3 = add $1 $2
          <*f32> $4 = global ptr [S4place<f32>], index [$3]
          <f32> $5 = global load $4
          <*f32> $6 = global ptr [S4place<f32>], index [$1]
          <f32> $7 = atomic add($6, $5)
        }
    """
    check_pass(demote_atomics, before=kept, after=kept, snodes=_snodes())


def test_inner_serial_loop_index_is_not_the_task_index():
    kept = """
        $0 = offloaded range_for(0, 4) body {
          <i32> $1 = const 0
          <i32> $2 = const 16
          $3 : for in range($1, $2) reversed=false serialize=true {
            <i32> $4 = loop $3 index 0
            <*f32> $5 = global ptr [S4place<f32>], index [$4]
            <f32> $6 = const 1.0
            <f32> $7 = atomic add($5, $6)
          }
        }
    """
    check_pass(demote_atomics, before=kept, after=kept, snodes=_snodes())


def test_kernel_not_yet_offloaded_demotes_only_locals():
    check_pass(
        demote_atomics,
        before="""
            <*i32> $0 = alloca
            <i32> $1 = const 1
            <i32> $2 = atomic add($0, $1)
            <*i32> $3 = global ptr [S9place<i32>], index []
            <i32> $4 = atomic add($3, $1)
        """,
        after="""
            <*i32> $0 = alloca
            <i32> $1 = const 1
            <i32> $2 = local load [$0]
            <i32> $3 = add $2 $1
            $4 : local store [$0 <- $3]
            <*i32> $5 = global ptr [S9place<i32>], index []
            <i32> $6 = atomic add($5, $1)
        """,
    )
