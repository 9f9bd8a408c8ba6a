from __future__ import annotations

import operator

import pytest

from tests.passes.golden import check_pass
from tistudio.ir import BinaryOpType, normalize_value, parse_ir, verify
from tistudio.ir.statements import (
    ArgLoad,
    AtomicOp,
    BinaryOp,
    Const,
    GlobalLoad,
    GlobalPtr,
    GlobalStore,
    GlobalTemporary,
    If,
    LoopIndex,
    Offloaded,
    ThreadLocalPtr,
)
from tistudio.ir.stmt import Block, Stmt
from tistudio.passes import make_thread_local
from tistudio.passes.context import PassContext


def test_sum_into_a_scalar_field_accumulates_per_thread():
    check_pass(
        make_thread_local,
        before="""
            $0 = offloaded range_for(0, 1000) body {
              <i32> $1 = loop $0 index 0
              <*f32> $2 = global ptr [S2place<f32>], index [$1]
              <f32> $3 = global load $2
              <f32> $4 = mul $3 $3
              <*f32> $5 = global ptr [S4place<f32>], index []
              <f32> $6 = atomic add($5, $4)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 1000) tls_size=4 tls prologue {
              <*f32> $1 = thread local ptr (offset = 0 B)
              <f32> $2 = const -0.0
              $3 : global store [$1 <- $2]
            } body {
              <*f32> $4 = thread local ptr (offset = 0 B)
              <i32> $5 = loop $0 index 0
              <*f32> $6 = global ptr [S2place<f32>], index [$5]
              <f32> $7 = global load $6
              <f32> $8 = mul $7 $7
              <f32> $9 = atomic add($4, $8)
            } tls epilogue {
              <*f32> $10 = thread local ptr (offset = 0 B)
              <f32> $11 = global load $10
              <*f32> $12 = global ptr [S4place<f32>], index []
              <f32> $13 = atomic add($12, $11)
            }
        """,
    )


def test_sub_collects_what_it_subtracts_and_epilogue_recomputes_the_address():
    check_pass(
        make_thread_local,
        before="""
            $0 = offloaded range_for(0, 10) body {
              <i32> $1 = loop $0 index 0
              <i32> $2 = argload[0]
              <i32> $3 = const 1
              <i32> $4 = add $2 $3
              <*i32> $5 = global ptr [S4place<i32>], index [$4]
              <i32> $6 = atomic sub($5, $1)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 10) tls_size=4 tls prologue {
              <*i32> $1 = thread local ptr (offset = 0 B)
              <i32> $2 = const 0
              $3 : global store [$1 <- $2]
            } body {
              <*i32> $4 = thread local ptr (offset = 0 B)
              <i32> $5 = loop $0 index 0
              <i32> $6 = argload[0]
              <i32> $7 = const 1
              <i32> $8 = add $6 $7
              <i32> $9 = atomic add($4, $5)
            } tls epilogue {
              <*i32> $10 = thread local ptr (offset = 0 B)
              <i32> $11 = global load $10
              <i32> $12 = argload[0]
              <i32> $13 = const 1
              <i32> $14 = add $12 $13
              <*i32> $15 = global ptr [S4place<i32>], index [$14]
              <i32> $16 = atomic sub($15, $11)
            }
        """,
    )


@pytest.mark.parametrize(
    ("op", "dtype", "identity", "size"),
    [
        ("min", "f32", "nan", 4),
        ("max", "f32", "nan", 4),
        ("min", "i32", "2147483647", 4),
        ("max", "i32", "-2147483648", 4),
        ("min", "u8", "255", 1),
        ("max", "u16", "0", 2),
        ("bit_and", "i32", "-1", 4),
        ("bit_and", "u32", "4294967295", 4),
        ("bit_or", "i64", "0", 8),
        ("bit_xor", "i32", "0", 4),
        ("mul", "i32", "1", 4),
        ("add", "f64", "-0.0", 8),
    ],
)
def test_prologue_starts_each_slot_at_the_identity(op, dtype, identity, size):
    check_pass(
        make_thread_local,
        before=f"""
            $0 = offloaded range_for(0, 8) body {{
              <{dtype}> $1 = argload[0]
              <*{dtype}> $2 = global ptr [S1place<{dtype}>], index []
              <{dtype}> $3 = atomic {op}($2, $1)
            }}
        """,
        after=f"""
            $0 = offloaded range_for(0, 8) tls_size={size} tls prologue {{
              <*{dtype}> $1 = thread local ptr (offset = 0 B)
              <{dtype}> $2 = const {identity}
              $3 : global store [$1 <- $2]
            }} body {{
              <*{dtype}> $4 = thread local ptr (offset = 0 B)
              <{dtype}> $5 = argload[0]
              <{dtype}> $6 = atomic {op}($4, $5)
            }} tls epilogue {{
              <*{dtype}> $7 = thread local ptr (offset = 0 B)
              <{dtype}> $8 = global load $7
              <*{dtype}> $9 = global ptr [S1place<{dtype}>], index []
              <{dtype}> $10 = atomic {op}($9, $8)
            }}
        """,
    )


