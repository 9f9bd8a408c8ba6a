"""The offline (disk) cache's store: one folder of entries, kept whole and under a bound.

One entry is one file, `<dir>/<key[:2]>/<key>.tic`: a header (magic, lengths, SHA-256 of the
rest), JSON metadata and object code. Writers write a temporary file in the same folder and
`os.replace` it into place, so readers see a whole entry or none, and two processes storing the
same kernel at once each leave a valid file. An entry that is truncated or whose checksum does
not match is deleted and reported as a miss. After each store the folder is kept under
`max_bytes` by deleting the least recently used entries (a hit refreshes an entry's modification
time) until it is `cleaning_factor` below the bound. What goes into a key is `cache_keys.py`'s
business, what goes into an entry the back end's (`offline_cache.py`).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAGIC = b"TISTUDIO-KERNEL-1\n"
_HEADER = struct.Struct("<QQ32s")  # metadata length, object length, SHA-256 of both
SUFFIX = ".tic"
DEFAULT_MAX_BYTES = 100 * 2**20
STALE_TEMP_S = 3600.0


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
        # the compiler's fingerprint (`cache_keys.compiler_fingerprint`), taken on first use
        self.fingerprint: str | None = None

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
            remove(path)
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
                remove(Path(temp))
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
                removed += remove(path)
        total = sum(size for _, size, _ in entries)
        if total > self.max_bytes:
            target = self.max_bytes * (1.0 - self.cleaning_factor)
            for _, size, path in sorted(entries):
                if total <= target:
                    break
                removed += remove(path)
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


def remove(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:
        return 0
