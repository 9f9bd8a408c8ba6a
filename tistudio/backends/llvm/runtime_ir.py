"""The native half of the thread pool, written as LLVM IR: worker loop and fork-join.

Python starts the worker threads, but each one spends its whole life inside
`tistudio_pool_worker` (called through ctypes, so it holds no GIL) and calls task functions
directly; a parallel launch is therefore a few atomic operations, not a round trip through the
interpreter. The protocol, on one shared state block (layout below):

* the caller sets `pending` to the number of chunks it hands out (all but chunk 0), writes one
  job per worker (chunk k + 1; `claim` 0, or 1 for a worker without a chunk), bumps
  `generation`, and runs chunk 0 itself;
* a worker woken by a new `generation` claims its job (an atomic exchange of `claim` with 1);
  if the claim was open it reads the job, runs it and decrements `pending`;
* the caller, done with chunk 0, claims every job still open and runs it itself (decrementing
  `pending` too), then returns when `pending` is 0: it waits only for chunks a worker started.
  A worker that the scheduler has not run yet (on 2 cores, while the background optimiser
  compiles) no longer holds up the launch for a time slice (3-4 ms of a first launch, seen in
  ~1 of 5 fresh processes of benchmarks/cases/compile_next.py).

A job is read only after its claim succeeded, and the caller opens a claim (release) only after
writing the job and `pending`, so a worker that wakes late, even during the next launch, either
finds its claim taken or runs that next launch's job whole.

Waiting spins for a while (`rdtsc` bounded), then sleeps on a Linux futex; sleepers are
counted so the common case (everyone spinning) makes no system call. `busy` lets one launch use
the pool at a time; a launch that finds it taken runs its range inline on its own thread.
"""

from __future__ import annotations

import platform
from collections.abc import Callable

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32, I64, PTR, VOID

# --- the state block: byte offsets (i32 fields unless noted) --------------------------------
GENERATION = 0  # its own cache line: workers spin on it
PENDING = 64  # its own cache line: the caller spins on it
BUSY = 128
SLEEPERS = 132
CALLER_SLEEPING = 136
SHUTDOWN = 140
NUM_WORKERS = 144
RUN_ADDRESS = 152  # i64: address of `tistudio_pool_run`, for kernel launchers
JOBS = 192  # one 64-byte line per worker: fn (ptr), ctx (ptr), lo (i32), hi (i32), ready (i32)
JOB_BYTES = 64
JOB_FN, JOB_CTX, JOB_LO, JOB_HI, JOB_READY, JOB_CLAIM = 0, 8, 16, 20, 24, 28
MAX_WORKERS = 255
STATE_BYTES = JOBS + JOB_BYTES * MAX_WORKERS

# Spinning is what makes back-to-back launches cheap, but on a machine with more runnable
# threads than cores a spinner steals the core of the thread it waits for; so waits `pause` only
# briefly, then `sched_yield`, and sleep on a futex when the budget is spent.
YIELD_AFTER_CYCLES = 4_000  # ~1.5 us
WORKER_SPIN_CYCLES = 150_000  # ~50 us at 3 GHz: workers stay awake across back-to-back launches
# The caller waits for its workers awake (yielding) for up to ~10 ms, then sleeps until the last
# worker wakes it. When it slept after ~50 us, the worker's wake-up often moved it onto the
# worker's CPU (Linux places a woken thread near its waker), and the next launches ran both
# threads on one core: the 2048x2048 stencil, 30 steps after a second's rest as the benchmark
# takes them, median of 6 runs' medians 1.66 and 1.89 ms against 1.47 and 1.26 (one thread:
# 3.0-3.4).
CALLER_SPIN_CYCLES = 30_000_000

_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129
_SYS_FUTEX = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}

RANGE_TASK_TYPE = ir.FunctionType(VOID, [PTR, I32, I32])
WORKER_TYPE = ir.FunctionType(VOID, [PTR, I32])
RUN_TYPE = ir.FunctionType(VOID, [PTR, PTR, PTR, I32, I32, I32, I32])


def native_pool_supported() -> bool:
    """The native pool needs Linux futexes; elsewhere the Python pool is used."""
    return platform.system() == "Linux" and platform.machine().lower() in _SYS_FUTEX