def test_global_temporary_reduction_and_loop_invariant_gtmp_index():
    # Offset 8 is a reduced local variable; offset 0 only read (an index from serial code).
    check_pass(
        make_thread_local,
        before="""
            $0 = offloaded range_for(0, 16) body {
              <*i32> $1 = global tmp var (offset = 8 B)
              <*i32> $2 = global tmp var (offset = 0 B)
              <i32> $3 = global load $2
              <i32> $4 = loop $0 index 0
              <i32> $5 = atomic max($1, $4)
              <*f32> $6 = global ptr [S1place<f32>], index [$3]
              <f32> $7 = const 0.5
              <f32> $8 = atomic add($6, $7)
            }
        """,
        after="""
            $0 = offloaded range_for(0, 16) tls_size=8 tls prologue {
              <*i32> $1 = thread local ptr (offset = 0 B)
              <i32> $2 = const -2147483648
              $3 : global store [$1 <- $2]
              <*f32> $4 = thread local ptr (offset = 4 B)
              <f32> $5 = const -0.0
              $6 : global store [$4 <- $5]
            } body {
              <*i32> $7 = thread local ptr (offset = 0 B)
              <*f32> $8 = thread local ptr (offset = 4 B)
              <*i32> $9 = global tmp var (offset = 0 B)
              <i32> $10 = global load $9
              <i32> $11 = loop $0 index 0
              <i32> $12 = atomic max($7, $11)
              <f32> $13 = const 0.5
              <f32> $14 = atomic add($8, $13)
            } tls epilogue {
              <*i32> $15 = thread local ptr (offset = 0 B)
              <i32> $16 = global load $15
              <*i32> $17 = global tmp var (offset = 8 B)
              <i32> $18 = atomic max($17, $16)
              <*f32> $19 = thread local ptr (offset = 4 B)
              <f32> $20 = global load $19
              <*i32> $21 = global tmp var (offset = 0 B)
              <i32> $22 = global load $21
              <*f32> $23 = global ptr [S1place<f32>], index [$22]
              <f32> $24 = atomic add($23, $20)
            }
        """,
    )


def test_reductions_to_one_address_share_a_slot_and_slots_are_aligned():
    check_pass(
        make_thread_local,
        before="""
            $0 = offloaded range_for(0, 16) body {
              <i32> $1 = loop $0 index 0
              <*i32> $2 = global ptr [S1place<i32>], index []
              <i32> $3 = atomic add($2, $1)
              <u1> $4 = const true
              $5 : if $4 {
                <*i32> $6 = global ptr [S1place<i32>], index []
                <i32> $7 = atomic add($6, $1)
                <f64> $8 = const 2.0
                <*f64> $9 = global ptr [S2place<f64>], index []
                <f64> $10 = atomic mul($9, $8)
              }
            }
        """,
        after="""
            $0 = offloaded range_for(0, 16) tls_size=16 tls prologue {
              <*i32> $1 = thread local ptr (offset = 0 B)
              <i32> $2 = const 0
              $3 : global store [$1 <- $2]
              <*f64> $4 = thread local ptr (offset = 8 B)
              <f64> $5 = const 1.0
              $6 : global store [$4 <- $5]
            } body {
              <*i32> $7 = thread local ptr (offset = 0 B)
              <*f64> $8 = thread local ptr (offset = 8 B)
              <i32> $9 = loop $0 index 0
              <i32> $10 = atomic add($7, $9)
              <u1> $11 = const true
              $12 : if $11 {
                <i32> $13 = atomic add($7, $9)
                <f64> $14 = const 2.0
                <f64> $15 = atomic mul($8, $14)
              }
            } tls epilogue {
              <*i32> $16 = thread local ptr (offset = 0 B)
              <i32> $17 = global load $16
              <*i32> $18 = global ptr [S1place<i32>], index []
              <i32> $19 = atomic add($18, $17)
              <*f64> $20 = thread local ptr (offset = 8 B)
              <f64> $21 = global load $20
              <*f64> $22 = global ptr [S2place<f64>], index []
              <f64> $23 = atomic mul($22, $21)
            }
        """,
    )


