"""lower_ast: Python source in, flat statements out (golden text)."""

from __future__ import annotations

import textwrap

import tistudio as ti
from tests.frontend.util import frontend_ir
from tistudio.ir import print_ir, verify
from tistudio.ir.interpreter import interpret
from tistudio.ir.types import f32, i32
from tistudio.passes import lower_ast, type_check
from tistudio.passes.context import PassContext


def lowered(fn, **kw) -> str:  # noqa: ANN001
    kernel = frontend_ir(fn, **kw)
    assert lower_ast.run(kernel, PassContext())
    verify(kernel, typed=False)
    return print_ir(kernel)


def same(got: str, want: str) -> None:
    assert got == textwrap.dedent(want).strip("\n"), got


def test_expression_tree_becomes_one_statement_per_operation() -> None:
    def k(a: f32) -> f32:
        return a * 2.0 + a

    same(
        lowered(k, params={"a": f32}, ret=[f32]),
        """
        kernel {
          <*f32> $0 = alloca
          <f32> $1 = argload[0]
          $2 : local store [$0 <- $1]
          <f32> $3 = local load [$0]
          <f32> $4 = const 2.0
          <f32> $5 = mul $3 $4
          <f32> $6 = local load [$0]
          <f32> $7 = add $5 $6
          $8 : return $7
        }""",
    )


def test_while_becomes_loop_with_conditional_break() -> None:
    def k(n: i32):
        m = n  # a kernel's arguments are read-only, as in Taichi
        while m > 0:
            m -= 1

    same(
        lowered(k, params={"n": i32}),
        """
        kernel {
          <*i32> $0 = alloca
          <i32> $1 = argload[0]
          $2 : local store [$0 <- $1]
          <*i32> $3 = alloca
          <i32> $4 = local load [$0]
          $5 : local store [$3 <- $4]
          $6 : while true {
            <i32> $7 = local load [$3]
            <i32> $8 = const 0
            <u1> $9 = cmp_gt $7 $8
            <u1> $10 = logic_not $9
            $11 : if $10 {
              $12 : break
            }
            <i32> $13 = const 1
            <i32> $14 = atomic sub($3, $13)
          }
        }""",
    )


def test_and_short_circuits_through_an_if() -> None:
    def k(a: i32) -> i32:
        return 1 if a > 0 and a < 5 else 0

    same(
        lowered(k, params={"a": i32}, ret=[i32]),
        """
        kernel {
          <*i32> $0 = alloca
          <i32> $1 = argload[0]
          $2 : local store [$0 <- $1]
          <*u1> $3 = alloca
          <i32> $4 = local load [$0]
          <i32> $5 = const 0
          <u1> $6 = cmp_gt $4 $5
          $7 : local store [$3 <- $6]
          $8 : if $6 {
            <i32> $9 = local load [$0]
            <i32> $10 = const 5
            <u1> $11 = cmp_lt $9 $10
            $12 : local store [$3 <- $11]
          }
          <u1> $13 = local load [$3]
          <i32> $14 = const 1
          <i32> $15 = const 0
          <i32> $16 = select($13, $14, $15)
          $17 : return $16
        }""",
    )


def test_ndrange_recovers_indices_with_div_and_mod() -> None:
    def k():
        for _i, _j in ti.ndrange(3, (1, 5)):
            pass

    same(
        lowered(k),
        """
        kernel {
          <i32> $0 = const 0
          <i32> $1 = const 0
          <i32> $2 = const 3
          <i32> $3 = sub $2 $1
          <i32> $4 = max $3 $0
          <i32> $5 = const 1
          <i32> $6 = const 5
          <i32> $7 = sub $6 $5
          <i32> $8 = max $7 $0
          <i32> $9 = mul $4 $8
          $10 : for in range($0, $9) reversed=false serialize=false {
            <i32> $11 = loop $10 index 0
            <i32> $12 = mod $11 $8
            <i32> $13 = div $11 $8
            <i32> $14 = add $5 $12
            <i32> $15 = add $1 $13
          }
        }""",
    )


def test_python_mod_evaluates_its_operands_once() -> None:
    # `a % b` is built as `a - b * (a // b)` sharing `a` and `b`: each is lowered once (found by
    # fuzzing: an atomic under `%` ran twice, and nested `%` lowered in exponential time)
    def k(a: i32) -> i32:
        return a % 3

    same(
        lowered(k, params={"a": i32}, ret=[i32]),
        """
        kernel {
          <*i32> $0 = alloca
          <i32> $1 = argload[0]
          $2 : local store [$0 <- $1]
          <i32> $3 = local load [$0]
          <i32> $4 = const 3
          <i32> $5 = floordiv $3 $4
          <i32> $6 = mul $4 $5
          <i32> $7 = sub $3 $6
          $8 : return $7
        }""",
    )


def test_nested_mod_lowers_in_linear_size() -> None:
    def k(a: i32) -> i32:
        return a % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3 % 3

    kernel = frontend_ir(k, params={"a": i32}, ret=[i32])
    lower_ast.run(kernel, PassContext())
    verify(kernel, typed=False)
    # the parameter's variable (alloca, argload, store, load), then 4 statements per `%`, each
    # reading the one before it once (it was 2**20 statements before the fix), then the return
    lines = print_ir(kernel).splitlines()[1:-1]
    assert len(lines) == 4 + 20 * 4 + 1
    value = "$3"
    for k in range(20):
        at = 4 + 4 * k
        divisor, quotient, product, rest = (f"${at + j}" for j in range(4))
        assert lines[at : at + 4] == [
            f"  <i32> {divisor} = const 3",
            f"  <i32> {quotient} = floordiv {value} {divisor}",
            f"  <i32> {product} = mul {divisor} {quotient}",
            f"  <i32> {rest} = sub {value} {product}",
        ]
        value = rest
    assert lines[-1] == f"  $84 : return {value}"
    # and it computes Python's `%` (the remainder takes the divisor's sign), typed and run
    type_check.run(kernel, PassContext())
    for a in (-(2**31), -7, -1, 0, 1, 5, 2**31 - 1):
        assert interpret(kernel, [a], []) == [a % 3], a


def test_atomic_under_mod_runs_once() -> None:
    ti.init(offline_cache=False)
    x = ti.field(i32, shape=1)

    @ti.kernel
    def k() -> i32:
        return ti.atomic_add(x[0], 5) % 7

    assert k() == 0
    assert x[0] == 5
    assert k() == 5
    assert x[0] == 10
