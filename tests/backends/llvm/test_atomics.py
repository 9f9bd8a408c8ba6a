"""Atomic read-modify-write of every kind, under real contention (4 chunks on the pool), with
values chosen so that the exact result is known (integer-valued float sums)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.llvm.helpers import Tree, compile_text, ndarray, np_dtype, scalar
from tistudio.ir.config import CompileConfig

N = 4000
THREADS = CompileConfig(cpu_max_num_threads=4)


def _values(dtype: str, op: str) -> np.ndarray:
    i = np.arange(N)
    if op == "mul":
        v = np.where(i % 400 == 7, 2, 1)  # product 2**10
        if dtype[0] in "if":
            v = np.where(i == 3, -1, v)
    elif op in ("bit_and", "bit_or", "bit_xor"):
        bits = np.dtype(np_dtype(dtype)).itemsize * 8
        v = (i * 2654435761) % (1 << min(bits, 31))
        if op == "bit_and":
            v = ~(1 << (i % bits)) & ((1 << bits) - 1) if dtype[0] == "u" else ~(1 << (i % 31))
    elif dtype[0] == "u":
        v = (i * 7919) % 250 + (2**31 + 5 if dtype == "u32" else 0)  # above the i32 range
    else:
        v = (i * 7919) % 501 - 250  # negative and positive, integer-valued floats too
    return v.astype(np_dtype(dtype))


def _reference(op: str, dtype: str, start, values: np.ndarray):
    dt = np_dtype(dtype)
    with np.errstate(over="ignore"):
        if op == "add":
            return (start + values.astype(np.float64 if dtype[0] == "f" else dt).sum()).astype(dt)
        if op == "sub":
            return (start - values.astype(np.float64 if dtype[0] == "f" else dt).sum()).astype(dt)
    combine = {
        "max": np.maximum,
        "min": np.minimum,
        "mul": np.multiply,
        "bit_and": np.bitwise_and,
        "bit_or": np.bitwise_or,
        "bit_xor": np.bitwise_xor,
    }[op]
    return combine.reduce(np.concatenate([[start], values]).astype(dt))


CASES = [
    (op, dtype)
    for op in ("add", "sub", "max", "min", "mul")
    for dtype in ("i32", "i64", "u32", "f32", "f64")
] + [(op, dtype) for op in ("bit_and", "bit_or", "bit_xor") for dtype in ("i32", "u32", "i64")]


@pytest.mark.parametrize("op,dtype", CASES)
def test_atomic_into_one_field_element_from_four_chunks(split_backend, op, dtype):
    tree = Tree(1, dtype)
    lines, dest = tree.ptr_text(0, "$9", 100)
    ex = compile_text(
        split_backend,
        f"""
        $0 = offloaded range_for(0, {N}) body {{
          <i32> $1 = loop $0 index 0
          <*{dtype}> $2 = external_ptr arg 0, [$1]
          <{dtype}> $3 = global load $2
          <i32> $9 = const 0
          {lines}
          <{dtype}> $4 = atomic {op}({dest}, $3)
        }}
        """,
        params=[ndarray("values", dtype, 1)],
        snodes=tree.snodes,
        config=THREADS,
    )
    values = _values(dtype, op)
    start = {"mul": 3, "bit_and": -1 if dtype[0] == "i" else 2**32 - 1}.get(op, 5)
    for _ in range(3):  # repeat: a lost update shows up sooner or later
        tree.field(0)[0] = start
        ex.launch([values], tree.roots)
        assert tree.field(0)[0] == _reference(op, dtype, start, values)


@pytest.mark.parametrize("dtype", ["i32", "u8", "f32", "f64", "u64"])
@pytest.mark.parametrize("op", ["add", "mul", "max"])
def test_atomic_returns_the_old_value(backend, op, dtype):
    ex = compile_text(
        backend,
        f"""
        $0 = offloaded serial body {{
          <*{dtype}> $1 = external_ptr arg 0, []
          <{dtype}> $2 = argload[1]
          <{dtype}> $3 = atomic {op}($1, $2)
          <{dtype}> $4 = global load $1
          $5 : return $3, $4
        }}
        """,
        params=[ndarray("cell", dtype, 0), scalar("v", dtype)],
        ret_types=[dtype, dtype],
    )
    cell = np.array(6, np_dtype(dtype))
    new = {"add": 6 + 3, "mul": 6 * 3, "max": 6}[op]
    assert ex.launch([cell, 3], []) == (6, new)
    assert cell[()] == new


def test_atomics_on_a_bool_field(split_backend):
    ex = compile_text(
        split_backend,
        """
        $0 = offloaded range_for(0, 1000) body {
          <i32> $1 = loop $0 index 0
          <i32> $2 = const 777
          <u1> $3 = cmp_eq $1 $2
          <*u1> $4 = external_ptr arg 0, []
          <u1> $5 = atomic bit_or($4, $3)
          <u1> $6 = cmp_ne $1 $2
          <*u1> $7 = external_ptr arg 1, []
          <u1> $8 = atomic bit_and($7, $6)
        }
        """,
        params=[ndarray("any", "u1", 0), ndarray("all", "u1", 0)],
        config=THREADS,
    )
    any_, all_ = np.array(False), np.array(True)
    ex.launch([any_, all_], [])
    assert any_[()] and not all_[()]


def test_atomic_on_a_local_variable_needs_no_atomicity(backend):
    ex = compile_text(
        backend,
        """
        $0 = offloaded serial body {
          <*f32> $1 = alloca
          <f32> $2 = const 2.5
          <f32> $3 = atomic add($1, $2)
          <f32> $4 = atomic mul($1, $2)
          <f32> $5 = local load [$1]
          $6 : return $3, $4, $5
        }
        """,
        ret_types=["f32", "f32", "f32"],
    )
    assert ex.launch([], []) == (0.0, 2.5, 6.25)
