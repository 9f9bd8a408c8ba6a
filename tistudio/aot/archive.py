"""Writing and reading a module's files: a folder, or a deterministic `.tcm` zip.

The zip has its entries in sorted order, stored uncompressed (as Taichi's), with a fixed
timestamp (2000-12-01, Taichi's) and fixed permissions, so the same module always gives the
same bytes: an archive can be checked into a repository or compared by hash. Reading accepts a
folder or a `.tcm` and refuses, with an `AotModuleError` naming the archive and the member,
anything that is not a whole module: a truncated or corrupted zip, compressed members, members
in sub-folders or outside the module (or, in a folder, links leading out of it), missing files,
more members or bytes than the caps below. Only the required files and the artifacts that
`metadata.json` lists are read, each at most once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import zipfile
from pathlib import Path
from typing import IO

from tistudio.aot.format import METADATA, REQUIRED_FILES, AotModuleError, check_member_name

TIMESTAMP = (2000, 12, 1, 0, 0, 0)
MAX_MEMBER_BYTES = 1 << 30  # one file of a module
MAX_MODULE_BYTES = 1 << 31  # the files a module reads, together
MAX_ARCHIVE_BYTES = MAX_MODULE_BYTES + (1 << 24)  # a .tcm: its files and the zip's records
MAX_MEMBERS = 10_000  # files in a module folder or members in a .tcm


def write_folder(files: dict[str, bytes], folder: str | os.PathLike) -> Path:
    """Write `files` into `folder` (created if missing)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for name in sorted(files):
        (path / check_member_name(name)).write_bytes(files[name])
    return path


def write_tcm(files: dict[str, bytes], target: str | os.PathLike | IO[bytes]) -> None:
    """Write `files` as a deterministic zip at `target` (see the module docstring)."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(check_member_name(name), date_time=TIMESTAMP)
            info.external_attr = 0o644 << 16
            info.create_system = 3  # unix, whatever system writes it
            archive.writestr(info, files[name])


def read_module(path: str | os.PathLike, expect_sha256: str | None = None) -> dict[str, bytes]:
    """The files of the module at `path` (a folder or a `.tcm`): the required files and the
    artifacts `metadata.json` lists, nothing else; checked for completeness and size, and
    with `expect_sha256`, the SHA-256 of the `.tcm` file (before it is parsed) or of the
    folder's files (`tcm_digest`)."""
    if expect_sha256 is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", str(expect_sha256)):
        raise ValueError(f"expect_sha256 must be 64 hex digits, got {expect_sha256!r}")
    source = Path(path)
    if source.is_dir():
        reader: _Reader = _FolderReader(source)
    elif source.is_file():
        reader = _TcmReader(source, expect_sha256)
    else:
        raise AotModuleError(f"no AOT module at {str(source)!r} (neither a folder nor a file)")
    files = reader.module()
    if expect_sha256 is not None and isinstance(reader, _FolderReader):
        _check_sha256(reader.origin, tcm_digest(files), expect_sha256)
    return files


def _check_sha256(origin: str, found: str, expected: str) -> None:
    if found != expected.lower():
        raise AotModuleError(f"{origin!r} has SHA-256 {found}, not the expected {expected}")


def tcm_digest(files: dict[str, bytes]) -> str:
    """The SHA-256 of the `.tcm` that `write_tcm` makes of `files`: a folder's digest, so a
    folder and its archive have the same (`load(..., expect_sha256=...)`)."""
    buffer = io.BytesIO()
    write_tcm(files, buffer)
    return hashlib.sha256(buffer.getvalue()).hexdigest()


class _Reader:
    """Reads members by name, within the caps; `module()` reads the ones a module needs."""

    origin = ""

    def names(self) -> list[str]:
        raise NotImplementedError

    def read(self, name: str, budget: int) -> bytes:
        raise NotImplementedError

    def size(self, name: str) -> int:
        """The size `name` declares (a folder's file: its size now)."""
        raise NotImplementedError

    def module(self) -> dict[str, bytes]:
        present = set(self.names())
        missing = [name for name in REQUIRED_FILES if name not in present]
        if missing:
            raise AotModuleError(f"the module at {self.origin!r} lacks {', '.join(missing)}")
        files: dict[str, bytes] = {}
        wanted = REQUIRED_FILES + tuple(_listed(self._take(files, METADATA, present)))
        wanted = tuple(name for name in dict.fromkeys(wanted) if name in present)
        total = sum(self.size(name) for name in wanted)
        if total > MAX_MODULE_BYTES:
            raise AotModuleError(
                f"{self.origin!r}: the module's files take {total} bytes, more than "
                f"{MAX_MODULE_BYTES}"
            )
        for name in wanted:
            self._take(files, name, present)
        return files

    def _take(self, files: dict[str, bytes], name: str, present: set[str]) -> bytes:
        if name not in files and name in present:
            budget = MAX_MODULE_BYTES - sum(map(len, files.values()))
            files[name] = self.read(name, min(budget, MAX_MEMBER_BYTES))
        return files.get(name, b"")


