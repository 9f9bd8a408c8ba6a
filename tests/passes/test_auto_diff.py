"""The `auto_diff` pass on printed IR: a field store after a serial loop that carries a local.

The adjoint code follows the forward code in the same loop body: `y.grad[i]` goes to the stored
value and is zeroed (an overwriting store), the reversed loop reads each iteration's `v` back
from an autodiff stack (`sin` needs it for `cos`), and `x.grad[i]` receives the result with an
atomic add. The forward store into `y` is gone, so the adjoint kernel leaves `y` as it is.
"""

from __future__ import annotations

import textwrap

from tistudio.ir import SNode, parse_ir, print_ir, verify
from tistudio.ir.types import f32
from tistudio.passes import auto_diff
from tistudio.passes.context import PassContext

from .golden import check_pass

BEFORE = """
kernel {
  $0 : struct for in S1dense {
    <i32> $1 = loop $0 index 0
    <*f32> $2 = global ptr [S2place<f32>], index [$1]
    <f32> $3 = global load $2
    <*f32> $4 = alloca
    $5 : local store [$4 <- $3]
    <i32> $6 = const 0
    <i32> $7 = const 2
    $8 : for in range($6, $7) reversed=false serialize=false {
      <f32> $9 = local load [$4]
      <f32> $10 = sin $9
      $11 : local store [$4 <- $10]
    }
    <f32> $12 = local load [$4]
    <*f32> $13 = global ptr [S3place<f32>], index [$1]
    $14 : global store [$13 <- $12]
  }
}
"""

AFTER = """
kernel {
  $0 : struct for in S1dense {
    <f32> $1 = stack alloc (max_size=0)
    <i32> $2 = loop $0 index 0
    <*f32> $3 = global ptr [S2place<f32>], index [$2]
    <f32> $4 = global load $3
    <*f32> $5 = alloca
    $6 : local store [$5 <- $4]
    <i32> $7 = const 0
    <i32> $8 = const 2
    $9 : for in range($7, $8) reversed=false serialize=false {
      <f32> $10 = local load [$5]
      $11 : stack push $1, val = $10
      <f32> $12 = sin $10
      $13 : local store [$5 <- $12]
    }
    <f32> $14 = local load [$5]
    <*f32> $15 = global ptr [S3place<f32>], index [$2]
    <*f32> $16 = alloca
    <*f32> $17 = alloca
    <*f32> $18 = alloca
    <*f32> $19 = global ptr [S5place<f32>], index [$2]
    <f32> $20 = global load $19
    <f32> $21 = local load [$18]
    <f32> $22 = add $21 $20
    $23 : local store [$18 <- $22]
    <f32> $24 = const 0.0
    $25 : global store [$19 <- $24]
    <f32> $26 = local load [$18]
    <f32> $27 = local load [$17]
    <f32> $28 = add $27 $26
    $29 : local store [$17 <- $28]
    $30 : for in range($7, $8) reversed=true serialize=true {
      <*f32> $31 = alloca
      <*f32> $32 = alloca
      <f32> $33 = local load [$17]
      <f32> $34 = local load [$32]
      <f32> $35 = add $34 $33
      $36 : local store [$32 <- $35]
      <f32> $37 = const 0.0
      $38 : local store [$17 <- $37]
      <f32> $39 = local load [$32]
      <f32> $40 = stack load top $1
      <f32> $41 = cos $40
      <f32> $42 = mul $39 $41
      <f32> $43 = local load [$31]
      <f32> $44 = add $43 $42
      $45 : local store [$31 <- $44]
      <f32> $46 = local load [$31]
      <f32> $47 = local load [$17]
      <f32> $48 = add $47 $46
      $49 : local store [$17 <- $48]
      $50 : stack pop $1
    }
    <f32> $51 = local load [$17]
    <f32> $52 = local load [$16]
    <f32> $53 = add $52 $51
    $54 : local store [$16 <- $53]
    <f32> $55 = const 0.0
    $56 : local store [$17 <- $55]
    <f32> $57 = local load [$16]
    <*f32> $58 = global ptr [S4place<f32>], index [$2]
    <f32> $59 = atomic add($58, $57)
  }
}
"""


def _snodes() -> dict[int, SNode]:
    """x (S2) and y (S3) with their gradients x.grad (S4) and y.grad (S5), as needs_grad places
    them (here under one dense node, as ti.root.lazy_grad() would)."""
    root = SNode(0, "root")
    dense = root.dense((0,), (8,), 1)
    x, y = dense.place(f32, 2, "x"), dense.place(f32, 3, "y")
    x.adjoint, y.adjoint = dense.place(f32, 4, "x.grad"), dense.place(f32, 5, "y.grad")
    return {n.id: n for n in (root, dense, *dense.children)}


def test_reverse_mode_of_a_loop_carried_local() -> None:
    kernel = parse_ir(textwrap.dedent(BEFORE).strip(), _snodes())
    kernel.autodiff_mode = "reverse"
    verify(kernel, after="(input)")
    assert auto_diff.run(kernel, PassContext())
    verify(kernel, after="auto_diff")
    assert print_ir(kernel) == textwrap.dedent(AFTER).strip()


def test_a_primal_kernel_is_left_alone() -> None:
    check_pass(auto_diff, BEFORE, BEFORE, _snodes())
