from __future__ import annotations

import operator

import numpy as np
import pytest

from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, SNode, finalize_layout, parse_ir, verify
from tistudio.ir.statements import BinaryOp, Const, GlobalPtr, LoopIndex
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import f32
from tistudio.passes import demote_dense_struct_fors
from tistudio.passes.context import PassContext


def _field(*levels: tuple[tuple[int, ...], tuple[int, ...]]) -> dict[int, SNode]:
    """root -> dense(level 0) -> dense(level 1) ... -> place<f32>; ids 0, 1, 2, ..."""
    node = root = SNode(0, "root")
    nodes = {0: root}
    for axes, sizes in levels:
        node = node.dense(axes, sizes, len(nodes))
        nodes[node.id] = node
    place = node.place(f32, len(nodes))
    nodes[place.id] = place
    finalize_layout(root)
    return nodes


def _two_fields() -> dict[int, SNode]:
    """S1dense (3, 3) -> S2place; S3dense, a 0-D field with one cell -> S4place."""
    root = SNode(0, "root")
    grid = root.dense((0, 1), (3, 3), 1)
    grid.place(f32, 2)
    scalar = root.dense((), (), 3)
    scalar.place(f32, 4)
    finalize_layout(root)
    return {n.id: n for n in (root, grid, grid.children[0], scalar, scalar.children[0])}


def test_range_for_and_serial_tasks_are_left_alone():
    text = """
        $0 = offloaded serial body {
          <i32> $1 = const 1
        }
        $2 = offloaded range_for(0, 4) body {
          <i32> $3 = loop $2 index 0
        }
    """
    check_pass(demote_dense_struct_fors, before=text, after=text)


def test_one_dimensional_field_uses_the_linear_index_as_is():
    check_pass(
        demote_dense_struct_fors,
        snodes=_field(((0,), (128,))),
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 0
              <*f32> $2 = global ptr [S2place<f32>], index [$1]
            }
        """,
        after="""
            $0 = offloaded range_for(0, 128) body {
              <i32> $1 = loop $0 index 0
              <*f32> $2 = global ptr [S2place<f32>], index [$1]
            }
        """,
    )


def test_two_dimensional_power_of_two_field_uses_shift_and_mask():
    check_pass(
        demote_dense_struct_fors,
        snodes=_field(((0, 1), (16, 8))),
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = loop $0 index 1
              <*f32> $3 = global ptr [S2place<f32>], index [$1, $2]
            }
        """,
        after="""
            $0 = offloaded range_for(0, 128) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = const 3
              <i32> $3 = bit_sar $1 $2
              <i32> $4 = const 7
              <i32> $5 = bit_and $1 $4
              <*f32> $6 = global ptr [S2place<f32>], index [$3, $5]
            }
        """,
    )


def test_three_dimensional_field_with_odd_sizes_uses_div_and_mod():
    check_pass(
        demote_dense_struct_fors,
        snodes=_field(((0, 1, 2), (3, 5, 4))),
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 2
              <i32> $2 = loop $0 index 0
              <i32> $3 = loop $0 index 1
              <*f32> $4 = global ptr [S2place<f32>], index [$2, $3, $1]
            }
        """,
        after="""
            $0 = offloaded range_for(0, 60) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = const 3
              <i32> $3 = bit_and $1 $2
              <i32> $4 = const 20
              <i32> $5 = div $1 $4
              <i32> $6 = const 2
              <i32> $7 = bit_sar $1 $6
              <i32> $8 = const 5
              <i32> $9 = mod $7 $8
              <*f32> $10 = global ptr [S2place<f32>], index [$5, $9, $3]
            }
        """,
    )


def test_nested_dense_levels_add_their_digits():
    # dense(i, 4).dense(i, 8): i = (k >> 3) * 8 + (k & 7)
    check_pass(
        demote_dense_struct_fors,
        snodes=_field(((0,), (4,)), ((0,), (8,))),
        before="""
            $0 = offloaded struct_for(S2dense) body {
              <i32> $1 = loop $0 index 0
              <*f32> $2 = global ptr [S3place<f32>], index [$1]
            }
        """,
        after="""
            $0 = offloaded range_for(0, 32) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = const 3
              <i32> $3 = bit_sar $1 $2
              <i32> $4 = const 3
              <i32> $5 = bit_shl $3 $4
              <i32> $6 = const 7
              <i32> $7 = bit_and $1 $6
              <i32> $8 = add $5 $7
              <*f32> $9 = global ptr [S3place<f32>], index [$8]
            }
        """,
    )


def test_loop_without_index_uses_and_zero_dimensional_field():
    check_pass(
        demote_dense_struct_fors,
        snodes=_two_fields(),
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <f32> $1 = const 1.0
            }
            $2 = offloaded struct_for(S3dense) body {
              <f32> $3 = const 1.0
            }
        """,
        after="""
            $0 = offloaded range_for(0, 9) body {
              <f32> $1 = const 1.0
            }
            $2 = offloaded range_for(0, 1) body {
              <f32> $3 = const 1.0
            }
        """,
    )


