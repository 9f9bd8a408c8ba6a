"""What the CPU back end refuses, and how: statements it cannot express raise
`UnsupportedOnBackend` naming the statement and the user's line; bad arguments raise clearly."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.llvm.helpers import compile_text, kernel_text, ndarray, scalar
from tistudio.backends.errors import UnsupportedOnBackend
from tistudio.ir import SourceLoc, parse_ir, walk
from tistudio.ir.config import CompileConfig
from tistudio.ir.statements import BinaryOp, Break, StructFor


def _compile_with_loc(backend, body: str, cls, loc: SourceLoc, **kwargs):
    kernel = parse_ir(kernel_text(body))
    for stmt in walk(kernel.body):
        if isinstance(stmt, cls):
            stmt.loc = loc
    for name, value in kwargs.items():
        setattr(kernel, name, value)
    return backend.compile(kernel, CompileConfig())


@pytest.mark.parametrize("op", ["floordiv", "truediv", "logical_and"])
def test_frontend_only_operators_are_refused_with_the_users_line(backend, op):
    loc = SourceLoc("physics.py", 42, 8, "    v = a // b")
    body = f"""
    $0 = offloaded serial body {{
      <i32> $1 = const 7
      <i32> $2 = {op} $1 $1
      $3 : return $2
    }}
    """
    with pytest.raises(UnsupportedOnBackend) as info:
        _compile_with_loc(backend, body, BinaryOp, loc, ret_types=[])
    message = str(info.value)
    assert op in message and "physics.py:42" in message and "cpu" in message
    assert "v = a // b" in message
    assert info.value.stmt.loc is loc


def test_integer_pow_must_be_demoted_first(backend):
    with pytest.raises(UnsupportedOnBackend, match="pow on i32"):
        compile_text(
            backend,
            """
            $0 = offloaded serial body {
              <i32> $1 = const 3
              <i32> $2 = pow $1 $1
            }
            """,
        )


def test_bitwise_op_on_floats_is_refused(backend):
    with pytest.raises(UnsupportedOnBackend, match="bit_and on f32"):
        compile_text(
            backend,
            """
            $0 = offloaded serial body {
              <f32> $1 = const 3.0
              <f32> $2 = bit_and $1 $1
            }
            """,
        )


def test_break_out_of_a_parallel_loop_is_refused(backend):
    body = """
    $0 = offloaded range_for(0, 8) body {
      $1 : break
    }
    """
    with pytest.raises(UnsupportedOnBackend, match="break out of a parallel loop"):
        _compile_with_loc(backend, body, Break, SourceLoc("k.py", 3))


def test_struct_for_must_be_demoted(backend):
    body = """
    $0 = offloaded serial body {
      $1 : struct for in S1dense {
      }
    }
    """
    with pytest.raises(UnsupportedOnBackend, match="StructFor"):
        _compile_with_loc(backend, body, StructFor, SourceLoc("k.py", 5))


def test_return_from_a_parallel_task_is_refused(backend):
    with pytest.raises(UnsupportedOnBackend, match="return from a parallel task"):
        compile_text(
            backend,
            """
            $0 = offloaded range_for(0, 8) body {
              <i32> $1 = loop $0 index 0
              $2 : return $1
            }
            """,
            ret_types=["i32"],
        )


@pytest.fixture
def sum_kernel(backend):
    return compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <i32> $1 = argload[0]
          <*f32> $2 = external_ptr arg 1, [$1]
          <f32> $3 = global load $2
          $4 : return $3
        }
        """,
        params=[scalar("i", "i32"), ndarray("a", "f32", 1)],
        ret_types=["f32"],
    )


def test_wrong_arguments_raise_clear_errors(sum_kernel):
    a = np.arange(4, dtype=np.float32)
    assert sum_kernel.launch([2, a], []) == (2.0,)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        sum_kernel.launch([2], [])
    with pytest.raises(TypeError, match="'i' must be an integer"):
        sum_kernel.launch([2.5, a], [])
    with pytest.raises(TypeError, match="1-d float32"):
        sum_kernel.launch([1, a.astype(np.float64)], [])
    with pytest.raises(TypeError, match="numpy array"):
        sum_kernel.launch([1, [1.0, 2.0]], [])
    with pytest.raises(ValueError, match="C-contiguous"):
        sum_kernel.launch([1, np.arange(8, dtype=np.float32)[::2]], [])
    assert sum_kernel.launch([3, a], []) == (3.0,)  # still usable after the errors


def test_division_by_zero_from_arguments_does_not_crash(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <i32> $1 = argload[0]
          <i32> $2 = argload[1]
          <i32> $3 = div $1 $2
          <i32> $4 = mod $1 $2
          $5 : return $3, $4
        }
        """,
        params=[scalar("a", "i32"), scalar("b", "i32")],
        ret_types=["i32", "i32"],
    )
    assert ex.launch([7, 0], []) == (0, 0)
    assert ex.launch([-(2**31), -1], []) == (0, 0)
    assert ex.launch([-7, 2], []) == (-3, -1)