def _listed(metadata: bytes) -> list[str]:
    """The artifact names `metadata.json` lists ([] where it cannot say: the schema check
    will tell what is wrong)."""
    try:
        artifacts = json.loads(metadata.decode("utf-8")).get("artifacts", {})
    except (UnicodeDecodeError, ValueError, AttributeError):
        return []
    if not isinstance(artifacts, dict):
        return []
    return sorted(check_member_name(n) for n in artifacts if isinstance(n, str))


def _too_big(origin: str, name: str, size: int, budget: int) -> AotModuleError:
    return AotModuleError(
        f"{origin!r}: {name!r} is {size} bytes, which would take the module past "
        f"{MAX_MODULE_BYTES} bytes (or the member past {MAX_MEMBER_BYTES}); {budget} are left"
    )


class _FolderReader(_Reader):
    """A module folder: regular files at its root; a symbolic link may only lead to a file
    inside the folder."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.origin = folder.resolve(), str(folder)

    def names(self) -> list[str]:
        entries = sorted(os.listdir(self.folder))
        if len(entries) > MAX_MEMBERS:
            raise AotModuleError(f"{self.origin!r} holds more than {MAX_MEMBERS} files")
        return entries

    def size(self, name: str) -> int:
        try:
            return os.stat(self.folder / check_member_name(name)).st_size
        except OSError:
            return 0  # reading it says what is wrong

    def read(self, name: str, budget: int) -> bytes:
        path = (self.folder / check_member_name(name)).resolve()
        if path.parent != self.folder:
            raise AotModuleError(f"{self.origin!r}: {name!r} is a link out of the module folder")
        try:  # not blocking: a FIFO would wait for a writer before fstat could refuse it
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode):
                    raise AotModuleError(f"{self.origin!r}: {name!r} is not a regular file")
                if info.st_size > budget:
                    raise _too_big(self.origin, name, info.st_size, budget)
                data = handle.read(budget + 1)
        except OSError as e:
            raise AotModuleError(f"{self.origin!r}: cannot read {name!r} ({e})") from None
        if len(data) > budget:
            raise _too_big(self.origin, name, len(data), budget)
        return data


class _TcmReader(_Reader):
    """A `.tcm` zip, read whole into memory first (it is no larger than a module may be)."""

    def __init__(self, path: Path, expect_sha256: str | None) -> None:
        self.origin = str(path)
        if path.suffix != ".tcm":
            raise AotModuleError(f"{self.origin!r} is a file but not a .tcm archive")
        self.data = _read_file(path)
        if expect_sha256 is not None:
            _check_sha256(self.origin, hashlib.sha256(self.data).hexdigest(), expect_sha256)
        try:
            self.archive = zipfile.ZipFile(io.BytesIO(self.data))
        except zipfile.BadZipFile as e:
            raise AotModuleError(f"{self.origin!r} is not a valid .tcm archive ({e})") from None
        except (EOFError, OSError, ValueError, zipfile.LargeZipFile) as e:
            raise AotModuleError(f"{self.origin!r} is truncated or unreadable ({e})") from None
        self.infos = self._check_directory()

    def _check_directory(self) -> dict[str, zipfile.ZipInfo]:
        entries = self.archive.infolist()
        if len(entries) > MAX_MEMBERS:
            raise AotModuleError(f"{self.origin!r} holds more than {MAX_MEMBERS} members")
        infos: dict[str, zipfile.ZipInfo] = {}
        for info in entries:
            name = check_member_name(info.filename)
            if name in infos:
                raise AotModuleError(f"{self.origin!r}: the archive holds {name!r} twice")
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise AotModuleError(
                    f"{self.origin!r}: {name!r} is compressed; .tcm members are stored"
                )
            infos[name] = info
        return infos

    def names(self) -> list[str]:
        return sorted(self.infos)

    def size(self, name: str) -> int:
        return self.infos[name].file_size

    def read(self, name: str, budget: int) -> bytes:
        info = self.infos[name]
        if info.file_size > budget:
            raise _too_big(self.origin, name, info.file_size, budget)
        try:
            return self.archive.read(info)  # checks the CRC
        except zipfile.BadZipFile as e:
            raise AotModuleError(f"{self.origin!r}: {name!r} is corrupted ({e})") from None
        except (EOFError, OSError, ValueError, NotImplementedError) as e:
            raise AotModuleError(f"{self.origin!r}: cannot read {name!r} ({e})") from None


def _read_file(path: Path) -> bytes:
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise AotModuleError(f"{str(path)!r} is not a regular file")
            data = handle.read(MAX_ARCHIVE_BYTES + 1)
    except OSError as e:
        raise AotModuleError(f"{str(path)!r} is unreadable ({e})") from None
    if len(data) > MAX_ARCHIVE_BYTES:
        raise AotModuleError(f"{str(path)!r} is larger than {MAX_ARCHIVE_BYTES} bytes")
    return data