def test_what_is_not_a_private_reduction_is_left_alone():
    kept = """
        $0 = offloaded range_for(0, 16) body {
          <i32> $1 = loop $0 index 0
          <*i32> $2 = global ptr [S1place<i32>], index [$1]
          <i32> $3 = atomic add($2, $1)
          <*i32> $4 = global ptr [S2place<i32>], index []
          <i32> $5 = atomic add($4, $1)
          <i32> $6 = mul $5 $5
          <*i32> $7 = global ptr [S3place<i32>], index []
          <i32> $8 = atomic add($7, $1)
          <i32> $9 = global load $7
          <*i32> $10 = global ptr [S5place<i32>], index []
          <i32> $11 = atomic add($10, $1)
          <i32> $12 = atomic max($10, $1)
          <*i32> $13 = global tmp var (offset = 0 B)
          $14 : global store [$13 <- $1]
          <i32> $15 = global load $13
          <*i32> $16 = global ptr [S6place<i32>], index [$15]
          <i32> $17 = atomic add($16, $1)
          <*i32> $18 = external_ptr arg 0, []
          <i32> $19 = atomic add($18, $1)
        }
        $20 = offloaded serial body {
          <i32> $21 = const 1
          <*i32> $22 = global ptr [S8place<i32>], index []
          <i32> $23 = atomic add($22, $21)
        }
        $24 = offloaded struct_for(S9dense) body {
          <i32> $25 = const 1
          <*i32> $26 = global ptr [S8place<i32>], index []
          <i32> $27 = atomic add($26, $25)
        }
    """
    check_pass(make_thread_local, before=kept, after=kept)


# --- semantics: run the task on 3 "threads" and compare with one sequential run ------------


def _num(pick):  # noqa: ANN001, ANN202
    """LLVM's maxnum/minnum (the back ends' float max/min): a NaN operand gives the other."""
    return lambda a, b: b if a != a else a if b != b else pick(a, b)


_OPS = {
    BinaryOpType.add: operator.add,
    BinaryOpType.sub: operator.sub,
    BinaryOpType.mul: operator.mul,
    BinaryOpType.min: _num(min),
    BinaryOpType.max: _num(max),
    BinaryOpType.bit_and: operator.and_,
    BinaryOpType.bit_or: operator.or_,
    BinaryOpType.bit_xor: operator.xor,
    BinaryOpType.cmp_lt: operator.lt,
}


def _where(stmt: Stmt, env: dict, memory: dict, tls: dict) -> tuple[dict, object]:
    """The store (global memory or this thread's slots) and key that a pointer names."""
    if isinstance(stmt, GlobalPtr):
        return memory, (stmt.snode.id, *(env[i] for i in stmt.indices))
    if isinstance(stmt, GlobalTemporary):
        return memory, ("gtmp", stmt.offset)
    assert isinstance(stmt, ThreadLocalPtr)
    return tls, stmt.offset


