"""A compiled kernel and its launcher: fill the argument buffer, run the tasks, read returns.

Launch overhead matters (a cached tiny kernel costs ~1 us here), so everything that can be
decided at compile time is: each parameter gets a store into its slot of the argument buffer,
each return value a getter, the tasks one runner (with the native pool, a single ctypes call
of the kernel's native launcher), and the Python that does one launch is written out for the
kernel's parameters (`launch_code.py`). The native launcher lets the GIL go for the kernel's
run, except for a short kernel (`KernelSpec.short`) that the pool never splits: its whole run
costs less than letting the GIL go and taking it back.
ndarray data addresses are cached per parameter and reused while the same live array object
(same shape) comes back, because `arr.ctypes.data` alone costs ~0.7 us. Reusing them is safe:
NumPy moves a live array's data only in `resize`, which it refuses for an array with weak
references (ours); assigning `arr.shape` changes the extents in place, hence the shape check."""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from tistudio.backends.llvm.context import (
    GTMP_SLOT,
    POOL_SLOT,
    SLOT_BYTES,
    ParamSlots,
)
from tistudio.backends.llvm.debug_checks import checked, gtmp_bytes
from tistudio.backends.llvm.jit import CompiledModule
from tistudio.backends.llvm.launch_code import ArgumentStore, LaunchFunction, launch_function
from tistudio.backends.llvm.native_pool import NativeThreadPool
from tistudio.backends.llvm.spec import KernelSpec, TaskSpec
from tistudio.backends.llvm.thread_pool import ThreadPool
from tistudio.backends.llvm.tiering import OptimisedCode
from tistudio.backends.print_buffer import PrintBuffer
from tistudio.backends.random_keys import LaunchKeys
from tistudio.ir.config import CompileConfig
from tistudio.ir.ops import TaskType
from tistudio.ir.stmt import Param
from tistudio.ir.types import I32_MAX, PrimitiveType
from tistudio.ir.writes import read_only_message

SERIAL_TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# The same, called without letting Python's GIL go: for the launchers of short kernels
# (`KernelSpec.short`) that the pool never splits, whose whole run costs less than releasing
# and taking back the GIL.
SERIAL_TASK_HOLDING_GIL = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
RANGE_TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32)

