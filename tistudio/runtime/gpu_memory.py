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
        self.high_water: dict[int, dict[int, int]] = {}  # tree -> pointer node -> cells

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
                host = self.trees[tree_id].buffer
                for lo, hi in self._used_spans(tree_id) or [(0, host.nbytes)]:
                    self.device.write(self.buffer(tree_id), _padded(host[lo:hi]), lo)
                    self.bytes_moved += hi - lo
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
            self._marks(tree_id)
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
        if span is None and self._pools(tree_id):  # the parts of the pools in use, not all
            for node in self._pools(tree_id):
                self._download(tree_id, node.meta_offset, node.meta_offset + sparse.META_BYTES)
            spans = self._used_spans(tree_id)
            assert spans is not None
            for lo, hi in spans:
                self._download(tree_id, lo, hi)
            self.device_newer.discard(tree_id)
            return
        lo, hi = _words(span, host.nbytes)
        self._download(tree_id, lo, hi)
        if (lo, hi) == (0, host.nbytes):
            self.device_newer.discard(tree_id)

    bytes_moved = 0  # between host and device, both ways (for tests and profiling)

    def _download(self, tree_id: int, lo: int, hi: int) -> None:
        host = self.trees[tree_id].buffer
        lo, hi = _words((lo, hi), host.nbytes)
        data = self.device.read(self.buffer(tree_id), hi - lo, lo)
        host[lo:hi] = np.frombuffer(data, np.uint8, hi - lo)
        self.bytes_moved += hi - lo

    def _pools(self, tree_id: int) -> list[Any]:
        root = getattr(self.trees[tree_id], "root", None)  # (AOT's trees have no SNodes)
        return sparse.pointers(root) if root is not None else []

    def _marks(self, tree_id: int) -> dict[int, int]:
        """Each pool's high-water mark: the most cells its bump counter handed out, on either
        copy, as far as this object has seen (both copies are zero beyond it)."""
        host = self.trees[tree_id].buffer
        marks = self.high_water.setdefault(tree_id, {})
        for node in self._pools(tree_id):
            bump = int(host[node.meta_offset : node.meta_offset + 4].view(np.uint32)[0])
            marks[node.id] = max(marks.get(node.id, 0), min(bump, node.pool_capacity))
        return marks

    def _used_spans(self, tree_id: int) -> list[tuple[int, int]] | None:
        """The byte ranges of a tree with pointer pools that can hold anything, from the host's
        counters (read from the device first when it is newer): everything before the first
        pool, and of each pool its counters, its free and recycle lists up to their counts
        and its cells up to the high-water mark. None for a tree without pools."""
        nodes = self._pools(tree_id)
        if not nodes:
            return None
        host = self.trees[tree_id].buffer
        marks = self._marks(tree_id)
        spans = [(0, min(node.meta_offset for node in nodes))]
        for node in nodes:
            meta, cap = node.meta_offset, node.pool_capacity
            words = host[meta : meta + sparse.META_BYTES].view(np.int32)
            free, recycled = (min(max(int(w), 0), cap) for w in words[1:3])
            lists = meta + sparse.META_BYTES
            spans.append((meta, lists + 4 * free))
            spans.append((lists + 4 * cap, lists + 4 * cap + 4 * recycled))
            spans.append(
                (node.pool_offset, node.pool_offset + (marks[node.id] + 1) * node.cell_size)
            )
        return [_words(span, host.nbytes) for span in spans if span[1] > span[0]]

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