def _execute(block: Block, env: dict, memory: dict, tls: dict, args: list) -> None:
    for s in block:
        if isinstance(s, Const):
            env[s] = s.value
        elif isinstance(s, ArgLoad):
            env[s] = args[s.arg_id]
        elif isinstance(s, LoopIndex):
            env[s] = env[s.loop]
        elif isinstance(s, BinaryOp):
            env[s] = normalize_value(_OPS[s.op](env[s.lhs], env[s.rhs]), s.ret_type)
        elif isinstance(s, (GlobalPtr, GlobalTemporary, ThreadLocalPtr)):
            env[s] = _where(s, env, memory, tls)
        elif isinstance(s, GlobalLoad):
            store, key = env[s.ptr]
            env[s] = store[key]
        elif isinstance(s, GlobalStore):
            store, key = env[s.ptr]
            store[key] = env[s.value]
        elif isinstance(s, AtomicOp):
            store, key = env[s.dest]
            env[s] = store[key]
            store[key] = normalize_value(_OPS[s.op.binary](env[s], env[s.val]), s.ret_type)
        else:
            assert isinstance(s, If), f"the test machine cannot run {type(s).__name__}"
            taken = s.true_block if env[s.cond] else s.false_block
            _execute(taken, env, memory, tls, args)


def _launch(task: Offloaded, memory: dict, args: list, threads: int) -> dict:
    memory = dict(memory)
    n = task.end - task.begin
    bounds = [task.begin + n * t // threads for t in range(threads + 1)]
    for lo, hi in zip(bounds, bounds[1:]):
        env: dict = {}
        tls: dict = {}  # a fresh, uninitialised thread: reading a slot before the prologue fails
        _execute(task.tls_prologue, env, memory, tls, args)
        for i in range(lo, hi):
            env[task] = i
            _execute(task.body, env, memory, tls, args)
        _execute(task.tls_epilogue, env, memory, tls, args)
    return memory


_REDUCE = """kernel {{
  $0 = offloaded range_for(0, 23) body {{
    <i32> $1 = loop $0 index 0
    <*{t}> $2 = global ptr [S1place<{t}>], index [$1]
    <{t}> $3 = global load $2
    <i32> $4 = argload[0]
    <*{t}> $5 = global ptr [S2place<{t}>], index [$4]
    <{t}> $6 = atomic {op}($5, $3)
    <{t}> $7 = argload[1]
    <u1> $8 = cmp_lt $3 $7
    $9 : if $8 {{
      <*{t}> $10 = global ptr [S3place<{t}>], index []
      <{t}> $11 = atomic {op}($10, $3)
    }}
  }}
}}"""


_INT_OPS = ["add", "sub", "mul", "min", "max", "bit_and", "bit_or", "bit_xor"]


@pytest.mark.parametrize(
    ("op", "dtype"),
    [(op, "i32") for op in _INT_OPS] + [(op, "f32") for op in ("add", "sub", "min", "max")],
)
def test_per_thread_partials_give_the_sequential_result(op, dtype):
    kernel = parse_ir(_REDUCE.format(t=dtype, op=op))
    convert = float if dtype == "f32" else int
    memory = {(1, i): convert((i * 37) % 19 - 9) for i in range(23)}
    memory |= {(2, 3): convert(5), (3,): convert(-6 if op == "bit_and" else 7)}
    args = [3, convert(2)]
    expected = _launch(kernel.body[0], memory, args, threads=1)
    assert make_thread_local.run(kernel, PassContext())
    verify(kernel)
    assert kernel.body[0].tls_size == 8
    assert _launch(kernel.body[0], memory, args, threads=3) == expected
    assert expected != memory  # the reduction did something to compare


@pytest.mark.parametrize("op", ["min", "max"])
def test_float_min_max_leave_a_nan_destination_that_no_term_reaches(op):
    """A NaN destination that no iteration reduces into (the `if` never taken), or that only
    NaN terms reach, stays NaN, as in the sequential loop: with +-inf as the identity the
    merge made it -inf (the fuzz campaign's kernel, 2026-11-27)."""
    kernel = parse_ir(_REDUCE.format(t="f32", op=op))
    nan = float("nan")
    memory = {(1, i): [nan, -1.5, float("inf")][i % 3] for i in range(23)}
    memory |= {(2, 3): nan, (3,): nan}
    args = [3, -100.0]  # no value is below -100: the `if` is never taken
    expected = _launch(kernel.body[0], memory, args, threads=1)
    assert make_thread_local.run(kernel, PassContext())
    got = _launch(kernel.body[0], memory, args, threads=3)
    assert got[(3,)] != got[(3,)]  # NaN: untouched
    assert got[(2, 3)] == expected[(2, 3)] == (float("inf") if op == "max" else -1.5)
