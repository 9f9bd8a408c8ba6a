"""Writing and reading a module's files: a folder, or a deterministic `.tcm` zip.

The zip has its entries in sorted order, stored uncompressed (as Taichi's), with a fixed
timestamp (2000-12-01, Taichi's) and fixed permissions, so the same module always gives the
same bytes: an archive can be checked into a repository or compared by hash. Reading accepts a
folder or a `.tcm` and refuses, with an `AotModuleError`, anything that is not a whole module:
a truncated or corrupted zip, members in sub-folders or outside the module, missing files.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from tistudio.aot.format import REQUIRED_FILES, AotModuleError, check_member_name

TIMESTAMP = (2000, 12, 1, 0, 0, 0)
MAX_MEMBER_BYTES = 1 << 30


def write_folder(files: dict[str, bytes], folder: str | os.PathLike) -> Path:
    """Write `files` into `folder` (created if missing)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for name in sorted(files):
        (path / check_member_name(name)).write_bytes(files[name])
    return path


def write_tcm(files: dict[str, bytes], target: str | os.PathLike) -> Path:
    """Write `files` as a deterministic zip at `target` (see the module docstring)."""
    path = Path(target)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(check_member_name(name), date_time=TIMESTAMP)
            info.external_attr = 0o644 << 16
            info.create_system = 3  # unix, whatever system writes it
            archive.writestr(info, files[name])
    return path


def read_module(path: str | os.PathLike) -> dict[str, bytes]:
    """Every file of the module at `path` (a folder or a `.tcm`), checked for completeness."""
    source = Path(path)
    if source.is_dir():
        files = _read_folder(source)
    elif source.is_file():
        files = _read_tcm(source)
    else:
        raise AotModuleError(f"no AOT module at {str(source)!r} (neither a folder nor a file)")
    missing = [name for name in REQUIRED_FILES if name not in files]
    if missing:
        raise AotModuleError(f"the module at {str(source)!r} lacks {', '.join(missing)}")
    return files


def _read_folder(folder: Path) -> dict[str, bytes]:
    files = {}
    for entry in sorted(folder.iterdir()):
        if entry.is_file():
            files[entry.name] = entry.read_bytes()
    return files


def _read_tcm(path: Path) -> dict[str, bytes]:
    if path.suffix != ".tcm":
        raise AotModuleError(f"{str(path)!r} is a file but not a .tcm archive")
    try:
        with zipfile.ZipFile(path) as archive:
            return _members(archive)
    except zipfile.BadZipFile as e:
        raise AotModuleError(f"{str(path)!r} is not a valid .tcm archive ({e})") from None
    except (EOFError, OSError, zipfile.LargeZipFile) as e:
        raise AotModuleError(f"{str(path)!r} is truncated or unreadable ({e})") from None


def _members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for info in archive.infolist():
        name = check_member_name(info.filename)
        if name in files:
            raise AotModuleError(f"the archive holds {name!r} twice")
        if info.file_size > MAX_MEMBER_BYTES:
            raise AotModuleError(f"{name!r} is {info.file_size} bytes, more than a module holds")
        try:
            files[name] = archive.read(info)  # checks the CRC
        except zipfile.BadZipFile as e:
            raise AotModuleError(f"{name!r} in the archive is corrupted ({e})") from None
    return files
