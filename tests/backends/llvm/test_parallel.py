"""The parallel runtime: splitting ranges into chunks, thread-local reductions per chunk,
true parallelism (the GIL is released), and launches from several Python threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.backends.llvm.helpers import Tree, compile_text, ndarray, scalar
from tistudio.backends.llvm import CpuBackend
from tistudio.backends.llvm import runtime_ir as rt
from tistudio.backends.llvm.executable import RANGE_TASK
from tistudio.backends.llvm.jit import JitEngine
from tistudio.backends.llvm.native_pool import NativeThreadPool
from tistudio.backends.llvm.thread_pool import ThreadPool
from tistudio.ir.config import CompileConfig

FILL = """
$0 = offloaded range_for(0, {n}) body {{
  <i32> $1 = loop $0 index 0
  <*i32> $2 = external_ptr arg 0, [$1]
  <i32> $3 = const 1
  <i32> $4 = add $1 $3
  $5 : global store [$2 <- $4]
  <*i32> $6 = external_ptr arg 1, []
  <i32> $7 = atomic add($6, $3)
}}
"""


@pytest.mark.parametrize("n", [1, 2, 1000, 10**6])
def test_every_iteration_runs_exactly_once(backend, n):
    _check_fill(backend, n)


@pytest.mark.parametrize("n", [1, 2, 1000, 10**6])
def test_every_iteration_runs_exactly_once_in_small_chunks(split_backend, n):
    _check_fill(split_backend, n)


def _check_fill(cpu: CpuBackend, n: int) -> None:
    ex = compile_text(
        cpu,
        FILL.format(n=n),
        params=[ndarray("out", "i32", 1), ndarray("count", "i32", 0)],
        config=CompileConfig(cpu_max_num_threads=4),
    )
    out, count = np.zeros(n, np.int32), np.array(0, np.int32)
    ex.launch([out, count], [])
    np.testing.assert_array_equal(out, np.arange(1, n + 1))
    assert count[()] == n


TLS_SUM = """
$0 = offloaded range_for(0, {n}) tls_size=8 tls prologue {{
  <*f32> $1 = thread local ptr (offset = 0 B)
  <f32> $2 = const 0.0
  $3 : global store [$1 <- $2]
  <*i32> $4 = thread local ptr (offset = 4 B)
  <i32> $5 = const 0
  $6 : global store [$4 <- $5]
}} body {{
  <i32> $7 = loop $0 index 0
  <*f32> $8 = thread local ptr (offset = 0 B)
  <f32> $9 = global load $8
  <f32> $10 = cast_value $7
  <f32> $11 = add $9 $10
  $12 : global store [$8 <- $11]
  <*i32> $13 = thread local ptr (offset = 4 B)
  <i32> $14 = global load $13
  <i32> $15 = const 1
  <i32> $16 = add $14 $15
  $17 : global store [$13 <- $16]
}} tls epilogue {{
  <*f32> $18 = thread local ptr (offset = 0 B)
  <f32> $19 = global load $18
  <*f32> $20 = external_ptr arg 0, []
  <f32> $21 = atomic add($20, $19)
  <*i32> $22 = thread local ptr (offset = 4 B)
  <i32> $23 = global load $22
  <*i32> $24 = external_ptr arg 1, []
  <i32> $25 = atomic add($24, $23)
  <i32> $26 = const 1
  <*i32> $27 = external_ptr arg 2, []
  <i32> $28 = atomic add($27, $26)
}}
"""


TLS_PARAMS = [ndarray("total", "f32", 0), ndarray("count", "i32", 0), ndarray("chunks", "i32", 0)]


@pytest.mark.parametrize("threads", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("n", [5, 1000, 5000])
@pytest.mark.parametrize("fast_math", [True, False])
def test_thread_local_reduction_merges_once_per_chunk(split_backend, threads, n, fast_math):
    ex = compile_text(
        split_backend,
        TLS_SUM.format(n=n),
        params=TLS_PARAMS,
        config=CompileConfig(cpu_max_num_threads=threads, fast_math=fast_math),
    )
    total, count, chunks = np.array(0, np.float32), np.array(0, np.int32), np.array(0, np.int32)
    ex.launch([total, count, chunks], [])
    assert total[()] == n * (n - 1) // 2  # integer-valued partial sums below 2**24: exact
    assert count[()] == n
    assert chunks[()] == min(threads, n)


def test_reduction_into_a_tls_slot_vectorises(tiered_backend):
    ex = compile_text(
        tiered_backend,
        TLS_SUM.format(n=100000),
        params=TLS_PARAMS,
        config=CompileConfig(fast_math=False),
    )
    assert "fadd reassoc <" in ex.llvm_ir_optimized  # a vector reduction, in order-free form


PARALLEL_PROOF = """
$0 = offloaded range_for(0, 2) body {
  <i32> $1 = loop $0 index 0
  <*i32> $2 = external_ptr arg 0, []
  <i32> $3 = const 1
  <i32> $4 = const 0
  <u1> $5 = cmp_eq $1 $3
  $6 : if $5 {
    <i32> $7 = atomic add($2, $3)
  } else {
    <*i32> $8 = alloca
    <i32> $9 = argload[1]
    $10 : while true {
      <i32> $11 = atomic add($2, $4)
      <u1> $12 = cmp_ne $11 $4
      <i32> $13 = local load [$8]
      <u1> $14 = cmp_ge $13 $9
      <u1> $15 = bit_or $12 $14
      $16 : if $15 {
        $17 : break
      }
      <i32> $18 = add $13 $3
      $19 : local store [$8 <- $18]
    }
    <*i32> $20 = external_ptr arg 0, []
    <i32> $21 = atomic add($20, $4)
    <i32> $22 = const 10
    <i32> $23 = mul $21 $22
    <i32> $24 = atomic add($20, $23)
  }
}
"""


def test_chunks_run_at_the_same_time(split_backend):
    """Chunk 0 spins until chunk 1 (on a worker) sets a flag. If the call held the GIL, or
    the chunks ran one after the other, chunk 0 would give up first and the result be 1."""
    ex = compile_text(
        split_backend,
        PARALLEL_PROOF,
        params=[ndarray("flag", "i32", 0), scalar("patience", "i32")],
        config=CompileConfig(cpu_max_num_threads=2),
    )
    flag = np.array(0, np.int32)
    ex.launch([flag, 500_000_000], [])
    assert flag[()] == 11  # chunk 0 saw chunk 1's 1 and added 10


def test_concurrent_launches_from_four_python_threads(split_backend):
    tree = Tree(1, "i64")
    lines, dest = tree.ptr_text(0, "$9", 100)
    ex = compile_text(
        split_backend,
        f"""
        $0 = offloaded serial body {{
          <i64> $1 = argload[0]
          <i64> $2 = const 3
          <i64> $3 = mul $1 $2
          $4 : return $3
        }}
        $5 = offloaded range_for(0, 1000) body {{
          <i32> $9 = const 0
          {lines}
          <i64> $6 = argload[0]
          <i64> $7 = atomic add({dest}, $6)
        }}
        """,
        params=[scalar("x", "i64")],
        ret_types=["i64"],
        snodes=tree.snodes,
        config=CompileConfig(cpu_max_num_threads=4),
    )
    errors: list[str] = []

    def work(seed: int) -> None:
        for k in range(200):
            x = seed * 1000 + k
            got = ex.launch([x], tree.roots)
            if got != (3 * x,):
                errors.append(f"thread {seed}: launch({x}) returned {got}")

    threads = [threading.Thread(target=work, args=(s,)) for s in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    want = sum(1000 * (s * 1000 + k) for s in range(1, 5) for k in range(200))
    assert tree.field(0)[0] == want


# --- the pool on its own --------------------------------------------------------------------


POOLS = ["python", "native"]


def _recording_pool(kind: str, threads: int, grain: int):
    """A pool of `kind` and a task that records each chunk (as a ctypes callback for the
    native pool, which calls tasks from native code)."""
    calls: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def record(ctx: int, lo: int, hi: int) -> None:
        with lock:
            calls.append((lo, hi, threading.get_ident()))

    if kind == "python":
        return ThreadPool(threads, grain), calls, record
    pool = NativeThreadPool(threads, JitEngine(), grain)
    return pool, calls, RANGE_TASK(record)


@pytest.mark.parametrize("kind", POOLS)
@pytest.mark.parametrize(
    "n,threads,grain,chunks", [(10, 4, 100, 1), (250, 4, 100, 2), (10**6, 3, 4, 3), (5, 4, 1, 4)]
)
def test_pool_splits_into_balanced_chunks_of_at_least_one_grain(kind, n, threads, grain, chunks):
    pool, calls, fn = _recording_pool(kind, threads, grain)
    try:
        pool.parallel_for(fn, 0, 7, 7 + n)
        spans = sorted((lo, hi) for lo, hi, _ in calls)
        assert len(spans) == chunks
        assert spans[0][0] == 7 and spans[-1][1] == 7 + n
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous, no overlap
        sizes = [hi - lo for lo, hi in spans]
        assert min(sizes) >= min(grain, n) and max(sizes) - min(sizes) <= 1
    finally:
        pool.close()


@pytest.mark.parametrize("kind", POOLS)
def test_small_loops_run_inline_and_workers_persist(kind):
    pool, calls, fn = _recording_pool(kind, 4, 100)
    try:
        pool.parallel_for(fn, 0, 0, 150)  # below two grains: no worker involved
        assert calls == [(0, 150, threading.get_ident())] and pool.started_workers == 0
        for _ in range(50):
            pool.parallel_for(fn, 0, 0, 10_000)
        assert pool.started_workers == 3
        assert len(calls) == 1 + 50 * 4
        # the caller and the same three workers every time; the native caller runs a chunk
        # whose worker has not claimed it yet (on a loaded machine, all of them: sleeping
        # workers wake slower than these chunks run), so its workers need not have run any;
        # test_chunks_run_at_the_same_time proves they do run chunks in parallel
        ran = {ident for _, _, ident in calls}
        if kind == "python":
            own = {threading.get_ident()} | {w.thread.ident for w in pool._workers}
            assert ran == own and len(own) == 4
        else:
            own = {threading.get_ident()} | {t.ident for t in pool._threads}
            assert ran <= own and len(own) == 4
    finally:
        pool.close()
    assert pool.started_workers == 0
    pool.parallel_for(fn, 0, 0, 10_000)  # a closed pool starts again on demand
    assert pool.started_workers == 3
    pool.close()


@pytest.mark.parametrize("kind", POOLS)
def test_empty_and_reversed_ranges_run_nothing(kind):
    pool, calls, fn = _recording_pool(kind, 2, 1)
    pool.parallel_for(fn, 0, 5, 5)
    pool.parallel_for(fn, 0, 9, 3)
    assert calls == []
    pool.close()


def test_a_launch_runs_the_chunks_of_workers_that_never_come():
    """A worker the scheduler does not run (here: one that was never started) does not hold up
    a launch: the caller claims its chunk and runs it. Before, the caller waited for every
    worker to check in (a time slice, 3-4 ms, when the optimiser held the other core; here,
    forever: so the launch runs on a thread given 20 s)."""
    pool, calls, fn = _recording_pool("native", 4, 1)
    pool._native.i32(rt.NUM_WORKERS).value = 3  # as if three workers were asleep
    launch = threading.Thread(
        target=pool._native.run, args=(pool._native.state, fn, 0, 0, 400, 4, 1), daemon=True
    )
    launch.start()
    launch.join(20)
    assert not launch.is_alive(), "the launch waited for workers that never ran"
    spans = sorted((lo, hi) for lo, hi, _ in calls)
    assert spans == [(0, 100), (100, 200), (200, 300), (300, 400)]
    assert {ident for _, _, ident in calls} == {launch.ident}
    assert pool._native.i32(rt.PENDING).value == 0


def test_a_busy_native_pool_runs_other_launches_inline():
    """While one thread's launch holds the pool, another thread's range runs on its own."""
    pool, calls, fn = _recording_pool("native", 2, 1)
    entered, release = threading.Event(), threading.Event()

    def slow(ctx: int, lo: int, hi: int) -> None:
        if lo == 0:
            entered.set()
            release.wait(10)

    slow_fn = RANGE_TASK(slow)
    holder = threading.Thread(target=pool.parallel_for, args=(slow_fn, 0, 0, 10))
    holder.start()
    assert entered.wait(10)
    pool.parallel_for(fn, 0, 100, 200)  # the pool is busy: one inline chunk on this thread
    release.set()
    holder.join()
    assert calls == [(100, 200, threading.get_ident())]
    pool.close()


def test_backend_compiles_with_one_shared_engine():
    cpu = CpuBackend(num_threads=2)
    body = """
    $0 = offloaded serial body {
      <i32> $1 = argload[0]
      $2 : return $1
    }
    """
    a = compile_text(cpu, body, params=[scalar("x", "i32")], ret_types=["i32"])
    b = compile_text(cpu, body, params=[scalar("x", "i32")], ret_types=["i32"])
    assert a.compiled.engine is b.compiled.engine
    assert a.launch([4], []) == (4,) and b.launch([5], []) == (5,)
    cpu.close()