WORKER, RUN, TRY_LOCK, UNLOCK, STOP = (
    "tistudio_pool_worker",
    "tistudio_pool_run",
    "tistudio_pool_try_lock",
    "tistudio_pool_unlock",
    "tistudio_pool_stop",
)
RUNTIME_FUNCTIONS = (WORKER, RUN, TRY_LOCK, UNLOCK, STOP)


def build_runtime_module() -> ir.Module:
    """The module holding the functions named in `RUNTIME_FUNCTIONS`."""
    module = ir.Module(name="tistudio_runtime")
    _build_worker(_Builder(module, WORKER, WORKER_TYPE))
    _build_run(_Builder(module, RUN, RUN_TYPE))
    _build_control(module)
    return module


def _build_control(module: ir.Module) -> None:
    """Helpers for Python: take/release `busy` (to add or stop workers), and stop workers."""
    pb = _Builder(module, TRY_LOCK, ir.FunctionType(I32, [PTR]))
    zero, one = ir.Constant(I32, 0), ir.Constant(I32, 1)
    lock = pb.b.cmpxchg(pb.field(BUSY), zero, one, "acquire", "monotonic")
    pb.b.ret(pb.b.zext(pb.b.extract_value(lock, 1), I32))
    pb = _Builder(module, UNLOCK, ir.FunctionType(VOID, [PTR]))
    pb.store(BUSY, 0)
    pb.b.ret_void()
    pb = _Builder(module, STOP, ir.FunctionType(VOID, [PTR]))
    pb.store(SHUTDOWN, 1, "seq_cst")
    pb.rmw("add", GENERATION, 1)
    pb.futex(GENERATION, _FUTEX_WAKE_PRIVATE, ir.Constant(I32, 0x7FFFFFFF))
    pb.b.ret_void()


