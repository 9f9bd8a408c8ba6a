"""`GpuMemory`: the device copies of a program's SNode trees, and which side is newer.

On the GPU the device buffer of a tree is the truth while kernels run; the host buffer (the
NumPy array `Field._view()` looks into) is a cache of it. Two sets say which copy is newer:
a launch that writes a tree marks the device newer, and the next host access to that tree
(`to_numpy`, `x[i]`, `fill`, `from_numpy`) waits for the device and reads the whole tree back
first; a host write marks the host newer, and the next launch that uses the tree uploads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tistudio.ir import sparse

MAX_TREE_BYTES = 1 << 32  # pointers in WGSL are u32 byte offsets
MAX_POOL_TREE_BYTES = 1 << 30  # a tree with pointer pools: one binding, at most 1 GiB


class GpuMemory:
    """Device buffers of the trees in `trees` (the `Program`'s list, shared, not copied)."""

    def __init__(self, device: Any, trees: list[Any], memory_gb: float | None = None) -> None:
        self.device, self.trees = device, trees
        self.memory_bytes = int(memory_gb * 2**30) if memory_gb else MAX_POOL_TREE_BYTES
        self.buffers: dict[int, Any] = {}
        self.host_newer: set[int] = set()
        self.device_newer: set[int] = set()

    def buffer(self, tree_id: int) -> Any:
        buffer = self.buffers.get(tree_id)
        if buffer is None:
            size = self.trees[tree_id].buffer.nbytes
            if size > MAX_TREE_BYTES:
                raise MemoryError(f"SNode tree {tree_id} has {size} bytes; the GPU takes 4 GiB")
            buffer = self.device.create_buffer(size)  # zeroed, like the host buffer
            self.buffers[tree_id] = buffer
        return buffer

    def tree_windows(self) -> dict[int, int]:
        """How many binding windows each tree needs."""
        window = self.device.caps.window_bytes
        return {t.id: max(1, -(-t.buffer.nbytes // window)) for t in self.trees}

    def before_launch(self, tree_ids: Iterable[int]) -> None:
        """Upload the trees a kernel uses whose host copy is newer."""
        if not self.host_newer:
            return
        for tree_id in tree_ids:
            if tree_id in self.host_newer:
                self.device.write(self.buffer(tree_id), _padded(self.trees[tree_id].buffer))
                self.host_newer.discard(tree_id)

    def after_launch(self, written: Iterable[int]) -> None:
        self.last_written = set(written)
        self.device_newer.update(self.last_written)

    last_written: set[int] = set()  # the trees the last launch wrote

    def tree_budget(self) -> int:
        """The most bytes a tree with pointer pools takes on the GPU: one storage binding
        (pools are sized to fit it, `ir/sparse.place_pools`), at most `ti.init`'s
        `device_memory_GB` (default `MAX_POOL_TREE_BYTES`)."""
        return min(self.device.caps.window_bytes, self.memory_bytes)

    def collect_sparse(self, tree_id: int) -> list[Any]:
        """After a launch: `sparse.collect` (recycled pointer cells to the free lists, zeroed)
        on the tree's newest copy. The counters of each pool are read back (16 bytes each)
        when the launch wrote the tree; the whole tree goes through the host only when some
        cell was recycled or some pool overflowed. Returns the exhausted pointer nodes."""
        tree = self.trees[tree_id]
        nodes = sparse.pointers(tree.root)
        if tree_id in self.device_newer:
            if tree_id not in self.last_written:
                return []  # collected after the launch that wrote it
            for node in nodes:
                self.before_host_access(tree_id, (node.meta_offset, node.meta_offset + 16))
        pending = False
        for node in nodes:
            at = node.meta_offset
            counters = tree.buffer[at : at + sparse.META_BYTES].view(np.uint32)
            pending = pending or bool(counters[2] or counters[3])
        if not pending:
            return []
        self.before_host_access(tree_id)  # the whole tree, then collected on the host
        exhausted = sparse.collect(tree.buffer, tree.root)
        self.after_host_write(tree_id)
        return exhausted

    def before_host_access(self, tree_id: int, span: tuple[int, int] | None = None) -> None:
        """Bring the host copy of bytes `span` (default: all) of a tree up to date; waits for
        the kernels that write it. A partial copy leaves the device marked newer."""
        if tree_id not in self.device_newer:
            return
        host = self.trees[tree_id].buffer
        lo, hi = _words(span, host.nbytes)
        data = self.device.read(self.buffer(tree_id), hi - lo, lo)
        host[lo:hi] = np.frombuffer(data, np.uint8, hi - lo)
        if (lo, hi) == (0, host.nbytes):
            self.device_newer.discard(tree_id)

    def after_host_write(self, tree_id: int, span: tuple[int, int] | None = None) -> None:
        """Bytes `span` of the host copy changed: write them through to the device when it
        holds the tree already (a few bytes, not the whole tree), else upload before the
        next launch."""
        if span is None or tree_id not in self.buffers or tree_id in self.host_newer:
            self.host_newer.add(tree_id)
            return
        host = self.trees[tree_id].buffer
        lo, hi = _words(span, host.nbytes)
        self.device.write(self.buffers[tree_id], _padded(host[lo:hi]), lo)

    def sync(self) -> None:
        self.device.sync()

    def close(self) -> None:
        """Free the device buffers (a process runs many `ti.init`s on one device)."""
        self.device.flush()
        for buffer in self.buffers.values():
            buffer.destroy()
        self.buffers.clear()


def _words(span: tuple[int, int] | None, size: int) -> tuple[int, int]:
    """`span` widened to whole 4-byte words (queue copies move words), within the buffer."""
    if span is None:
        return 0, size
    lo, hi = span
    return lo - lo % 4, min(size, -(-hi // 4) * 4)


def _padded(host: np.ndarray) -> np.ndarray:
    """Queue writes take multiples of 4 bytes."""
    if host.nbytes % 4 == 0:
        return host
    return np.concatenate([host, np.zeros(4 - host.nbytes % 4, np.uint8)])
