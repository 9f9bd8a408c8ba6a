"""Control flow and local variables: select, serial loops, while/break/continue, if/else,
early return, and return values of every type."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, ndarray, scalar


def test_select_picks_per_element(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded range_for(0, 100) body {
          <i32> $1 = loop $0 index 0
          <*f32> $2 = external_ptr arg 0, [$1]
          <f32> $3 = global load $2
          <f32> $4 = const 0.0
          <u1> $5 = cmp_lt $3 $4
          <f32> $6 = neg $3
          <f32> $7 = select($5, $6, $3)
          <*f32> $8 = external_ptr arg 1, [$1]
          $9 : global store [$8 <- $7]
        }
        """,
        params=[ndarray("a", "f32", 1), ndarray("out", "f32", 1)],
    )
    a = np.linspace(-5, 5, 100).astype(np.float32)
    out = np.zeros_like(a)
    ex.launch([a, out], [])
    np.testing.assert_array_equal(out, np.abs(a))


NESTED_LOOPS = """
$0 = offloaded serial body {
  <*i64> $1 = alloca
  <i32> $2 = const 0
  <i32> $3 = argload[0]
  $4 : for in range($2, $3) reversed=false serialize=false {
    <i32> $5 = loop $4 index 0
    $6 : for in range($5, $3) reversed=true serialize=false {
      <i32> $7 = loop $6 index 0
      <i32> $8 = mul $5 $7
      <i32> $9 = const 3
      <i32> $10 = add $8 $9
      <i64> $11 = cast_value $10
      <i64> $12 = local load [$1]
      <i64> $13 = mul $12 $11
      <i64> $14 = const 1000003
      <i64> $15 = mod $13 $14
      <i64> $16 = add $15 $11
      $17 : local store [$1 <- $16]
    }
  }
  <i64> $18 = local load [$1]
  $19 : return $18
}
"""


@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_nested_serial_loops_with_a_local_variable(backend, n):
    ex = compile_text(backend, NESTED_LOOPS, params=[scalar("n", "i32")], ret_types=["i64"])
    total = 0
    for i in range(n):
        for j in reversed(range(i, n)):  # order matters: the update does not commute
            v = i * j + 3
            total = (total * v) % 1000003 + v
    assert ex.launch([n], []) == (total,)


COLLATZ = """
$0 = offloaded serial body {
  <*i32> $1 = alloca
  <*i32> $2 = alloca
  <i32> $3 = argload[0]
  $4 : local store [$2 <- $3]
  <i32> $5 = const 1
  <i32> $6 = const 2
  <i32> $7 = const 3
  <i32> $8 = const 0
  $9 : while true {
    <i32> $10 = local load [$2]
    <u1> $11 = cmp_eq $10 $5
    $12 : if $11 {
      $13 : break
    }
    <i32> $14 = local load [$1]
    <i32> $15 = add $14 $5
    $16 : local store [$1 <- $15]
    <i32> $17 = mod $10 $6
    <u1> $18 = cmp_eq $17 $8
    $19 : if $18 {
      <i32> $20 = div $10 $6
      $21 : local store [$2 <- $20]
      $22 : continue
    }
    <i32> $23 = mul $10 $7
    <i32> $24 = add $23 $5
    $25 : local store [$2 <- $24]
  }
  <i32> $26 = local load [$1]
  $27 : return $26
}
"""


def _collatz_steps(x: int) -> int:
    steps = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


def test_while_with_break_and_continue(backend):
    ex = compile_text(backend, COLLATZ, params=[scalar("x", "i32")], ret_types=["i32"])
    for x in (1, 2, 3, 7, 27, 97):
        assert ex.launch([x], []) == (_collatz_steps(x),)


