"""The back ends' last passes (`vectorize`, `unroll` for the GPU, `jam` for the CPU): each
records its decision in the task's schedule, printed after the task's header."""

from __future__ import annotations

import textwrap

from tests.passes.golden import check_pass
from tistudio.ir import SNode, finalize_layout
from tistudio.ir.types import parse_type
from tistudio.passes import jam, unroll, vectorize


def _tree(n: int) -> dict[int, SNode]:
    """SNode tree 0: root 0 -> dense 1 (n cells) -> one f32 place (id 2)."""
    root = SNode(0, "root")
    dense = root.dense((0,), (n,), 1)
    dense.place(parse_type("f32"), 2)
    finalize_layout(root)
    return {node.id: node for node in (root, dense, *dense.children)}


def _elementwise(end: int, schedule: str = "", shift: int = 0) -> str:
    """`x[i] = x[i + shift] * 2.0` over range(0, end)."""
    return textwrap.dedent(f"""\
        $0 = offloaded range_for(0, {end}){schedule} body {{
          <i32> $1 = loop $0 index 0
          <*gen> $2 = get root [tree 0]
          <i32> $3 = const 0
          <*gen> $4 = [S0root]::lookup($2, $3)
          <*gen> $5 = get child [S1dense] $4
          <*gen> $6 = [S1dense]::lookup($5, $1)
          <*f32> $7 = get child [S2place<f32>] $6
          <i32> $8 = const {shift}
          <i32> $9 = add $1 $8
          <*gen> $10 = [S1dense]::lookup($5, $9)
          <*f32> $11 = get child [S2place<f32>] $10
          <f32> $12 = global load $11
          <f32> $13 = const 2.0
          <f32> $14 = mul $12 $13
          $15 : global store [$7 <- $14]
        }}
        """)


def test_vectorize_gives_an_elementwise_loop_four_lanes_and_vec4_accesses():
    check_pass(
        vectorize,
        _elementwise(16),
        _elementwise(16, " vectorize(4, loads [$12], stores [$15])"),
        snodes=_tree(16),
    )


def test_vectorize_records_where_an_unaligned_loads_vectors_start():
    """x[i + 1]'s four lanes start 4 bytes into an aligned vec4."""
    check_pass(
        vectorize,
        _elementwise(16, shift=1),
        _elementwise(16, " vectorize(4, loads [$12@4], stores [$15])", shift=1),
        snodes=_tree(17),
    )


def test_vectorize_leaves_a_range_of_fewer_than_four_indices_alone():
    check_pass(vectorize, _elementwise(3), _elementwise(3), snodes=_tree(16))


def _row_sum(trips: int, schedule: str = "") -> str:
    """`t = 0; for j in range(trips): t += m[i, j]; r[i] = t` over 8 rows."""
    return textwrap.dedent(f"""\
        $0 = offloaded range_for(0, 8){schedule} body {{
          <i32> $1 = loop $0 index 0
          <*f32> $2 = alloca
          <f32> $3 = const 0.0
          $4 : local store [$2 <- $3]
          <i32> $5 = const 0
          <i32> $6 = const {trips}
          <*gen> $7 = get root [tree 0]
          <*gen> $8 = [S0root]::lookup($7, $5)
          <*gen> $9 = get child [S1dense] $8
          <i32> $10 = const 7
          <i32> $11 = bit_shl $1 $10
          <*gen> $12 = [S1dense]::lookup($9, $11)
          $13 : for in range($5, $6) reversed=false serialize=false {{
            <i32> $14 = loop $13 index 0
            <*gen> $15 = [S1dense]::lookup($12, $14)
            <*f32> $16 = get child [S2place<f32>] $15
            <f32> $17 = global load $16
            <f32> $18 = local load [$2]
            <f32> $19 = add $18 $17
            $20 : local store [$2 <- $19]
          }}
          <f32> $21 = local load [$2]
          <*gen> $22 = get child [S3dense] $8
          <*gen> $23 = [S3dense]::lookup($22, $1)
          <*f32> $24 = get child [S4place<f32>] $23
          $25 : global store [$24 <- $21]
        }}
        """)


def test_jam_marks_a_row_reduction_with_a_long_inner_loop():
    check_pass(jam, _row_sum(64), _row_sum(64, " jam(4)"))


def test_jam_leaves_a_short_inner_loop_alone():
    check_pass(jam, _row_sum(63), _row_sum(63))


def test_unroll_lists_a_serial_loop_of_eight_trips_or_more():
    check_pass(unroll, _row_sum(8), _row_sum(8, " unroll(4, $13)"))


def test_unroll_leaves_a_loop_of_fewer_than_eight_trips_alone():
    check_pass(unroll, _row_sum(7), _row_sum(7))
