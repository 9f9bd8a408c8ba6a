"""The offline (disk) cache: compiled kernels kept across processes, like Taichi's.

A kernel instantiation is keyed by a SHA-256 over everything its machine code depends on: the
printed frontend IR and the Python source, the parameter and return types, the layout of the
program's fields, the `CompileConfig`, the back end's target (triple, CPU name and features,
LLVM version, thread-pool kind) and a fingerprint of the compiler's own source files (so editing
a pass invalidates old entries). A hit loads the stored object code (about a millisecond) and
skips the passes and LLVM altogether.

One entry is one file, `<dir>/<key[:2]>/<key>.tic`: a header (magic, lengths, SHA-256 of the
rest), the JSON metadata the back end needs to launch the code, and the object code. Writers
write a temporary file in the same folder and `os.replace` it into place, so readers see a
whole entry or none, and two processes storing the same kernel at once each leave a valid file.
An entry that is truncated or whose checksum does not match is deleted and reported as a miss,
so the kernel is compiled again; so is a whole entry that fails to load (metadata that does not
describe the code, object code that `object_check.py` refuses). After each store the folder is
kept under `max_bytes` by deleting the least recently used entries (a hit refreshes an entry's
modification time) until it is `cleaning_factor` below the bound.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tistudio.runtime.cache_dir import default_path as default_path  # where ti.init finds it

MAGIC = b"TISTUDIO-KERNEL-1\n"
_HEADER = struct.Struct("<QQ32s")  # metadata length, object length, SHA-256 of both
SUFFIX = ".tic"
DEFAULT_MAX_BYTES = 100 * 2**20
STALE_TEMP_S = 3600.0
_PACKAGE = Path(__file__).resolve().parent.parent
# the compiler's source folders (the GPU's WGSL depends on backends/webgpu as well)
_COMPILER_FOLDERS = ("frontend", "ir", "passes", "backends/llvm", "backends/webgpu")
_COMPILER_FOLDERS += ("lang", "runtime")


def compiler_fingerprint(package: Path = _PACKAGE) -> str:
    """Path, size and modification time of every compiler source file (about 1 ms): a changed
    pass or back end never reuses code compiled by an older one."""
    digest = hashlib.sha256()
    for folder in _COMPILER_FOLDERS:
        for path in sorted((package / folder).glob("*.py")):
            info = path.stat()
            digest.update(f"{folder}/{path.name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def make_key(parts: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode()
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return digest.hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    corrupted: int = 0
    stores: int = 0
    cleaned: int = 0


class OfflineCache:
    """One cache folder. Thread-safe and process-safe by construction (see the module doc)."""

    def __init__(
        self, path: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES, cleaning_factor=0.25
    ) -> None:
        self.path = Path(path).expanduser()
        self.max_bytes = int(max_bytes)
        self.cleaning_factor = float(cleaning_factor)
        self.stats = CacheStats()

    def entry_path(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}{SUFFIX}"

    def load(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        """The metadata and object code stored under `key`, or None (missing or damaged)."""
        path = self.entry_path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.stats.misses += 1
            return None
        entry = _decode(data)
        if entry is None:
            self.stats.corrupted += 1
            self.stats.misses += 1
            _remove(path)
            return None
        try:
            os.utime(path)  # least recently *used* goes first when cleaning
        except OSError:
            pass
        self.stats.hits += 1
        return entry

    def store(self, key: str, meta: dict[str, Any], object_code: bytes) -> bool:
        """Write an entry atomically; False if the folder is not writable (the cache is then
        silently bypassed, as a read-only home must not break kernels)."""
        path = self.entry_path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(_encode(meta, object_code))
                os.replace(temp, path)
            except BaseException:
                _remove(Path(temp))
                raise
        except OSError:
            return False
        self.stats.stores += 1
        self.clean()
        return True

    def entries(self) -> list[tuple[Path, os.stat_result]]:
        found = []
        try:
            folders = [f for f in self.path.iterdir() if f.is_dir()]
        except OSError:
            return []
        for folder in folders:
            try:
                names = list(folder.iterdir())
            except OSError:
                continue
            for path in names:
                try:
                    found.append((path, path.stat()))
                except OSError:
                    continue  # removed by another process meanwhile
        return found

    def size(self) -> int:
        return sum(info.st_size for path, info in self.entries() if path.suffix == SUFFIX)

    def clean(self) -> int:
        """Delete stale temporary files, then least recently used entries while the folder is
        over `max_bytes`, down to `(1 - cleaning_factor) * max_bytes`; return how many went."""
        now = time.time()
        entries = []
        removed = 0
        for path, info in self.entries():
            if path.suffix == SUFFIX:
                entries.append((info.st_mtime, info.st_size, path))
            elif now - info.st_mtime > STALE_TEMP_S:  # a writer died before its os.replace
                removed += _remove(path)
        total = sum(size for _, size, _ in entries)
        if total > self.max_bytes:
            target = self.max_bytes * (1.0 - self.cleaning_factor)
            for _, size, path in sorted(entries):
                if total <= target:
                    break
                removed += _remove(path)
                total -= size
        self.stats.cleaned += removed
        return removed


def _encode(meta: dict[str, Any], object_code: bytes) -> bytes:
    text = json.dumps(meta, sort_keys=True).encode()
    digest = hashlib.sha256(text + object_code).digest()
    return MAGIC + _HEADER.pack(len(text), len(object_code), digest) + text + object_code


def _decode(data: bytes) -> tuple[dict[str, Any], bytes] | None:
    start = len(MAGIC) + _HEADER.size
    if len(data) < start or not data.startswith(MAGIC):
        return None
    meta_len, obj_len, digest = _HEADER.unpack_from(data, len(MAGIC))
    body = data[start:]
    if len(body) != meta_len + obj_len or hashlib.sha256(body).digest() != digest:
        return None
    try:
        meta = json.loads(body[:meta_len])
    except ValueError:
        return None
    return meta, body[meta_len:]


def _remove(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:
        return 0


# --- the compile path's side: keys, hits, stores -----------------------------------------------


# keys whose optimised code this process is still making (tiered compilation), so that a lookup
# of the same kernel right after a new `ti.init` waits for the store instead of compiling again
_pending_stores: dict[str, Any] = {}


@dataclass
class Lookup:
    """One kernel's trip to the cache: its key (None when the cache is bypassed), the result
    loaded on a hit, and `save` to store a freshly compiled result on a miss."""

    cache: OfflineCache | None
    key: str | None = None
    result: Any = None
    ms: float = 0.0
    gpu_backend: Any = None  # a `WebGpuBackend` when the program runs on the GPU

    def save(self, result: Any) -> None:
        if self.cache is None or self.key is None:
            return
        executable = result.executable
        if self.gpu_backend is not None:  # the GPU's code is WGSL text, kept in the metadata
            spec = self.gpu_backend.cache_entry(executable)
            if spec is not None:
                self._store(result, spec, b"")
            return
        spec = executable.spec.to_json()
        optimised = getattr(executable, "optimised", None)
        if optimised is None:
            self._store(result, spec, executable.compiled.object_code)
        else:  # tiered: the optimised code is stored when the optimiser has made it
            key = self.key
            _pending_stores[key] = optimised

            def store(compiled: Any) -> None:
                self._store(result, spec, compiled.object_code)
                _pending_stores.pop(key, None)

            optimised.then(store)

    def _store(self, result: Any, spec: Any, object_code: bytes) -> None:
        assert self.cache is not None and self.key is not None
        meta = {
            "spec": spec,
            "warnings": [_warning_json(message, loc) for message, loc in result.warnings],
            "written": [snode.id for snode in result.written_snodes],
        }
        self.cache.store(self.key, meta, object_code)


def lookup(program: Any, kernel: Any, source: str, bypass: bool) -> Lookup:
    """Look `kernel` (frontend IR) up in `program`'s offline cache. Bypassed when recording or
    printing passes (the studio must see them), and in debug mode."""
    from tistudio.events import bus

    cache = program.offline_cache
    config = program.config
    if cache is None or bypass or config.debug or config.verify_passes or bus.wants("pass_ran"):
        return Lookup(None)
    start = time.perf_counter()
    backend = program.backend
    key = make_key(_key_parts(program, kernel, source, cache, backend))
    pending = _pending_stores.get(key)
    if pending is not None:  # compiled in this process, its optimised code not stored yet
        try:
            pending.wait()
        except RuntimeError:
            pass
    hit = cache.load(key)
    found = _result_from(program, kernel, backend, hit) if hit is not None else None
    if hit is not None and found is None:  # an entry that does not load: drop it, compile again
        cache.stats.corrupted += 1
        _remove(cache.entry_path(key))
    gpu = backend if getattr(program, "gpu", None) is not None else None
    return Lookup(cache, key, found, (time.perf_counter() - start) * 1e3, gpu)


def _key_parts(program: Any, kernel: Any, source: str, cache: OfflineCache, backend: Any):
    from tistudio.ir.printer import print_ir

    if not hasattr(cache, "_fingerprint"):
        cache._fingerprint = compiler_fingerprint()  # type: ignore[attr-defined]
    return (
        MAGIC.decode(),
        cache._fingerprint,  # type: ignore[attr-defined]
        backend.fingerprint(),
        repr(program.config),
        repr(kernel.params),
        repr(kernel.ret_types),
        kernel.autodiff_mode,  # f.grad's IR prints as f's: the mode keys it apart
        layout_text(program),
        print_ir(kernel),
        source,
    )


def layout_text(program: Any) -> str:
    """Every materialised field of `program` with its geometry: the memory kernels address."""
    lines: list[str] = []

    def visit(node: Any) -> None:
        lines.append(
            f"S{node.id} {node.type} t{node.tree_id} {node.axes} {node.sizes} {node.dtype} "
            f"@{node.offset_in_parent_cell} x{node.cell_size}"
        )
        for child in node.children:
            visit(child)

    for tree in program.trees:
        visit(tree.root)
    return "\n".join(lines)


def _result_from(program: Any, kernel: Any, backend: Any, hit: tuple) -> Any:
    from dataclasses import replace

    from tistudio.backends.llvm.spec import KernelSpec
    from tistudio.ir.stmt import SourceLoc
    from tistudio.runtime.program import CompileResult

    meta, object_code = hit
    # the checksum says the entry is whole, not that it is right: whatever fails while it is
    # read (an empty task, object code that is not, a shader that does not compile) drops it
    try:
        warnings = [
            (m, SourceLoc(f, line, col) if f is not None else None)
            for m, f, line, col in meta["warnings"]
        ]
        written = _snodes_by_id(program, set(meta["written"]))
        if getattr(program, "gpu", None) is not None:
            executable = backend.load_cached(meta["spec"], kernel, _final_ir(program, kernel))
        else:
            spec = replace(KernelSpec.from_json(meta["spec"]), name=kernel.name)
            executable = backend.load(spec, object_code, program.config)
    except Exception:
        return None
    return CompileResult(executable, [], warnings, None, written_snodes=written, cache="hit")


def _final_ir(program: Any, kernel: Any) -> Any:
    """A function that runs the passes on `kernel` (frontend IR) when a GPU hit needs shaders
    the cache did not keep (ndarrays bound as several windows)."""
    from tistudio.passes.context import PassContext
    from tistudio.passes.pipeline import compile_to_final_ir

    def run() -> Any:
        compile_to_final_ir(kernel, PassContext(program.config))
        return kernel

    return run


def _snodes_by_id(program: Any, ids: set[int]) -> list[Any]:
    found = []
    stack = [tree.root for tree in program.trees]
    while stack:
        node = stack.pop()
        if node.id in ids:
            found.append(node)
        stack.extend(node.children)
    return sorted(found, key=lambda n: n.id)


def _warning_json(message: str, loc: Any) -> list[Any]:
    if loc is None:
        return [message, None, 0, 0]
    return [message, loc.filename, loc.line, getattr(loc, "col", 0)]


class RuntimeSlot:
    """The thread pool's runtime module in the cache: it is the same for every kernel, so it is
    keyed by compiler and target alone. The back end calls `load()` before compiling it and
    `store(obj)` after; cached, starting the pool skips ~30 ms of LLVM work."""

    def __init__(self, cache: OfflineCache, backend: Any) -> None:
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