def test_if_else_and_continue_in_a_parallel_loop(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded range_for(0, 1000) body {
          <i32> $1 = loop $0 index 0
          <i32> $2 = const 3
          <i32> $3 = mod $1 $2
          <i32> $4 = const 0
          <u1> $5 = cmp_eq $3 $4
          $6 : if $5 {
            $7 : continue
          }
          <*i32> $8 = external_ptr arg 0, [$1]
          <i32> $9 = const 2
          <i32> $10 = mod $1 $9
          <u1> $11 = cmp_eq $10 $4
          $12 : if $11 {
            <i32> $13 = mul $1 $9
            $14 : global store [$8 <- $13]
          } else {
            <i32> $15 = neg $1
            $16 : global store [$8 <- $15]
          }
        }
        """,
        params=[ndarray("out", "i32", 1)],
    )
    out = np.full(1000, 7, np.int32)
    ex.launch([out], [])
    i = np.arange(1000)
    want = np.where(i % 3 == 0, 7, np.where(i % 2 == 0, 2 * i, -i))
    np.testing.assert_array_equal(out, want)


def test_early_return_from_inside_a_loop(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <i32> $1 = const 0
          <i32> $2 = external_tensor_shape_along_axis 0, arg 0
          $3 : for in range($1, $2) reversed=false serialize=false {
            <i32> $4 = loop $3 index 0
            <*f64> $5 = external_ptr arg 0, [$4]
            <f64> $6 = global load $5
            <f64> $7 = argload[1]
            <u1> $8 = cmp_gt $6 $7
            $9 : if $8 {
              $10 : return $4, $6
            }
          }
          <i32> $11 = const -1
          <f64> $12 = const 0.0
          $13 : return $11, $12
        }
        """,
        params=[ndarray("a", "f64", 1), scalar("threshold", "f64")],
        ret_types=["i32", "f64"],
    )
    a = np.array([0.5, 2.5, 1.0, 9.25, 3.0])
    assert ex.launch([a, 2.0], []) == (1, 2.5)
    assert ex.launch([a, 5.0], []) == (3, 9.25)
    assert ex.launch([a, 10.0], []) == (-1, 0.0)


def test_loop_bounds_at_the_ends_of_i32_terminate(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <*i32> $1 = alloca
          <i32> $2 = const 2147483645
          <i32> $3 = const 2147483647
          <i32> $4 = const 1
          $5 : for in range($2, $3) reversed=false serialize=false {
            <i32> $6 = local load [$1]
            <i32> $7 = add $6 $4
            $8 : local store [$1 <- $7]
          }
          <i32> $9 = const -2147483648
          <i32> $10 = const -2147483645
          $11 : for in range($9, $10) reversed=true serialize=false {
            <i32> $12 = local load [$1]
            <i32> $13 = const 10
            <i32> $14 = add $12 $13
            $15 : local store [$1 <- $14]
          }
          <i32> $16 = local load [$1]
          $17 : return $16
        }
        """,
        ret_types=["i32"],
    )
    assert ex.launch([], []) == (2 + 30,)


def test_a_variable_declared_in_a_loop_starts_at_zero_each_iteration(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded range_for(0, 64) body {
          <i32> $1 = loop $0 index 0
          <i32> $2 = const 0
          $3 : for in range($2, $1) reversed=false serialize=false {
            <*i32> $4 = alloca
            <i32> $5 = local load [$4]
            <i32> $6 = const 5
            <i32> $7 = add $5 $6
            $8 : local store [$4 <- $7]
            <*i32> $9 = external_ptr arg 0, [$1]
            <i32> $10 = global load $9
            <i32> $11 = add $10 $7
            $12 : global store [$9 <- $11]
          }
        }
        """,
        params=[ndarray("out", "i32", 1)],
    )
    out = np.zeros(64, np.int32)
    ex.launch([out], [])
    np.testing.assert_array_equal(out, 5 * np.arange(64))


@pytest.mark.parametrize(
    "dtype,text,value",
    [
        ("i32", "-123456", -123456),
        ("i64", "-9000000000000", -9000000000000),
        ("u64", "18446744073709551615", 2**64 - 1),
        ("u8", "250", 250),
        ("i8", "-128", -128),
        ("u16", "65535", 65535),
        ("f32", "0.1", float(np.float32(0.1))),
        ("f64", "0.1", 0.1),
        ("u1", "true", True),
        ("f16", "1.5", 1.5),
    ],
)
def test_return_values_of_each_type(backend, dtype, text, value):
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded serial body {{
          <{dtype}> $1 = const {text}
          <i32> $2 = const 7
          $3 : return $1, $2
        }}
        """,
        ret_types=[dtype, "i32"],
    )
    result = ex.launch([], [])
    assert result == (value, 7)
    assert type(result[0]) is type(value)


@pytest.mark.parametrize(
    "dtype,arg,want",
    [
        ("i32", 2**32 + 5, 5),
        ("i32", 2**31, -(2**31)),
        ("u8", 300, 44),
        ("u8", -1, 255),
        ("i16", 40000, 40000 - 65536),
        ("u64", -1, 2**64 - 1),
        ("f32", 1e40, float("inf")),
        ("f64", 3, 3.0),
        ("u1", 5, True),
        ("u1", 0, False),
        ("f16", 0.1, float(np.float16(0.1))),
    ],
)
def test_scalar_arguments_are_cast_with_wraparound(backend, dtype, arg, want):
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded serial body {{
          <{dtype}> $1 = argload[0]
          $2 : return $1
        }}
        """,
        params=[scalar("x", dtype)],
        ret_types=[dtype],
    )
    assert ex.launch([arg], []) == (want,)
