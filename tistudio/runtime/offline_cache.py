"""The offline (disk) cache on the compile path: look a kernel up, store what was compiled.

Compiled kernels are kept across processes, like Taichi's. `lookup` computes the kernel's key
(`cache_keys.py`), loads the entry from the folder (`cache_store.py`) and asks the program's back
end to rebuild the executable from it (`Backend.load_entry`): a hit skips the passes and the back
end's compile (about a millisecond instead of tens). On a miss, `Lookup.save` asks the back end
for the entry of what it compiled (`Backend.save_entry`) and stores it with the kernel's warnings
and the fields it writes. The checksum says an entry is whole, not that it is right: an entry
that fails to load (metadata that does not describe the code, object code that
`object_check.py` refuses) is deleted and the kernel compiled again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tistudio.backends.protocol import Backend, CacheEntry
from tistudio.events import bus
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Kernel, SourceLoc
from tistudio.runtime.cache_dir import default_path as default_path  # where ti.init finds it
from tistudio.runtime.cache_keys import compiler_fingerprint, kernel_key, make_key
from tistudio.runtime.cache_keys import layout_text as layout_text
from tistudio.runtime.cache_store import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from tistudio.runtime.cache_store import SUFFIX as SUFFIX
from tistudio.runtime.cache_store import OfflineCache, remove
from tistudio.runtime.compile_result import CompileResult

if TYPE_CHECKING:
    from tistudio.runtime.program import Program


@dataclass
class Lookup:
    """One kernel's trip to the cache: its key (None when the cache is bypassed), the result
    loaded on a hit, and `save` to store a freshly compiled result on a miss."""

    cache: OfflineCache | None
    key: str | None = None
    result: CompileResult | None = None
    ms: float = 0.0
    backend: Backend | None = None

    def save(self, result: CompileResult) -> None:
        cache, key, backend = self.cache, self.key, self.backend
        if cache is None or key is None or backend is None:
            return

        def store(entry: CacheEntry) -> None:
            meta = {
                "spec": entry.meta,
                "warnings": [_warning_json(message, loc) for message, loc in result.warnings],
                "written": [snode.id for snode in result.written_snodes],
            }
            cache.store(key, meta, entry.code)

        backend.save_entry(result.executable, store)


def lookup(program: Program, kernel: Kernel, source: str, bypass: bool) -> Lookup:
    """Look `kernel` (frontend IR) up in `program`'s offline cache. Bypassed when recording or
    printing passes (the studio must see them), and in debug mode."""
    cache = program.offline_cache
    config = program.config
    if cache is None or bypass or config.debug or config.verify_passes or bus.wants("pass_ran"):
        return Lookup(None)
    start = time.perf_counter()
    backend = program.backend
    key = kernel_key(program, kernel, source, cache, backend)
    backend.wait_for_entry(key)  # compiled in this process, its entry not stored yet?
    hit = cache.load(key)
    found = _result_from(program, kernel, backend, hit) if hit is not None else None
    if hit is not None and found is None:  # an entry that does not load: drop it, compile again
        cache.stats.corrupted += 1
        remove(cache.entry_path(key))
    return Lookup(cache, key, found, (time.perf_counter() - start) * 1e3, backend)


def _result_from(
    program: Program, kernel: Kernel, backend: Backend, hit: tuple[dict[str, Any], bytes]
) -> CompileResult | None:
    meta, code = hit
    # whatever fails while the entry is read (an empty task, object code that is not, a
    # shader that does not compile) drops it
    try:
        warnings = [
            (m, SourceLoc(f, line, col) if f is not None else None)
            for m, f, line, col in meta["warnings"]
        ]
        written = _snodes_by_id(program, set(meta["written"]))
        entry = CacheEntry(meta["spec"], code)
        final_ir = _final_ir(program, kernel)
        executable = backend.load_entry(entry, kernel, program.config, final_ir)
    except Exception:
        return None
    return CompileResult(executable, [], warnings, None, written_snodes=written, cache="hit")


def _final_ir(program: Program, kernel: Kernel) -> Callable[[], Kernel]:
    """A function that runs the passes on `kernel` (frontend IR) when a GPU hit needs shaders
    the cache did not keep (ndarrays bound as several windows)."""

    def run() -> Kernel:
        # imported when called: a hit must not import the passes (~100 ms)
        from tistudio.passes.context import PassContext
        from tistudio.passes.pipeline import compile_to_final_ir

        compile_to_final_ir(kernel, PassContext(program.config))
        return kernel

    return run


def _snodes_by_id(program: Program, ids: set[int]) -> list[SNode]:
    found = []
    stack = [tree.root for tree in program.trees]
    while stack:
        node = stack.pop()
        if node.id in ids:
            found.append(node)
        stack.extend(node.children)
    return sorted(found, key=lambda n: n.id)


def _warning_json(message: str, loc: SourceLoc | None) -> list[Any]:
    if loc is None:
        return [message, None, 0, 0]
    return [message, loc.filename, loc.line, getattr(loc, "col", 0)]


class RuntimeSlot:
    """The thread pool's runtime module in the cache: it is the same for every kernel, so it is
    keyed by compiler and target alone. The back end calls `load()` before compiling it and
    `store(obj)` after; cached, starting the pool skips ~30 ms of LLVM work."""

    def __init__(self, cache: OfflineCache, backend: Backend) -> None:
        self.cache = cache
        self._backend = backend
        self._key: str | None = None

    @property
    def key(self) -> str:
        if self._key is None:
            parts = ("runtime", compiler_fingerprint(), self._backend.fingerprint())
            self._key = make_key(parts)
        return self._key

    def load(self) -> bytes | None:
        hit = self.cache.load(self.key)
        return hit[1] if hit is not None else None

    def store(self, object_code: bytes) -> None:
        self.cache.store(self.key, {"runtime": True}, object_code)
