"""The offline (disk) cache's keys: what a kernel's compiled code depends on, hashed.

A kernel instantiation is keyed by a SHA-256 over everything its code depends on: the printed
frontend IR and the Python source, its autodiff mode, the parameter and return types, the layout
of the program's fields, the `CompileConfig`, the back end's `fingerprint()` (target, CPU name and
features, LLVM version, thread-pool kind; or the GPU adapter's features) and a fingerprint of the
compiler's own source files, so that editing a pass invalidates old entries.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tistudio.backends.protocol import Backend
from tistudio.ir.printer import print_ir
from tistudio.ir.snode import SNode
from tistudio.ir.stmt import Kernel
from tistudio.runtime.cache_store import MAGIC, OfflineCache

if TYPE_CHECKING:
    from tistudio.runtime.program import Program

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


def kernel_key(
    program: Program, kernel: Kernel, source: str, cache: OfflineCache, backend: Backend
) -> str:
    """The key of the frontend IR `kernel` (whose Python text is `source`) in `program`."""
    if cache.fingerprint is None:
        cache.fingerprint = compiler_fingerprint()
    parts = (
        MAGIC.decode(),
        cache.fingerprint,
        backend.fingerprint(),
        repr(program.config),
        repr(kernel.params),
        repr(kernel.ret_types),
        kernel.autodiff_mode,  # f.grad's IR prints as f's: the mode keys it apart
        layout_text(program),
        print_ir(kernel),
        source,
    )
    return make_key(parts)


def quant_text(node: SNode) -> str:
    """A quant place's type (its scale exactly) and where its bits are in the word."""
    return (
        f" {node.quant!r} bits@{node.bit_offset} exponent@{node.exponent_bit_offset}"
        f" shared={node.shared_exponent}"
    )


def pool_text(node: SNode) -> str:
    """Where a pointer node's pool and its counters are (ir/sparse.py)."""
    return f" pool@{node.pool_offset}x{node.pool_capacity} meta@{node.meta_offset}"


def layout_text(program: Program) -> str:
    """Every materialised field of `program` with its geometry: the memory kernels address."""
    lines: list[str] = []

    def visit(node: SNode) -> None:
        lines.append(
            f"S{node.id} {node.type} t{node.tree_id} {node.axes} {node.sizes} {node.dtype} "
            f"@{node.offset_in_parent_cell} x{node.cell_size}"
            + (quant_text(node) if node.quant is not None else "")
            + (pool_text(node) if node.type == "pointer" else "")
        )
        for child in node.children:
            visit(child)

    for tree in program.trees:
        visit(tree.root)
    return "\n".join(lines)