class _Builder:
    """An IRBuilder for one runtime function, with the atomics and futex calls it needs."""

    def __init__(self, module: ir.Module, name: str, fnty: ir.FunctionType) -> None:
        self.function = ir.Function(module, fnty, name)
        self.function.attributes.append("nounwind")
        self.b = ir.IRBuilder(self.function.append_basic_block("entry"))
        self.state = self.function.args[0]
        self.x86 = platform.machine().lower() in ("x86_64", "amd64")

    def block(self, name: str) -> ir.Block:
        return self.function.append_basic_block(name)

    def field(self, offset: int | ir.Value) -> ir.Value:
        if isinstance(offset, int):
            offset = ir.Constant(I64, offset)
        return self.b.gep(self.state, [offset], source_etype=ir.IntType(8))

    def load(self, offset: int, ordering: str = "acquire", typ: ir.Type = I32) -> ir.Value:
        return self.b.load_atomic(self.field(offset), ordering, typ.width // 8, typ=typ)

    def store(self, offset: int, value: int, ordering: str = "release") -> None:
        self.store_at(self.field(offset), ir.Constant(I32, value), ordering)

    def store_at(self, ptr: ir.Value, value: ir.Value, ordering: str) -> None:
        """An atomic i32 store."""
        self.b.store_atomic(value, ptr, ordering, 4)

    def rmw(self, op: str, offset: int, value: int) -> ir.Value:
        return self.b.atomic_rmw(op, self.field(offset), ir.Constant(I32, value), "seq_cst")

    def cycles(self) -> ir.Value:
        return self._call("llvm.readcyclecounter", I64, [])

    def pause(self) -> None:
        if self.x86:
            self._call("llvm.x86.sse2.pause", VOID, [])
        else:
            self.b.asm(ir.FunctionType(VOID, []), "yield", "", [], True)

    def futex(self, offset: int, op: int, value: ir.Value) -> None:
        """`syscall(SYS_futex, addr, op, value, NULL)`; every argument a full i64 register."""
        fnty = ir.FunctionType(I64, [I64], var_arg=True)
        module = self.b.module
        fn = module.globals.get("syscall") or ir.Function(module, fnty, "syscall")
        number = ir.Constant(I64, _SYS_FUTEX[platform.machine().lower()])
        address = self.b.ptrtoint(self.field(offset), I64)
        args = [number, address, ir.Constant(I64, op), self.b.zext(value, I64)]
        self.b.call(fn, [*args, ir.Constant(PTR, None)])

    def _call(self, name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        module = self.b.module
        fn = module.globals.get(name)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(ret, [a.type for a in args]), name)
        return self.b.call(fn, args)

    def for_each(self, name: str, limit: ir.Value, body: Callable[[ir.Value], None]) -> None:
        """Emit `for k in range(limit): body(k)`, `k` an i64; `body` may add blocks."""
        b = self.b
        before = b.block
        head, first, done = (self.block(f"{name}{x}") for x in ("", "_body", "_done"))
        b.branch(head)
        b.position_at_end(head)
        k = b.phi(I64, name=f"{name}_k")
        k.add_incoming(ir.Constant(I64, 0), before)
        b.cbranch(b.icmp_signed("<", k, limit), first, done)
        b.position_at_end(first)
        body(k)
        k.add_incoming(b.add(k, ir.Constant(I64, 1)), b.block)
        b.branch(head)
        b.position_at_end(done)

    def call_task(self, fn: ir.Value, ctx: ir.Value, lo: ir.Value, hi: ir.Value) -> None:
        self.b.call(ir.callee(fn, RANGE_TASK_TYPE), [ctx, lo, hi])

    def backoff(self, start: ir.Value, budget: int) -> ir.Value:
        """Wait a moment: `pause` for the first `YIELD_AFTER_CYCLES`, then `sched_yield`, so
        that on an oversubscribed machine the thread we wait for can run on this core. Returns
        whether the spin budget (cycles since `start`) is not yet spent."""
        b = self.b
        elapsed = b.sub(self.cycles(), start)
        pause, give_way, again = self.block("pause"), self.block("yield"), self.block("again")
        b.cbranch(
            b.icmp_unsigned("<", elapsed, ir.Constant(I64, YIELD_AFTER_CYCLES)), pause, give_way
        )
        b.position_at_end(pause)
        self.pause()
        b.branch(again)
        b.position_at_end(give_way)
        self._call("sched_yield", I32, [])
        b.branch(again)
        b.position_at_end(again)
        return b.icmp_unsigned("<", elapsed, ir.Constant(I64, budget))

    def wait_until_changed(self, offset: int, seen: ir.Value, spin: int, counter: int) -> ir.Value:
        """Spin (bounded by cycles) until the i32 at `offset` differs from `seen`, then sleep on
        the futex, announcing the sleep in the i32 at `counter`; return the new value."""
        b = self.b
        start = self.cycles()
        spin_bb, check, sleep, done = (self.block(n) for n in ("spin", "check", "sleep", "seen"))
        b.branch(spin_bb)
        b.position_at_end(spin_bb)
        value = self.load(offset)
        b.cbranch(b.icmp_unsigned("!=", value, seen), done, check)
        b.position_at_end(check)
        b.cbranch(self.backoff(start, spin), spin_bb, sleep)
        b.position_at_end(sleep)
        self.rmw("add", counter, 1)
        self.futex(offset, _FUTEX_WAIT_PRIVATE, seen)  # returns at once if it changed
        self.rmw("sub", counter, 1)
        b.branch(spin_bb)
        b.position_at_end(done)
        return value


def _job_field(pb: _Builder, worker: ir.Value, field: int) -> ir.Value:
    offset = pb.b.add(
        pb.b.mul(pb.b.zext(worker, I64), ir.Constant(I64, JOB_BYTES)),
        ir.Constant(I64, JOBS + field),
    )
    return pb.field(offset)


def _build_worker(pb: _Builder) -> None:
    """`void tistudio_pool_worker(state, k)`: serve generations until `shutdown` is set."""
    b, k = pb.b, pb.function.args[1]
    first = pb.load(GENERATION)
    pb.store_at(_job_field(pb, k, JOB_READY), ir.Constant(I32, 1), "release")
    entry = b.block
    head, work, run, wake, back, leave = (
        pb.block(n) for n in ("head", "work", "run", "wake", "back", "leave")
    )
    b.branch(head)
    b.position_at_end(head)
    seen = b.phi(I32, name="seen")
    seen.add_incoming(first, entry)
    generation = pb.wait_until_changed(GENERATION, seen, WORKER_SPIN_CYCLES, SLEEPERS)
    b.cbranch(b.icmp_unsigned("!=", pb.load(SHUTDOWN), ir.Constant(I32, 0)), leave, work)
    b.position_at_end(work)
    b.cbranch(_claim(pb, k), run, back)
    b.position_at_end(run)
    fn = b.load(_job_field(pb, k, JOB_FN), typ=PTR)
    ctx = b.load(_job_field(pb, k, JOB_CTX), typ=PTR)
    lo = b.load(_job_field(pb, k, JOB_LO), typ=I32)
    hi = b.load(_job_field(pb, k, JOB_HI), typ=I32)
    pb.call_task(fn, ctx, lo, hi)
    last = b.icmp_unsigned("==", pb.rmw("sub", PENDING, 1), ir.Constant(I32, 1))
    caller_asleep = b.icmp_unsigned("!=", pb.load(CALLER_SLEEPING, "seq_cst"), ir.Constant(I32, 0))
    b.cbranch(b.and_(last, caller_asleep), wake, back)
    b.position_at_end(wake)
    pb.futex(PENDING, _FUTEX_WAKE_PRIVATE, ir.Constant(I32, 1))
    b.branch(back)
    b.position_at_end(back)
    seen.add_incoming(generation, back)
    b.branch(head)
    b.position_at_end(leave)
    b.ret_void()


def _claim(pb: _Builder, worker: ir.Value) -> ir.Value:
    """Take job `worker` (exchange its `claim` with 1): true if it was open."""
    ptr = _job_field(pb, worker, JOB_CLAIM)
    old = pb.b.atomic_rmw("xchg", ptr, ir.Constant(I32, 1), "seq_cst")
    return pb.b.icmp_unsigned("==", old, ir.Constant(I32, 0))


def _build_run(pb: _Builder) -> None:
    """`void tistudio_pool_run(state, fn, ctx, begin, end, threads, grain)`: fork-join over
    chunks of at least `grain` iterations (each kernel's launcher passes its task's grain)."""
    b = pb.b
    _, fn, ctx, begin, end, threads, grain = pb.function.args
    n = b.sub(b.sext(end, I64), b.sext(begin, I64))
    chunks = _min(b, b.sdiv(n, b.zext(grain, I64)), b.sext(threads, I64))
    blocks = ("empty", "some", "inline", "lock", "locked", "fork")
    empty, some, inline, try_lock, locked, fork = (pb.block(x) for x in blocks)
    one = ir.Constant(I64, 1)
    b.cbranch(b.icmp_signed("<", n, one), empty, some)
    b.position_at_end(empty)
    b.ret_void()
    b.position_at_end(some)
    b.cbranch(b.icmp_signed("<=", chunks, one), inline, try_lock)
    b.position_at_end(inline)
    pb.call_task(fn, ctx, begin, end)
    b.ret_void()
    b.position_at_end(try_lock)
    zero, taken = ir.Constant(I32, 0), ir.Constant(I32, 1)
    lock = b.cmpxchg(pb.field(BUSY), zero, taken, "acquire", "monotonic")
    b.cbranch(b.extract_value(lock, 1), locked, inline)
    b.position_at_end(locked)  # the worker count only changes under the lock
    workers = b.zext(pb.load(NUM_WORKERS, "monotonic"), I64)
    chunks = _min(b, chunks, b.add(workers, one))
    unlock_inline = pb.block("unlock_inline")
    b.cbranch(b.icmp_signed("<=", chunks, one), unlock_inline, fork)
    b.position_at_end(unlock_inline)
    pb.store(BUSY, 0)
    b.branch(inline)
    b.position_at_end(fork)
    bound = _chunk_bound(b, begin, n, chunks)
    pb.store_at(pb.field(PENDING), b.trunc(b.sub(chunks, one), I32), "seq_cst")
    _write_jobs(pb, workers, chunks, fn, ctx, bound)  # opens the claims: after `pending`
    pb.rmw("add", GENERATION, 1)
    _wake_sleepers(pb)
    pb.call_task(fn, ctx, begin, bound(one))
    _run_unclaimed(pb, chunks, fn, ctx, bound)
    _wait_for_workers(pb)
    pb.store(BUSY, 0)
    b.ret_void()


def _min(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _chunk_bound(b: ir.IRBuilder, begin: ir.Value, n: ir.Value, chunks: ir.Value):
    """`c -> begin + c * n / chunks`: balanced chunks, none empty when n >= chunks."""

    def bound(c: ir.Value) -> ir.Value:
        return b.trunc(b.add(b.sext(begin, I64), b.sdiv(b.mul(c, n), chunks)), I32)

    return bound


def _write_jobs(pb: _Builder, workers, chunks, fn, ctx, bound) -> None:
    """Job of worker k: chunk k + 1 with an open claim if there is one, else a closed claim."""
    b = pb.b

    def write(k: ir.Value) -> None:
        chunk = b.add(k, ir.Constant(I64, 1))
        has_chunk = b.icmp_signed("<", chunk, chunks)
        k32 = b.trunc(k, I32)
        b.store(b.select(has_chunk, fn, ir.Constant(PTR, None)), _job_field(pb, k32, JOB_FN))
        b.store(ctx, _job_field(pb, k32, JOB_CTX))
        b.store(bound(chunk), _job_field(pb, k32, JOB_LO))
        b.store(bound(b.add(chunk, ir.Constant(I64, 1))), _job_field(pb, k32, JOB_HI))
        closed = b.zext(b.not_(has_chunk), I32)  # 1: nothing to claim
        pb.store_at(_job_field(pb, k32, JOB_CLAIM), closed, "release")

    pb.for_each("job", workers, write)


def _run_unclaimed(pb: _Builder, chunks, fn, ctx, bound) -> None:
    """The caller runs every chunk whose worker has not claimed it yet."""
    b = pb.b

    def steal_if_open(k: ir.Value) -> None:
        steal, next_ = pb.block("steal"), pb.block("steal_next")
        b.cbranch(_claim(pb, b.trunc(k, I32)), steal, next_)
        b.position_at_end(steal)
        chunk = b.add(k, ir.Constant(I64, 1))
        pb.call_task(fn, ctx, bound(chunk), bound(b.add(chunk, ir.Constant(I64, 1))))
        pb.rmw("sub", PENDING, 1)
        b.branch(next_)
        b.position_at_end(next_)

    pb.for_each("stolen", b.sub(chunks, ir.Constant(I64, 1)), steal_if_open)


def _wake_sleepers(pb: _Builder) -> None:
    b = pb.b
    wake, go = pb.block("wake_workers"), pb.block("go")
    asleep = pb.load(SLEEPERS, "seq_cst")
    b.cbranch(b.icmp_unsigned("!=", asleep, ir.Constant(I32, 0)), wake, go)
    b.position_at_end(wake)
    pb.futex(GENERATION, _FUTEX_WAKE_PRIVATE, ir.Constant(I32, 0x7FFFFFFF))
    b.branch(go)
    b.position_at_end(go)


def _wait_for_workers(pb: _Builder) -> None:
    """Spin until `pending` is 0, then sleep on it with `caller_sleeping` set."""
    b = pb.b
    start = pb.cycles()
    spin, check, sleep, nap, done = (
        pb.block(n) for n in ("wait", "wait_check", "sleep", "nap", "joined")
    )
    b.branch(spin)
    b.position_at_end(spin)
    zero = ir.Constant(I32, 0)
    b.cbranch(b.icmp_unsigned("==", pb.load(PENDING), zero), done, check)
    b.position_at_end(check)
    b.cbranch(pb.backoff(start, CALLER_SPIN_CYCLES), spin, sleep)
    b.position_at_end(sleep)
    pb.store(CALLER_SLEEPING, 1, "seq_cst")
    pending = pb.load(PENDING, "seq_cst")
    b.cbranch(b.icmp_unsigned("==", pending, zero), done, nap)
    b.position_at_end(nap)
    pb.futex(PENDING, _FUTEX_WAIT_PRIVATE, pending)
    b.branch(sleep)
    b.position_at_end(done)
    pb.store(CALLER_SLEEPING, 0, "seq_cst")
