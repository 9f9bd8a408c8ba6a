"""`Program`: one `ti.init()`'s worth of state — config, field memory, the back end.

Fields live in SNode trees. Fields declared before the first kernel launch (or the first access
from Python) share one tree; materialising a tree lays it out and allocates one zeroed NumPy
buffer for it, which never moves, so kernels receive its address once per launch from a list and
`to_numpy()` of a dense field is a copy of a strided view. Later fields go into a new tree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from tistudio.backends.protocol import Backend
from tistudio.events import bus
from tistudio.ir import sparse
from tistudio.ir.config import CompileConfig
from tistudio.ir.snode import SNode, finalize_layout
from tistudio.ir.stmt import Kernel
from tistudio.ir.writes import written_snodes
from tistudio.passes.context import PassContext
from tistudio.passes.deferred import DeferredRecords, PassMark
from tistudio.runtime import offline_cache, warm_up
from tistudio.runtime.compile_result import CompileResult
from tistudio.runtime.gpu_memory import GpuMemory
from tistudio.runtime.offline_cache import OfflineCache, RuntimeSlot

if TYPE_CHECKING:
    from tistudio.backends.webgpu.device import GpuDevice

_ALIGN = 64


@dataclass
class SNodeTree:
    """A materialised SNode tree: its root and the buffer holding all its fields."""

    id: int
    root: SNode
    buffer: np.ndarray
    address: int


class Program:
    """The state behind the `ti.*` API between `ti.init()` and `ti.reset()`."""

    def __init__(self, config: CompileConfig) -> None:
        self.config = config
        self.trees: list[SNodeTree] = []
        self.pointer_trees: list[SNodeTree] = []  # trees with pointer pools (ir/sparse.py)
        self.root_addresses: list[int] = []
        self._next_snode_id = 0
        # the root of the fields declared since the last materialisation (None: none, or no
        # tree begun since; a kernel call materialises first when it is not None)
        self.pending: SNode | None = None
        self.discarded_roots: set[int] = set()  # ids of roots whose memory was not allocated
        self.kernel_counter = 0
        self.num_compiled = 0  # kernel instances compiled (or loaded from the disk cache)
        self._backend: Backend | None = None
        self.offline_cache: OfflineCache | None = None  # set by ti.init
        self.gpu: GpuMemory | None = None  # the GPU's copy of the trees, on the GPU
        self.ad_scope: Any = None  # an open `ti.ad.Tape` or `ti.ad.FwdMode` (tistudio.ad)
        # every placed field by its SNode's id (`lang.field.Field`; `ti.ad` finds `.grad`s here)
        self.fields_by_snode: dict[int, Any] = {}
        self.write_log: Any = None  # which launch last wrote each field (lang/nan_explain.py)

    def use_gpu(self, device: GpuDevice, memory_gb: float | None = None) -> None:
        """Run this program's kernels on `device` (`memory_gb`: `ti.init(device_memory_GB)`,
        the most bytes a tree with pointer pools takes there)."""
        # imported for the GPU only: the WebGPU back end's modules cost ~9 ms to import
        from tistudio.backends.webgpu.backend import WebGpuBackend

        self.gpu = GpuMemory(device, self.trees, memory_gb)
        self._backend = WebGpuBackend(device, self.gpu)

    # --- SNodes and memory -----------------------------------------------------------------

    def new_snode_id(self) -> int:
        self._next_snode_id += 1
        return self._next_snode_id - 1

    @property
    def pending_root(self) -> SNode:
        """The root that new fields are placed under (a new tree after each materialise)."""
        if self.pending is None:
            self.pending = SNode(self.new_snode_id(), "root", tree_id=len(self.trees))
        return self.pending

    @property
    def has_pending_fields(self) -> bool:
        return self.pending is not None and bool(self.pending.children)

    def materialize(self) -> None:
        """Allocate memory for the fields declared since the last materialisation."""
        if not self.has_pending_fields:
            return
        root = self.pending
        assert root is not None
        try:  # on the GPU, pointer pools share what one storage binding holds
            size = max(finalize_layout(root, self.gpu.tree_budget() if self.gpu else None), 1)
        except MemoryError:
            self.pending = None
            self.discarded_roots.add(root.id)
            raise
        try:
            raw = np.zeros(size + _ALIGN, dtype=np.uint8)
        except (MemoryError, ValueError):  # (ValueError: beyond NumPy's largest array)
            # later fields go to a new tree, instead of failing the same way
            self.pending = None
            self.discarded_roots.add(root.id)
            raise MemoryError(_allocation_failure(root, size)) from None
        start = (-raw.ctypes.data) % _ALIGN
        buffer = raw[start : start + size]
        tree = SNodeTree(root.tree_id, root, buffer, buffer.ctypes.data)
        self.trees.append(tree)
        if sparse.pointers(root):
            self.pointer_trees.append(tree)
        self.root_addresses.append(tree.address)
        self.pending = None

    def collect_sparse(self) -> str:
        """After a launch: recycle deactivated pointer cells; the error if a pool ran out."""
        for tree in self.pointer_trees:
            if self.gpu is not None:  # on the device's copy (gpu_memory.py)
                exhausted = self.gpu.collect_sparse(tree.id)
            else:
                exhausted = sparse.collect(tree.buffer, tree.root)
            if exhausted:
                return sparse.exhausted_message(exhausted[0])
        return ""

    def tree_of(self, snode: SNode) -> SNodeTree:
        if snode.tree_id >= len(self.trees):
            self.materialize()
        return self.trees[snode.tree_id]

    def before_host_read(self, snode: SNode, view: Any = None, key: tuple | None = None) -> None:
        """Python scope is about to read (or partly write) `view` (a NumPy view into `snode`'s
        tree; element `key` of it if given): on the GPU, copy those bytes back from the device
        once the kernels writing them have run."""
        if self.gpu is not None:
            tree = self.tree_of(snode)
            self.gpu.before_host_access(tree.id, _span(tree, view, key))

    def after_host_write(self, snode: SNode, view: Any = None, key: tuple | None = None) -> None:
        """Python scope wrote `view` (element `key`) of `snode`'s tree: on the GPU, pass the
        bytes on to the device."""
        if self.gpu is not None:
            tree = self.tree_of(snode)
            self.gpu.after_host_write(tree.id, _span(tree, view, key))

    # --- compiling -------------------------------------------------------------------------

    @property
    def backend(self) -> Backend:
        """The process-wide CPU back end: one JIT engine and one thread pool, started once and
        shared by every kernel of every `ti.init()` (each kernel splits its loops over
        `cpu_max_num_threads` of the pool's workers)."""
        if self._backend is None:
            warm_up.wait()  # never start the back end on two threads at once
            # imported here: ~60 ms that `warm_up` spends on its own thread during `ti.init`
            from tistudio.backends.llvm.backend import default_backend

            cpu = default_backend()
            if self.offline_cache is not None:  # the thread pool's runtime is cached too
                cpu.runtime_cache = RuntimeSlot(self.offline_cache, cpu)
            self._backend = cpu
        return self._backend

    def config_for(self, debug: bool | None) -> CompileConfig:
        """The config of a kernel with its own debug setting (`%%ti_kernel` gives its kernels
        debug checks without restarting the program); None: the program's."""
        if debug is None or debug == self.config.debug:
            return self.config
        return replace(self.config, debug=debug)

    def compile(
        self,
        kernel: Kernel,
        record: bool = False,
        echo: Callable[[str], None] | None = None,
        source: str = "",
        debug: bool | None = None,
        rebuild: Callable[[], Kernel] | None = None,
    ) -> CompileResult:
        """Run the pass pipeline on the frontend IR `kernel`, then the back end; or, when the
        offline cache has this kernel (`source` is its Python text, part of the key), load it.
        `debug`, if not None, is this kernel's own debug setting (see `config_for`). A compile
        that records nothing still gets records, printed on first read from the frontend IR that
        `rebuild` makes again (`passes/deferred.py`); while the studio watches ("compiled" has
        listeners), each pass's name, time and count are noted as it runs."""
        # imported here: ~100 ms that `warm_up` spends on its own thread during `ti.init`
        from tistudio.passes.pipeline import compile_to_final_ir

        self.num_compiled += 1
        config = self.config_for(debug)
        bypass = record or echo is not None or config.debug
        found = offline_cache.lookup(self, kernel, source, bypass=bypass)
        defer = rebuild is not None and not record
        if found.result is not None:
            found.result.backend_ms = found.ms
            if defer and not found.result.records:
                found.result.records = DeferredRecords(rebuild, config)  # type: ignore[arg-type]
            return found.result
        ctx = PassContext(config)
        start = time.perf_counter()
        stages: dict[str, float] = {}
        marks: list[PassMark] | None = [] if defer and bus.wants("compiled") else None
        records = compile_to_final_ir(
            kernel, ctx, record=record, echo=echo, timings=stages, marks=marks
        )
        if defer and not records:
            records = DeferredRecords(rebuild, config, marks)  # type: ignore[arg-type]
        mid = time.perf_counter()
        executable = self.backend.compile(kernel, config, cache_key=found.key)
        end = time.perf_counter()
        stages.update(getattr(executable, "stage_ms", None) or {})
        result = CompileResult(
            executable,
            records,
            ctx.warnings,
            kernel,
            passes_ms=(mid - start) * 1e3,
            backend_ms=(end - mid) * 1e3,
            written_snodes=written_snodes(kernel),
            cache="off" if found.key is None else "miss",
            stage_ms=stages,
        )
        found.save(result)
        return result

    def wait_for_optimised(self) -> None:
        """Return once every CPU kernel compiled so far runs its optimised tier (kernels start
        on quick code while a background thread optimises them, `backends/llvm/tiering.py`):
        for timing kernels in their steady state, without that thread's work on a core."""
        if self._backend is not None:
            self._backend.wait_for_optimised()

    def close(self) -> None:
        """Forget this program's fields and kernels; the shared back end stays up."""
        if self.gpu is not None:
            self.gpu.close()
        self.trees.clear()
        self.pointer_trees.clear()
        self.root_addresses.clear()


def _span(tree: SNodeTree, view: Any, key: tuple | None) -> tuple[int, int] | None:
    """Byte range [lo, hi) of `view` (or of its element `key`) inside the tree's buffer."""
    if not isinstance(view, np.ndarray):  # no view, or a gathered (nested-layout) one: all
        return None
    start = view.__array_interface__["data"][0] - tree.address
    if key is not None:
        lo = start + sum(k * stride for k, stride in zip(key, view.strides))
        return lo, lo + view.itemsize
    extent = sum((n - 1) * stride for n, stride in zip(view.shape, view.strides))
    return start, start + extent + view.itemsize


def _allocation_failure(root: SNode, size: int) -> str:
    places = [node for node in _descendants(root) if node.type == "place"]
    shown = ", ".join(f"{node.dtype}{list(node.shape)}" for node in places[:4])
    more = f" and {len(places) - 4} more" if len(places) > 4 else ""
    return (
        f"cannot allocate {size / 2**30:,.1f} GiB for the fields declared since memory was last "
        f"allocated ({shown}{more}); those fields are discarded: declare them again, smaller"
    )


def _descendants(node: SNode) -> list[SNode]:
    out = []
    for child in node.children:
        out += [child, *_descendants(child)]
    return out
