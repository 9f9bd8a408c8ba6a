from __future__ import annotations

import operator

import numpy as np
import pytest

from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, SNode, finalize_layout, parse_ir, verify
from tistudio.ir.statements import ArgLoad, BinaryOp, Const, GetCh, GetRoot, SNodeLookup
from tistudio.ir.stmt import Stmt
from tistudio.ir.types import f32, i32
from tistudio.passes import lower_access
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


def _access(place: str, ndim: int, dtype: str = "f32") -> str:
    """A serial task that loads `place` at indices argload[0..ndim-1]."""
    args = "\n".join(f"  <i32> ${k + 1} = argload[{k}]" for k in range(ndim))
    operands = ", ".join(f"${k + 1}" for k in range(ndim))
    ptr = f"<*{dtype}> ${ndim + 1} = global ptr [{place}], index [{operands}]"
    load = f"<{dtype}> ${ndim + 2} = global load ${ndim + 1}"
    return f"$0 = offloaded serial body {{\n{args}\n  {ptr}\n  {load}\n}}"


def test_kernel_without_field_pointers_is_left_alone():
    text = """
        $0 = offloaded serial body {
          <*gen> $1 = get root [tree 0]
          <i32> $2 = const 0
          <*gen> $3 = [S0root]::lookup($1, $2)
        }
    """
    check_pass(lower_access, before=text, after=text, snodes=_field(((0,), (4,))))


def test_one_dimensional_field():
    check_pass(
        lower_access,
        snodes=_field(((0,), (128,))),
        before=_access("S2place<f32>", 1),
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <*gen> $2 = get root [tree 0]
              <i32> $3 = const 0
              <*gen> $4 = [S0root]::lookup($2, $3)
              <*gen> $5 = get child [S1dense] $4
              <*gen> $6 = [S1dense]::lookup($5, $1)
              <*f32> $7 = get child [S2place<f32>] $6
              <f32> $8 = global load $7
            }
        """,
    )


def test_two_dimensional_power_of_two_field_shifts_the_row_one_lookup_per_axis():
    check_pass(
        lower_access,
        snodes=_field(((0, 1), (16, 8))),
        before=_access("S2place<f32>", 2),
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = argload[1]
              <*gen> $3 = get root [tree 0]
              <i32> $4 = const 0
              <*gen> $5 = [S0root]::lookup($3, $4)
              <*gen> $6 = get child [S1dense] $5
              <i32> $7 = const 3
              <i32> $8 = bit_shl $1 $7
              <*gen> $9 = [S1dense]::lookup($6, $8)
              <*gen> $10 = [S1dense]::lookup($9, $2)
              <*f32> $11 = get child [S2place<f32>] $10
              <f32> $12 = global load $11
            }
        """,
    )


def test_three_dimensional_field_with_odd_sizes_multiplies():
    check_pass(
        lower_access,
        snodes=_field(((0, 1, 2), (3, 5, 4))),
        before=_access("S2place<f32>", 3),
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <i32> $2 = argload[1]
              <i32> $3 = argload[2]
              <*gen> $4 = get root [tree 0]
              <i32> $5 = const 0
              <*gen> $6 = [S0root]::lookup($4, $5)
              <*gen> $7 = get child [S1dense] $6
              <i32> $8 = const 20
              <i32> $9 = mul $1 $8
              <i32> $10 = const 2
              <i32> $11 = bit_shl $2 $10
              <*gen> $12 = [S1dense]::lookup($7, $9)
              <*gen> $13 = [S1dense]::lookup($12, $11)
              <*gen> $14 = [S1dense]::lookup($13, $3)
              <*f32> $15 = get child [S2place<f32>] $14
              <f32> $16 = global load $15
            }
        """,
    )


def test_nested_dense_levels_split_the_index():
    check_pass(
        lower_access,
        snodes=_field(((0,), (4,)), ((0,), (8,))),
        before=_access("S3place<f32>", 1),
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <*gen> $2 = get root [tree 0]
              <i32> $3 = const 0
              <*gen> $4 = [S0root]::lookup($2, $3)
              <*gen> $5 = get child [S1dense] $4
              <i32> $6 = const 3
              <i32> $7 = bit_sar $1 $6
              <*gen> $8 = [S1dense]::lookup($5, $7)
              <*gen> $9 = get child [S2dense] $8
              <i32> $10 = const 7
              <i32> $11 = bit_and $1 $10
              <*gen> $12 = [S2dense]::lookup($9, $11)
              <*f32> $13 = get child [S3place<f32>] $12
              <f32> $14 = global load $13
            }
        """,
    )


def test_nested_dense_levels_with_odd_sizes_use_div_and_mod():
    check_pass(
        lower_access,
        snodes=_field(((0,), (3,)), ((0,), (5,))),
        before=_access("S3place<f32>", 1),
        after="""
            $0 = offloaded serial body {
              <i32> $1 = argload[0]
              <*gen> $2 = get root [tree 0]
              <i32> $3 = const 0
              <*gen> $4 = [S0root]::lookup($2, $3)
              <*gen> $5 = get child [S1dense] $4
              <i32> $6 = const 5
              <i32> $7 = div $1 $6
              <*gen> $8 = [S1dense]::lookup($5, $7)
              <*gen> $9 = get child [S2dense] $8
              <i32> $10 = const 5
              <i32> $11 = mod $1 $10
              <*gen> $12 = [S2dense]::lookup($9, $11)
              <*f32> $13 = get child [S3place<f32>] $12
              <f32> $14 = global load $13
            }
        """,
    )


