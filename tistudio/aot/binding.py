"""Binding a module's metadata to its code, so that an edited `metadata.json` cannot run.

The loader trusts `metadata.json` for every number that becomes an address or a size: tree
sizes, argument dtypes and dimensions, argument-buffer slots, which arrays a kernel writes,
global temporaries, GPU bindings. The artifact hashes live in that same file, so they catch a
damaged artifact but not an edited metadata entry. Instead, the code carries a digest of the
metadata it was compiled with: each kernel's object file (a constant) and each of its WGSL
shaders (a first comment line) hold the marker

    tistudio-aot-binding:<module digest>:<kernel digest>

where the module digest covers `metadata.json` without its kernel entries and artifact hashes
(trees, fields, target, caps, the kernel names) plus `graphs.json`, and the kernel digest one
kernel's whole entry (arguments, spec, tasks, bindings). The loader checks the module digest
for every kernel before it allocates anything, and a kernel's own digest before its code is
loaded. Editing the metadata means editing the code too: such a module is hostile code, and
loading code runs it (docs/aot-format.md says so).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tistudio.aot.format import AotModuleError

MARKER = "tistudio-aot-binding"


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def module_digest(meta: dict, graphs: list) -> str:
    """The digest of everything but the kernel entries and the artifact hashes."""
    rest = {k: v for k, v in meta.items() if k not in ("kernels", "artifacts")}
    rest["kernel_names"] = [k["name"] for k in meta["kernels"]]
    return _digest({"metadata": rest, "graphs": graphs})


def kernel_digest(entry: dict) -> str:
    """The digest of one kernel's metadata entry."""
    return _digest(entry)


def marker(module: str, kernel: str) -> str:
    return f"{MARKER}:{module}:{kernel}"


def kernel_artifacts(entry: dict, arch: str) -> list[str]:
    """The files that carry a kernel's marker: its object file, or its tasks' WGSL."""
    if arch == "cpu":
        return [entry["cpu"]["object"]]
    return [task["wgsl"] for task in entry["tasks"]]


def check_module(meta: dict, graphs: list, files: dict[str, bytes]) -> None:
    """Refuse a module whose metadata (but its kernel entries) or graphs differ from what its
    kernels were built with."""
    expected = f"{MARKER}:{module_digest(meta, graphs)}:".encode()
    for entry in meta["kernels"]:
        for name in kernel_artifacts(entry, meta["arch"]):
            if not _carries(expected, files.get(name, b""), meta["arch"]):
                raise AotModuleError(
                    f"{name!r} was built with another metadata.json or graphs.json than the "
                    f"module's (edited after the module was built, or an older tistudio's "
                    f"module without this check); build the module again"
                )


def check_kernel(module: str, arch: str, entry: dict, files: dict[str, bytes]) -> None:
    """Refuse a kernel whose metadata entry differs from what its code was built with
    (`module`: the module digest, `arch`: the module's)."""
    expected = marker(module, kernel_digest(entry)).encode()
    for name in kernel_artifacts(entry, arch):
        if not _carries(expected, files.get(name, b""), arch):
            raise AotModuleError(
                f"metadata.json: the entry of kernel {entry['name']!r} is not the one "
                f"{name!r} was built with (edited after the module was built); build the "
                f"module again"
            )


def _carries(expected: bytes, data: bytes, arch: str) -> bool:
    return data.startswith(b"// " + expected) if arch == "gpu" else expected in data