def test_every_use_of_an_index_is_redirected_to_one_computation():
    check_pass(
        demote_dense_struct_fors,
        snodes=_field(((0, 1), (2, 2))),
        before="""
            $0 = offloaded struct_for(S1dense) body {
              <i32> $1 = loop $0 index 1
              <u1> $2 = const true
              $3 : if $2 {
                <i32> $4 = loop $0 index 1
                <i32> $5 = add $4 $1
              }
            }
        """,
        after="""
            $0 = offloaded range_for(0, 4) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = const 1
              <i32> $3 = bit_and $1 $2
              <u1> $4 = const true
              $5 : if $4 {
                <i32> $6 = add $3 $3
              }
            }
        """,
    )


# --- semantics: the emitted index math against NumPy, for every cell --------------------

_EVAL = {
    BinaryOpType.add: operator.add,
    BinaryOpType.mul: operator.mul,
    BinaryOpType.div: operator.floordiv,  # operands are never negative here
    BinaryOpType.mod: operator.mod,
    BinaryOpType.bit_sar: operator.rshift,
    BinaryOpType.bit_shl: operator.lshift,
    BinaryOpType.bit_and: operator.and_,
}


def _evaluate(stmt: Stmt, linear: int) -> int:
    if isinstance(stmt, Const):
        return int(stmt.value)
    if isinstance(stmt, LoopIndex):
        return linear
    assert isinstance(stmt, BinaryOp), f"unexpected {type(stmt).__name__} in index math"
    return _EVAL[stmt.op](_evaluate(stmt.lhs, linear), _evaluate(stmt.rhs, linear))


def _recovered_indices(snodes: dict[int, SNode], leaf_parent: int, ndim: int) -> list[tuple]:
    place = snodes[leaf_parent].children[0]
    indices = "\n".join(f"<i32> ${k + 1} = loop $0 index {k}" for k in range(ndim))
    operands = ", ".join(f"${k + 1}" for k in range(ndim))
    kernel = parse_ir(
        f"""kernel {{
          $0 = offloaded struct_for(S{leaf_parent}dense) body {{
            {indices}
            <*f32> ${ndim + 1} = global ptr [{place.ref()}], index [{operands}]
          }}
        }}""",
        snodes,
    )
    assert demote_dense_struct_fors.run(kernel, PassContext())
    verify(kernel)
    task = kernel.body[0]
    ptr = task.body[len(task.body) - 1]
    assert isinstance(ptr, GlobalPtr) and task.begin == 0
    return [tuple(_evaluate(i, lin) for i in ptr.indices) for lin in range(task.end)]


@pytest.mark.parametrize("shape", [(3, 5, 4), (7,), (6, 16), (1, 3, 1)])
def test_one_level_field_matches_numpy_unravel_index(shape):
    snodes = _field((tuple(range(len(shape))), shape))
    got = _recovered_indices(snodes, 1, len(shape))
    assert got == list(zip(*np.unravel_index(np.arange(np.prod(shape)), shape)))


def test_nested_levels_enumerate_cells_in_memory_order():
    # dense(ij, (2, 3)).dense(ij, (4, 5)): cell k of memory is block (a, b), element (c, d),
    # at field index (a * 4 + c, b * 5 + d).
    snodes = _field(((0, 1), (2, 3)), ((0, 1), (4, 5)))
    a, b, c, d = np.unravel_index(np.arange(120), (2, 3, 4, 5))
    assert _recovered_indices(snodes, 2, 2) == list(zip(a * 4 + c, b * 5 + d))


def test_three_levels_with_axes_split_unevenly():
    # dense(i, 3).dense(ij, (2, 5)).dense(j, 4): field shape (6, 20).
    snodes = _field(((0,), (3,)), ((0, 1), (2, 5)), ((1,), (4,)))
    a, b, c, d = np.unravel_index(np.arange(120), (3, 2, 5, 4))
    got = _recovered_indices(snodes, 3, 2)
    assert got == list(zip(a * 2 + b, c * 4 + d))
    assert sorted(got) == [(i, j) for i in range(6) for j in range(20)]
