"""A module as it travels to Dask workers: the `.tcm`'s bytes, their SHA-256, and its names.

Workers need not share a file system with the client, so the archive's bytes travel; their
SHA-256 is the key of each worker's cache (`cache.py`). The metadata is read here, on the
client, only as JSON: enough to refuse an unknown kernel or output name at once, and to know
the arch (a GPU module's tasks ask for a GPU worker). Loading, which checks everything else,
happens on the workers.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass
from typing import Any

from tistudio.aot.archive import read_module, write_tcm
from tistudio.aot.format import GRAPHS, METADATA, AotModuleError


@dataclass(frozen=True, repr=False)
class ShippedModule:
    """An AOT module's archive bytes, their SHA-256 and what its metadata names."""

    name: str  # the archive's path, or `<ti.aot.Module>`: what error messages call it
    data: bytes
    sha256: str
    arch: str
    kernels: tuple[str, ...]
    graphs: tuple[str, ...]
    fields: tuple[str, ...]
    array_args: dict[str, tuple[str, ...]]  # kernel -> its ndarray arguments

    def __repr__(self) -> str:
        return f"ShippedModule({self.name!r}, sha256={self.sha256[:12]}…, arch={self.arch!r})"


def ship(module: Any) -> ShippedModule:
    """`module` (a `.tcm` path, a module folder, or a `ti.aot.Module`) ready to send."""
    if isinstance(module, ShippedModule):
        return module
    if hasattr(module, "files") and hasattr(module, "archive"):  # a ti.aot.Module
        buffer = io.BytesIO()
        write_tcm(module.files(), buffer)
        return _described("<ti.aot.Module>", buffer.getvalue())
    if not isinstance(module, (str, os.PathLike)):
        raise TypeError(f"expected a .tcm path or a ti.aot.Module, got {type(module).__name__}")
    name = str(module)
    if os.path.isdir(name):  # a saved module folder travels as the archive of its files
        buffer = io.BytesIO()
        write_tcm(read_module(name), buffer)
        return _described(name, buffer.getvalue())
    try:
        with open(name, "rb") as f:
            data = f.read()
    except OSError as e:
        raise AotModuleError(f"{name!r}: cannot read the module ({e.strerror})") from None
    return _described(name, data)


def _described(name: str, data: bytes) -> ShippedModule:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            meta = json.loads(z.read(METADATA))
            graphs = json.loads(z.read(GRAPHS)) if GRAPHS in z.namelist() else []
        kernels = {k["name"]: k for k in meta["kernels"]}
        return ShippedModule(
            name=name,
            data=data,
            sha256=hashlib.sha256(data).hexdigest(),
            arch=str(meta["arch"]),
            kernels=tuple(sorted(kernels)),
            graphs=tuple(sorted(g["key"] for g in graphs)),
            fields=tuple(f["field_name"] for f in meta["fields"]),
            array_args={
                n: tuple(a["name"] for a in k["args"] if a.get("ptype") == 1)
                for n, k in kernels.items()
            },
        )
    except (zipfile.BadZipFile, KeyError, TypeError, ValueError) as e:
        raise AotModuleError(f"{name!r} is not a readable AOT module ({e})") from None