_CTYPES: dict[str, Any] = {
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "u1": ctypes.c_bool,
    "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


class CpuExecutable:
    """One compiled kernel: call `launch(args, roots)` to run it.

    `llvm_ir` is the module as emitted, `llvm_ir_optimized` after O3, `assembly` the machine code
    (computed on first access). Launches from several Python threads are serialised by a lock,
    because they share one argument buffer. With tiered compilation (`tiering.py`) the kernel
    starts on `compiled`, the quick tier, and `upgrade` moves it to the optimised code when the
    optimiser has made it (`optimised`); what shows optimised code waits for it.
    """

    def __init__(
        self,
        spec: KernelSpec,
        config: CompileConfig,
        compiled: CompiledModule,
        pool: ThreadPool | NativeThreadPool,
        prints: PrintBuffer | None = None,
        optimised: OptimisedCode | None = None,
    ) -> None:
        self.name = spec.name
        self.spec = spec
        self.layout = layout = spec.layout
        self._first = compiled
        self.optimised = optimised
        self.llvm_ir = compiled.llvm_ir
        self._buffer = (ctypes.c_int64 * layout.num_slots)()
        gtmp_size = gtmp_bytes(spec.gtmp_size, spec.checks)  # + debug checks' failure record
        self._gtmp = (ctypes.c_int64 * max(1, -(-gtmp_size // 8)))()
        self._buffer[GTMP_SLOT] = ctypes.addressof(self._gtmp)
        self.ctx = ctypes.addressof(self._buffer)
        self._lock = threading.Lock()
        self._num_params = len(spec.params)
        writes = dict(spec.written_arrays)
        self._stores = [
            self._param_store(p, s, writes.get(k))
            for k, (p, s) in enumerate(zip(spec.params, layout.params))
        ]
        self._roots = list(layout.root_slots.items())
        self._getters = [
            _slot_accessor(self._buffer, layout.return_slot(k), t)[1]
            for k, t in enumerate(spec.ret_types)
        ]
        self._pool = pool
        self._threads = config.cpu_max_num_threads
        self._workers_needed = self._threads - 1 if _may_split(spec.tasks) else 0
        if spec.print_formats:  # written out after each launch, see backends/print_buffer.py
            if prints is None:
                raise ValueError(f"kernel {self.name!r} prints but has no print buffer")
            self._buffer[layout.print_slot] = prints.address
        self._prints = prints
        self._keys = None  # `ti.random`'s launch keys, for a kernel that draws
        if layout.random_slot >= 0:
            self._keys = LaunchKeys(config.random_seed, spec.name)
        self._state = _LaunchState(self._make_run(compiled.addresses), self._buffer, self._roots)
        self._launchers: dict[tuple[int, ...], LaunchFunction] = {}  # by positions
        self._launch: LaunchFunction | None = None  # `launch`'s, made on its first call
        if optimised is not None:
            optimised.then(self.upgrade)

    @property
    def compiled(self) -> CompiledModule:
        """The kernel's final code: the optimised tier (waited for) where there is one."""
        return self.optimised.wait() if self.optimised is not None else self._first

    @property
    def llvm_ir_optimized(self) -> str:
        return self.compiled.llvm_ir_optimized

    @property
    def stage_ms(self) -> dict[str, float]:
        """Time per LLVM stage of the code the first launch runs (without waiting)."""
        return self._first.stage_ms

    @property
    def assembly(self) -> str:
        return self.compiled.assembly

    def upgrade(self, compiled: CompiledModule) -> None:
        """Launch `compiled` (the optimised tier) from now on. A launch running now finishes on
        the code it started with, which stays loaded."""
        self._state.run = self._make_run(compiled.addresses)

    def _make_run(self, addresses: list[int]) -> Callable[[], None]:
        spec = self.spec
        run = self._prepare_run(spec, addresses, self._threads)
        if spec.print_formats:
            assert self._prints is not None
            run = self._prints.wrap(run, spec.print_formats)
        if self._keys is not None:
            run = partial(_with_random_key, run, self._keys, self._random_cell())
        return checked(run, self._gtmp, spec)  # debug checks, see debug_checks.py

    def _random_cell(self) -> ctypes.c_uint32:
        return ctypes.c_uint32.from_buffer(self._buffer, self.layout.random_slot * SLOT_BYTES)

    def launch(self, args: Sequence[Any], roots: Sequence[int]) -> tuple:
        """Run the kernel with one argument per parameter and the base address of each SNode
        tree; return the kernel's return values as Python scalars."""
        if len(args) != self._num_params:
            raise TypeError(f"kernel {self.name!r} takes {self._num_params} arguments")
        launch = self._launch
        if launch is None:
            launch = self._launch = self.launcher(range(self._num_params))
        return launch(args, roots)

    def launcher(self, positions: Sequence[int]) -> LaunchFunction:
        """`launch` for calls whose `k`-th runtime argument is `args[positions[k]]` (a kernel's
        Python call, fields left out), without the argument count check."""
        positions = tuple(positions)
        if len(positions) != self._num_params:
            raise TypeError(f"kernel {self.name!r} takes {self._num_params} arguments")
        launch = self._launchers.get(positions)
        if launch is None:
            launch = self._launchers[positions] = launch_function(
                self.name,
                positions,
                self._stores,
                self._getters,
                self._state,
                self._lock,
                bool(self._roots),
            )
        return launch

    # --- compile-time preparation -------------------------------------------------------------

    def _param_store(self, param: Param, slots: ParamSlots, written: str | None) -> ArgumentStore:
        """How `param` reaches the buffer; `written` says where the kernel writes it (an
        ndarray: "" where unknown), None where it never does."""
        if param.kind == "ndarray":
            store = _ArrayStore(self._buffer, param, slots, written)
            return ArgumentStore(store, reuse=store)
        if param.kind != "scalar" or not isinstance(param.dtype, PrimitiveType):
            raise TypeError(f"parameter {param.name!r}: unsupported kind {param.kind!r}")
        store = _scalar_setter(self._buffer, param, slots.slot)
        if param.dtype.name == "f16":  # stored through a NumPy view, not a ctypes cell
            return ArgumentStore(store)
        offset = slots.slot * SLOT_BYTES
        return ArgumentStore(store, _CTYPES[param.dtype.name].from_buffer(self._buffer, offset))

    def _prepare_run(
        self, spec: KernelSpec, addresses: list[int], threads: int
    ) -> Callable[[], None]:
        """What `launch` calls to run every task: with the native pool, one call of the
        kernel's native launcher (after starting workers if it may need them)."""
        pool = self._pool
        tasks = spec.tasks
        if isinstance(pool, NativeThreadPool):
            if not spec.has_launcher:
                raise ValueError(f"kernel {self.name!r} was compiled without a native launcher")
            self._buffer[POOL_SLOT] = pool.state_address
            holds_gil = spec.short and not self._workers_needed
            native_type = SERIAL_TASK_HOLDING_GIL if holds_gil else SERIAL_TASK
            native = partial(native_type(addresses[len(tasks)]), self.ctx)
            if not self._workers_needed:
                return native
            return partial(_start_workers, self._pool, self._workers_needed, native)
        runners = [self._runner(t, a, pool, threads) for t, a in zip(tasks, addresses)]
        return partial(_run_all, runners)

    def _runner(
        self, task: TaskSpec, address: int, pool: ThreadPool, threads: int
    ) -> Callable[[], None]:
        if task.task_type is not TaskType.range_for:
            return partial(SERIAL_TASK(address), self.ctx)
        fn = RANGE_TASK(address)
        grain = task.grain
        if task.const_begin and task.const_end:
            return partial(pool.parallel_for, fn, self.ctx, task.begin, task.end, threads, grain)
        begin = self._bound(task.const_begin, task.begin)
        end = self._bound(task.const_end, task.end)
        ctx = self.ctx

        def run_dynamic() -> None:  # bounds written by an earlier task of this launch
            pool.parallel_for(fn, ctx, begin(), end(), threads, grain)

        return run_dynamic

    def _bound(self, const: bool, value: int) -> Callable[[], int]:
        if const:
            return partial(int, value)
        if value % 4 or value + 4 > ctypes.sizeof(self._gtmp):
            raise ValueError(f"range bound at gtmp offset {value} is outside the buffer")
        cell = ctypes.c_int32.from_buffer(self._gtmp, value)
        return partial(getattr, cell, "value")


class _LaunchState:
    """What a launch reads that changes: the code to run (`run`: the optimised tier replaces
    the quick one) and the SNode tree addresses last written. Kept apart from the executable so
    that its launch functions (`launch_code`) do not refer back to it."""

    __slots__ = ("run", "roots_written", "_buffer", "_roots")

    def __init__(
        self, run: Callable[[], None], buffer: ctypes.Array, roots: list[tuple[int, int]]
    ) -> None:
        self.run = run
        self.roots_written: Sequence[int] | None = None
        self._buffer, self._roots = buffer, roots

    def write_roots(self, roots: Sequence[int]) -> None:
        buffer = self._buffer
        for tree, slot in self._roots:
            buffer[slot] = roots[tree]
        # the list grows as later trees materialise, but entries never change: once every tree
        # of this kernel is in it, the same list needs no rewriting
        self.roots_written = roots


def _with_random_key(run: Callable[[], None], keys: LaunchKeys, cell: ctypes.c_uint32) -> None:
    """Give this launch its `ti.random` key (`backends/random_keys.py`), then run it."""
    cell.value = keys.next()
    run()


def _start_workers(pool: NativeThreadPool, needed: int, run: Callable[[], None]) -> None:
    if pool.started_workers < needed:
        pool.ensure_workers(needed)
    run()


def _run_all(runners: list[Callable[[], None]]) -> None:
    for run in runners:
        run()


def _may_split(tasks: Sequence[TaskSpec]) -> bool:
    """Whether some range_for task can be long enough for the pool to split it."""
    for task in tasks:
        if task.task_type is not TaskType.range_for:
            continue
        long = task.end - task.begin >= 2 * task.grain
        if not (task.const_begin and task.const_end) or long:
            return True
    return False


def _slot_accessor(
    buffer: ctypes.Array, slot: int, dtype: PrimitiveType
) -> tuple[Callable[[Any], None], Callable[[], Any]]:
    """(set, get) of a scalar of `dtype` in the low bytes of `slot`."""
    offset = slot * SLOT_BYTES
    if dtype.name == "f16":
        view = np.frombuffer(buffer, np.float16, count=1, offset=offset)
        return partial(view.__setitem__, 0), lambda: float(view[0])
    cell = _CTYPES[dtype.name].from_buffer(buffer, offset)
    return partial(setattr, cell, "value"), partial(getattr, cell, "value")


def _scalar_setter(buffer: ctypes.Array, param: Param, slot: int) -> Callable[[Any], None]:
    """Store a Python scalar with the param's dtype; integers wrap around as in Taichi. A value
    of another kind is refused with the parameter's name."""
    set_value, _ = _slot_accessor(buffer, slot, param.dtype)
    kind = "an integer" if param.dtype.is_integral and param.dtype.kind != "bool" else "a number"

    def set_named(value: Any) -> None:
        try:
            set_value(value)
        except TypeError:
            raise TypeError(
                f"argument {param.name!r} must be {kind} for {param.dtype}, "
                f"not {type(value).__name__}"
            ) from None

    return set_named


class _ArrayStore:
    """Writes an ndarray's data address and extents into its slots, and remembers the array
    (weakly) and its shape: while the same array comes back with the same shape, nothing needs
    writing, which the launch code checks itself (`launch_code.ArgumentStore.reuse`). A
    read-only array is refused where the kernel writes the parameter (`written`)."""

    __slots__ = ("_buffer", "_param", "_dtype", "_slots", "_written", "last", "shape")

    def __init__(
        self, buffer: ctypes.Array, param: Param, slots: ParamSlots, written: str | None
    ) -> None:
        self._buffer, self._param, self._slots = buffer, param, slots
        self._written = written  # where the kernel writes the array: see `_param_store`
        self._dtype = np.dtype(param.dtype.numpy_name)
        self.last: Callable[[], Any] = _no_array  # a weak reference to the last array
        self.shape: tuple[int, ...] | None = None

    def __call__(self, arr: Any) -> None:
        if self.last() is arr and arr.shape == self.shape:
            return
        _check_array(self._param, self._dtype, arr)
        if self._written is not None and not arr.flags.writeable:
            raise ValueError(read_only_message(self._param.name, self._written))
        buffer, slots = self._buffer, self._slots
        buffer[slots.slot] = arr.ctypes.data
        for shape_slot, extent in zip(slots.shape_slots, arr.shape):
            buffer[shape_slot] = extent
        self.last, self.shape = weakref.ref(arr), arr.shape


def _no_array() -> None:
    return None


def _check_array(param: Param, dtype: np.dtype, arr: Any) -> None:
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"argument {param.name!r} must be a numpy array, not {type(arr).__name__}")
    if arr.dtype != dtype or arr.ndim != param.ndim:
        raise TypeError(
            f"argument {param.name!r} must be a {param.ndim}-d {dtype} array, "
            f"got {arr.ndim}-d {arr.dtype}"
        )
    if any(extent > I32_MAX for extent in arr.shape):  # the kernel reads extents as i32
        raise ValueError(
            f"argument {param.name!r} has shape {arr.shape}: an ndarray axis holds at most "
            f"{I32_MAX:,} elements (kernels index it with 32-bit integers)"
        )
    if not (arr.flags.c_contiguous and arr.flags.aligned):
        what = "an unaligned" if arr.flags.c_contiguous else "a non-contiguous"
        raise ValueError(
            f"argument {param.name!r} must be C-contiguous and aligned, got {what} array: "
            "pass np.ascontiguousarray(...)"
        )
