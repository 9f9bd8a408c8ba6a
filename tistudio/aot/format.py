"""The AOT module format: file names, version and the checks every reader applies.

A module is a folder (or a `.tcm` zip of the same files at its root) holding `metadata.json`
(fields, kernels, tasks; the schema is in docs/aot-format.md), `graphs.json`, `__content__`
(one `kernel:<name>` or `cgraph:<name>` line per thing the user added), `__version__` and the
artifacts the metadata names: `<kernel>.ll` and `<kernel>.o` on the CPU, one `.wgsl` per task
on the GPU. This module is shared by the writer and the loader and imports nothing of the
compiler.
"""

from __future__ import annotations

import json
import re
from typing import Any

FORMAT_NAME = "tistudio-aot"
FORMAT_VERSION = 1
METADATA = "metadata.json"
GRAPHS = "graphs.json"
CONTENT = "__content__"
VERSION = "__version__"
REQUIRED_FILES = (METADATA, GRAPHS, CONTENT, VERSION)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # names that reach C: fields, args, symbols
PTYPE_SCALAR, PTYPE_NDARRAY = 0, 1  # Taichi's ParameterType numbering
TAG_SCALAR, TAG_NDARRAY = 0, 2  # Taichi's ArgKind numbering (graphs.json)


class AotModuleError(ValueError):
    """A module folder or `.tcm` that cannot be read: missing or corrupted files, an unknown
    version, a path escaping the module, or metadata that does not fit the schema."""


def version_text(tistudio_version: str) -> str:
    """The `__version__` file: who wrote the module and in which format version."""
    return f"tistudio {tistudio_version}\n{FORMAT_NAME} {FORMAT_VERSION}\n"


def check_version(text: str) -> None:
    found = re.search(rf"^{FORMAT_NAME} (\d+)$", text, re.MULTILINE)
    if found is None:
        raise AotModuleError(f"{VERSION} does not name a {FORMAT_NAME} format version: {text!r}")
    if int(found.group(1)) != FORMAT_VERSION:
        raise AotModuleError(
            f"the module has {FORMAT_NAME} format version {found.group(1)}; this tistudio "
            f"reads version {FORMAT_VERSION}"
        )


def safe_file_stem(name: str, taken: set[str]) -> str:
    """A file name stem for kernel `name` (which may hold `|`, `=` and `,` from template
    keys): letters, digits and `_-.` only, never one already in `taken` (which is updated)."""
    stem = re.sub(r"[^0-9A-Za-z_.-]", "_", name).strip(".") or "kernel"
    candidate, n = stem, 1
    while candidate in taken:
        candidate, n = f"{stem}_{n}", n + 1
    taken.add(candidate)
    return candidate


def is_identifier(name: object) -> bool:
    """Whether `name` is a C (and Python) identifier of ASCII letters, digits and `_`."""
    return isinstance(name, str) and IDENTIFIER.fullmatch(name) is not None


def is_kernel_name(name: object) -> bool:
    """Whether `name` is a kernel name a module may hold: an identifier, then for a template
    instantiation `|` and its key (printable ASCII, no `*/`; see `Module._template_key`)."""
    if not isinstance(name, str) or len(name) > 1000:
        return False
    head, bar, key = name.partition("|")
    return is_identifier(head) and key.isascii() and key.isprintable() and "*/" not in key


def check_member_name(name: str) -> str:
    """A file name from metadata or an archive: plain, at the module's root. Anything else
    (`../x`, `/etc/passwd`, `a/b`, `C:x`, empty) could read or write outside the module."""
    if (
        not name
        or name in (".", "..")
        or "/" in name
        or "\\" in name
        or ":" in name
        or "\0" in name
    ):
        raise AotModuleError(f"file name {name!r} escapes the module folder")
    return name


def dumps(data: Any) -> bytes:
    """JSON as the module stores it: sorted keys, two-space indent, UTF-8, final newline, so
    the same module gives the same bytes."""
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def loads(name: str, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise AotModuleError(f"{name} is not valid JSON: {e}") from None