def _scalars() -> dict[int, SNode]:
    """A 0-D field under a one-cell S1dense, and an i32 placed right under the root."""
    root = SNode(0, "root", tree_id=2)
    cell = root.dense((), (), 1)
    cell.place(f32, 2)
    root.place(i32, 3)
    finalize_layout(root)
    return {0: root, 1: cell, 2: cell.children[0], 3: root.children[1]}


def test_zero_dimensional_fields_use_cell_zero_and_every_use_is_redirected():
    check_pass(
        lower_access,
        snodes=_scalars(),
        before="""
            $0 = offloaded range_for(0, 4) body {
              <*f32> $1 = global ptr [S2place<f32>], index []
              <u1> $2 = const true
              $3 : if $2 {
                <i32> $4 = const 1
                <*i32> $5 = global ptr [S3place<i32>], index []
                <i32> $6 = atomic add($5, $4)
                <f32> $7 = global load $1
                $8 : global store [$1 <- $7]
              }
            }
        """,
        after="""
            $0 = offloaded range_for(0, 4) body {
              <*gen> $1 = get root [tree 2]
              <i32> $2 = const 0
              <*gen> $3 = [S0root]::lookup($1, $2)
              <*gen> $4 = get child [S1dense] $3
              <i32> $5 = const 0
              <*gen> $6 = [S1dense]::lookup($4, $5)
              <*f32> $7 = get child [S2place<f32>] $6
              <u1> $8 = const true
              $9 : if $8 {
                <i32> $10 = const 1
                <*gen> $11 = get root [tree 2]
                <i32> $12 = const 0
                <*gen> $13 = [S0root]::lookup($11, $12)
                <*i32> $14 = get child [S3place<i32>] $13
                <i32> $15 = atomic add($14, $10)
                <f32> $16 = global load $7
                $17 : global store [$7 <- $16]
              }
            }
        """,
    )


# --- semantics: the address each pointer computes, against a NumPy picture of memory --------

_EVAL = {
    BinaryOpType.add: operator.add,
    BinaryOpType.mul: operator.mul,
    BinaryOpType.div: operator.floordiv,  # operands are never negative here
    BinaryOpType.mod: operator.mod,
    BinaryOpType.bit_sar: operator.rshift,
    BinaryOpType.bit_shl: operator.lshift,
    BinaryOpType.bit_and: operator.and_,
}


def _address(stmt: Stmt, args: tuple[int, ...]) -> int:
    """Evaluate an address chain as the contract defines it (root at byte 0)."""
    if isinstance(stmt, GetRoot):
        return 0
    if isinstance(stmt, SNodeLookup):
        return _address(stmt.ptr, args) + _address(stmt.index, args) * stmt.snode.cell_size
    if isinstance(stmt, GetCh):
        return _address(stmt.ptr, args) + stmt.child.offset_in_parent_cell
    if isinstance(stmt, Const):
        return int(stmt.value)
    if isinstance(stmt, ArgLoad):
        return args[stmt.arg_id]
    assert isinstance(stmt, BinaryOp), f"unexpected {type(stmt).__name__} in address math"
    return _EVAL[stmt.op](_address(stmt.lhs, args), _address(stmt.rhs, args))


def _addresses(snodes: dict[int, SNode], place: SNode, shape: tuple[int, ...]) -> np.ndarray:
    text = _access(place.ref(), len(shape), str(place.dtype))
    kernel = parse_ir("kernel {\n" + text + "\n}", snodes)
    assert lower_access.run(kernel, PassContext())
    verify(kernel)
    load = kernel.body[0].body[len(kernel.body[0].body) - 1]
    out = np.zeros(shape, dtype=np.int64)
    for index in np.ndindex(*shape):
        out[index] = _address(load.ptr, index)
    return out


@pytest.mark.parametrize("shape", [(3, 5, 4), (7,), (6, 16), (2, 1, 3)])
def test_one_level_field_is_row_major(shape):
    snodes = _field((tuple(range(len(shape))), shape))
    expected = np.arange(np.prod(shape)).reshape(shape) * 4
    assert (_addresses(snodes, snodes[2], shape) == expected).all()


def test_two_fields_in_one_dense_are_interleaved():
    root = SNode(0, "root")
    grid = root.dense((0, 1), (3, 5), 1)
    a, b = grid.place(f32, 2), grid.place(i32, 3)
    finalize_layout(root)
    snodes = {0: root, 1: grid, 2: a, 3: b}
    cells = np.arange(15).reshape(3, 5) * 8
    assert (_addresses(snodes, a, (3, 5)) == cells).all()
    assert (_addresses(snodes, b, (3, 5)) == cells + 4).all()


def test_nested_levels_address_blocks_in_memory_order():
    # dense(ij, (2, 3)).dense(ij, (4, 5)): memory holds 2x3 blocks of 4x5 elements.
    snodes = _field(((0, 1), (2, 3)), ((0, 1), (4, 5)))
    memory = np.arange(120).reshape(2, 3, 4, 5).transpose(0, 2, 1, 3).reshape(8, 15)
    assert (_addresses(snodes, snodes[3], (8, 15)) == memory * 4).all()


def test_three_levels_with_axes_split_unevenly():
    # dense(i, 3).dense(ij, (2, 5)).dense(j, 4): shape (6, 20), memory order (i1, i2, j1, j2).
    snodes = _field(((0,), (3,)), ((0, 1), (2, 5)), ((1,), (4,)))
    memory = np.arange(120).reshape(3, 2, 5, 4).reshape(6, 20)
    assert (_addresses(snodes, snodes[4], (6, 20)) == memory * 4).all()
